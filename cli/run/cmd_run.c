/* cutap run: run a command under cutap, recording nothing (--inject). */
#define _GNU_SOURCE
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#include "run_internal.h"

static const char run_usage[] =
    "usage: cutap run --inject SPEC [--inject SPEC]... -- CMD [ARGS...]\n"
    "Runs CMD, and every process it starts, with faults injected and nothing recorded; exits with\n"
    "CMD's status. SPEC (also an option of cutap trace and cutap stat, where injected calls are\n"
    "marked):\n"
    "  NAMES:error=STATUS[:when=WHEN][:rank=N[,N...]][:delay=D]   the call is not made; the caller\n"
    "                           gets STATUS (a name of the function's status type, or a number)\n"
    "  NAMES:retval=VALUE[...]  the same, any value the result type holds (decimal, 0x hex, -N)\n"
    "  NAMES:delay=D[...]       the call is made D later (500ms, 2s, 10us)\n"
    "  NAMES                    the filter language of -e (cuMemAlloc*, layer=nccl, cublasGemmEx)\n"
    "  WHEN                     N (the Nth call only), N+ (from the Nth on), N+S (N, N+S, ...),\n"
    "                           N..M; counted per process over the calls NAMES selects\n"
    "  rank=                    only in processes of these ranks (RANK, OMPI_COMM_WORLD_RANK, ...)\n"
    "  -h, --help               this help\n"
    "Driver, runtime and library calls can be injected; runtime calls taken from CUPTI\n"
    "(--runtime=all: static runtimes) only delayed.\n"
    "examples:\n"
    "  cutap run --inject 'cuMemAlloc*:error=CUDA_ERROR_OUT_OF_MEMORY:when=3' -- python3 train.py\n"
    "  cutap trace --inject 'ncclAllReduce:delay=2s:rank=1:when=10' -- torchrun --nproc-per-node 2 train.py\n";

int cmd_run(int argc, char **argv)
{
    struct run_opts o;
    memset(&o, 0, sizeof o);
    optind = 1;
    int c;
    while ((c = cli_getopt(argc, argv, "run", "+")) != -1) {
        switch (c) {
        case 'J':
            if (inject_add(&o, optarg))
                return 2;
            break;
        case 'h': fputs(run_usage, stdout); return 0;
        default: return cli_usage_error(run_usage, NULL);
        }
    }
    if (optind >= argc || !o.ninject) {
        cli_usage_error(run_usage, "%s", optind >= argc ? "no command to run" : "nothing to inject");
        return 2;
    }
    char lib[PATH_MAX];
    if (find_library(lib, sizeof lib))
        return 1;
    static const char *const vars[] = {"CUTAP_TRACE", "CUTAP_COUNT", "CUTAP_FILTER", "CUTAP_RING", "CUTAP_UNTIL_ERROR",
                                       "CUTAP_CAPTURE_RANGE", "CUTAP_CAPTURE_DELAY", "CUTAP_CAPTURE_DURATION"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        unsetenv(vars[i]);
    if (set_preload(lib) || inject_env(&o)) {
        fprintf(stderr, "cutap: cannot set the environment\n");
        return 1;
    }
    int not_run;
    return run_command(argv + optind, &not_run);
}
