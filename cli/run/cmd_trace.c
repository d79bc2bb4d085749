/* cutap trace: run a command with every CUDA call recorded. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cutap_registry.h"
#include "cli.h"

#include "run_internal.h"

static const char trace_usage[] =
    "usage: cutap trace [-o DIR] [-e FILTER] [--print[=FILE]] [--gpu|--no-gpu] [--runtime=all|symbols|cupti]\n"
    "                   [--no-nvtx] [--stuck S] [--ring SIZE] [--delay S] [--duration S] [--capture-range WHAT]\n"
    "                   [--until-error FILTER] [--inject SPEC] [--stack FILTER] [--sync-launches FILTER]\n"
    "                   [--ioctl-params]\n"
    "                   -- CMD [ARGS...]\n"
    "Runs CMD, and every process it starts, with every CUDA call recorded: one trace file per\n"
    "process in DIR; ends with a summary (processes, calls, losses, processes not traced) and\n"
    "exits with CMD's status.\n"
    "  -o, --output DIR         the trace directory (default: cutap-YYYYMMDD-HHMMSS, not kept when\n"
    "                           nothing was recorded); refused if it holds a trace, is a symbolic\n"
    "                           link, belongs to another user or others can write it\n"
    FILTER_HELP
    "  --print[=FILE]           also write each call, decoded as cutap dump writes it, as it completes\n"
    "                           (stderr, or FILE), strace-style; the trace is recorded as without it.\n"
    "                           Printed by cutap, not by the program, times from the command's start;\n"
    "                           a call holding many later calls back is shown started, then resumed\n"
    "  --gpu                    also what ran on the GPU: each kernel, copy and memset with its time on\n"
    "                           the GPU, device and stream, joined to the call that launched it (CUPTI's\n"
    "                           activity API: not beside another CUPTI tool); report --gpu, dump.\n"
    "                           The default where CUTAP_TRACE_GPU=1 (--no-gpu: not this time)\n"
    RUNTIME_HELP
    "  --stuck S                when a call has been running longer than S seconds, write what\n"
    "                           every process is doing (cutap ps) into DIR/cutap-stuck-TIME.txt,\n"
    "                           once per episode; watched from this command, not the program\n"
    "  --ring SIZE              flight recorder: each process keeps only its newest SIZE (1M..64G;\n"
    "                           4M, 1G) of call records, overwriting the oldest; report, dump and\n"
    "                           export say how many were overwritten. SIGUSR2 to this command (or\n"
    "                           cutap freeze DIR) freezes every process's trace: nothing recorded is\n"
    "                           overwritten any more, later calls are counted\n"
    "  --until-error FILTER     freeze a process at the first failing call FILTER selects ('*': any),\n"
    "                           and then every other process of the command\n"
    "  --delay S, --duration S  record only from S seconds after the start, for S seconds; calls\n"
    "                           outside are counted, not recorded\n"
    "  --capture-range WHAT     record only between cudaProfilerStart and cudaProfilerStop\n"
    "                           (cudaProfilerApi; cuProfilerStart/Stop too), or inside the NVTX ranges\n"
    "                           whose message is NAME (nvtx:NAME); calls outside are counted\n"
    "  --inject SPEC            fault injection (see cutap run --help); injected calls are marked\n"
    "  --stack FILTER           the native stack of each call FILTER selects, and with the term\n"
    "                           errors of each failing call ('errors', 'cuMemAlloc*,errors'): dump\n"
    "                           and report --errors show them, named from the objects' symbols\n"
    "  --sync-launches FILTER   synchronise after each launch FILTER selects (cuLaunchKernel*,\n"
    "                           cudaLaunchKernel): a kernel's error is returned by its own launch, as\n"
    "                           with CUDA_LAUNCH_BLOCKING=1 for those launches only (report --errors)\n"
    "  --ioctl-params           the ioctl layer records, with each RM_CONTROL and RM_ALLOC, its\n"
    "                           parameter block before and after the call (at most 4 KiB of it): dump\n"
    "                           and the exports show it by field. Costs a safe copy of up to 8 KiB and\n"
    "                           up to 130 more slots of trace file per such request\n"
    "  --no-nvtx                do not record NVTX ranges and marks (by default cutap is the NVTX\n"
    "                           injection library, NVTX_INJECTION64_PATH, unless that is set already)\n"
    HELP_HELP
    "examples:\n"
    "  cutap trace -o run1 -- python3 train.py\n"
    "  cutap trace --print -e 'cudaMemcpy*,cudaMalloc*' -- ./app\n"
    "  cutap trace -e 'layer=runtime,layer=cudnn,!cudaGetDevice' -- ./app --size 4096\n"
    "  cutap trace --runtime=symbols -- ./app              # the shared libcudart's calls only\n"
    "  cutap trace --ring 64M --until-error 'layer=nccl' -- torchrun --nproc-per-node 2 train.py\n"
    "  cutap trace --capture-range nvtx:step_10 -- python3 train.py\n"
    "then: cutap report run1; cutap dump run1; cutap export --format perfetto -o run1.json run1\n";

/* --print: its thread, started by run_command after the fork */
struct live_args {
    const char *dir;
    FILE *out;
    uint64_t origin_ns;
};
static void live_begin(void *arg)
{
    struct live_args *a = arg;
    dump_live_start(a->dir, a->out, a->origin_ns);
}

int cmd_trace(int argc, char **argv)
{
    struct run_opts o;
    int rc = parse(argc, argv, &o, trace_usage, 0);
    if (rc)
        return rc;
    char dir[PATH_MAX];
    int auto_dir = !o.out;
    if (o.out) {
        snprintf(dir, sizeof dir, "%s", o.out);
        /* a directory of ours that nobody else can write into or swap */
        if (procs_check_dir(dir, 1))
            return 1;
        if (count_traces(dir)) {
            fprintf(stderr, "cutap: %s already holds a trace; choose another -o\n", dir);
            return 1;
        }
    } else {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        char base[64];
        strftime(base, sizeof base, "cutap-%Y%m%d-%H%M%S", &tm);
        snprintf(dir, sizeof dir, "%s", base);
        for (int n = 2; mkdir(dir, 0700); n++) {
            if (errno != EEXIST || n > 999) {
                fprintf(stderr, "cutap: cannot create %s: %s\n", dir, strerror(errno));
                return 1;
            }
            snprintf(dir, sizeof dir, "%s-%d", base, n);
        }
        if (procs_check_dir(dir, 0))
            return 1;
    }
    if (prepare_env("CUTAP_TRACE", dir, o.filter, o.runtime) || (!o.no_nvtx && set_nvtx_injection()))
        return 1;
    if (capture_env(&o))
        return 1;
    FILE *print = NULL;
    if (o.print) {
        print = stderr;
        if (o.print_file) {
            /* made or emptied now, written by cutap only (not inherited by the command) */
            int fd = open(o.print_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0600);
            if (fd < 0 || !(print = fdopen(fd, "w"))) {
                fprintf(stderr, "cutap: --print=%s: %s\n", o.print_file, strerror(errno));
                if (fd >= 0)
                    close(fd);
                return 1;
            }
        }
    }
    procs_create(dir);
    int not_run;
    run_watch(o.stuck, dir, dir, o.until_error ? dir : NULL);
    struct timespec t0;
    clock_gettime(CLOCK_REALTIME, &t0);
    struct live_args la = {dir, print, (uint64_t)t0.tv_sec * 1000000000u + (uint64_t)t0.tv_nsec};
    if (print)
        run_after_fork(live_begin, &la);
    int code = run_command(o.cmd, &not_run);
    dump_live_stop();
    if (not_run) {
        /* nothing ran (said above): no trace, no summary; the directory
         * goes if it holds nothing else */
        char reg[PATH_MAX + 64];
        snprintf(reg, sizeof reg, "%s/%s", dir, CUTAP_REG_NAME);
        unlink(reg);
        rmdir(dir);
        return code;
    }
    if (auto_dir && !count_traces(dir)) {
        /* nothing recorded into the directory cutap named: the summary
         * without it, and the directory goes */
        procs_summary(dir, 0);
        fprintf(stderr, "cutap: no CUDA call was recorded (%s not kept)\n", dir);
        char reg[PATH_MAX + 64];
        snprintf(reg, sizeof reg, "%s/%s", dir, CUTAP_REG_NAME);
        unlink(reg);
        rmdir(dir);
        return code;
    }
    procs_summary(dir, 1);
    return code;
}
