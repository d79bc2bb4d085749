/* cutap — see `cutap help`. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cutap.h"
#include "cutap_format.h"
#include "generated/cutap_ids.h"

static const char usage[] =
    "usage: cutap COMMAND [OPTIONS]      (cutap COMMAND --help for each)\n"
    "\n"
    "  trace [-o DIR] [-e FILTER] [--runtime=all|symbols|cupti] [--no-nvtx] [--stuck S] [--ring SIZE]\n"
    "        [--until-error FILTER] [--delay S] [--duration S] [--capture-range WHAT] -- CMD [ARGS...]\n"
    "        run CMD and every process it starts with every CUDA call recorded,\n"
    "        NVTX ranges and marks too (unless --no-nvtx),\n"
    "        one file per process in DIR (default: cutap-YYYYMMDD-HHMMSS; a directory\n"
    "        of yours that only you can write); ends with what was recorded, lost,\n"
    "        and which processes were not traced and why;\n"
    "        exits with CMD's status; runtime calls of every runtime copy (the shared\n"
    "        libcudart, those linked into the program and libraries; --runtime); --ring: a flight\n"
    "        recorder keeping each process's newest SIZE of records (cutap trace --help)\n"
    "  stat [-o FILE [--force]] [-e FILTER] [--time-all] [--runtime=all|symbols|cupti] -- CMD [ARGS...]\n"
    "        count calls only (cheapest); print the summary at exit (stderr or FILE,\n"
    "        made 0600; an existing FILE only with --force);\n"
    "        times some calls and estimates the rest (~), or all with --time-all\n"
    "  report [--format text|csv|json] [--by process|thread|rank | --tree] DIR\n"
    "        per layer and entry point: calls, errors, total/avg/median/min/max time;\n"
    "        --tree: the call tree, each call under the call it was made in, self time\n"
    "  dump [--pid P] [--tid T] [--no-demangle] DIR\n"
    "        one line per call in time order, arguments decoded (DIR may be one .cutap file)\n"
    "  export --format perfetto|perfetto-proto|sqlite|jsonl -o FILE [--force] DIR\n"
    "        Chrome/Perfetto JSON, Perfetto protobuf, SQLite database, or JSON lines;\n"
    "        --force replaces FILE\n"
    "  ps [--format text|json] [--stuck S] [--watch] DIR | --pid PID\n"
    "        what every traced process and thread is doing now: the calls in progress,\n"
    "        since when, the last call completed; NCCL collectives per rank\n"
    "  run --inject SPEC [--inject SPEC]... -- CMD [ARGS...]\n"
    "        run CMD with faults injected (an error, a value or a delay at chosen calls), nothing\n"
    "        recorded; --inject is also an option of trace (injected calls marked) and stat\n"
    "  freeze DIR\n"
    "        stop the traced processes of DIR overwriting their rings (later calls counted)\n"
    "  --version\n"
    "        cutap's release, its trace format and plugin API versions\n"
    "\n"
    "FILTER: comma-separated terms, each a glob on the entry point name\n"
    "(cuMem*, cudaMemcpy*, cublasGemm*) or layer=LAYER; a leading ! excludes.\n"
    "LAYER: driver, hidden (export-table slots), runtime, cublas, cublasLt, cudnn,\n"
    "nccl, cufft, curand, cusparse, cusolver, nvrtc, nvJitLink, nvtx, nvml.\n"
    "\n"
    "examples:\n"
    "  cutap trace -o run1 -- python3 train.py\n"
    "  cutap report run1\n"
    "  cutap report --tree run1\n"
    "  cutap dump --pid 1234 run1 | less\n"
    "  cutap export --format perfetto -o run1.json run1     # open in ui.perfetto.dev\n"
    "  cutap stat -- ./app\n";

int main(int argc, char **argv)
{
    /* A file-size limit (ulimit -f) must not kill cutap with SIGXFSZ: its
     * writes past the limit fail with EFBIG and are reported like a full
     * disk. The command cutap runs gets the disposition back (run/launch.c). */
    struct sigaction ign = {.sa_handler = SIG_IGN};
    sigaction(SIGXFSZ, &ign, &cli_xfsz_default);
    if (argc < 2 || !strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("cutap %s (trace format %d, plugin API %d, CUDA %d.%d headers)\n", CUTAP_VERSION, CUTAP_FILE_VERSION,
               CUTAP_API_VERSION, CUTAP_HEADER_CUDA_VERSION / 1000, CUTAP_HEADER_CUDA_VERSION % 1000 / 10);
        return 0;
    }
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } cmds[] = {{"trace", cmd_trace}, {"stat", cmd_stat}, {"report", cmd_report}, {"dump", cmd_dump},
                {"export", cmd_export}, {"ps", cmd_ps}, {"freeze", cmd_freeze}, {"run", cmd_run}};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(argv[1], cmds[i].name)) {
            static char self[32];   /* getopt's messages name "cutap trace", not "trace" */
            snprintf(self, sizeof self, "cutap %s", cmds[i].name);
            argv[1] = self;
            return cmds[i].fn(argc - 1, argv + 1);
        }
    fprintf(stderr, "cutap: unknown command '%s' (trace, stat, report, dump, export, ps, freeze, run)\n"
                    "Try 'cutap --help' for more information.\n", argv[1]);
    return 2;
}
