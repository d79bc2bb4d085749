/* cutap — see `cutap help`. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cutap.h"
#include "cutap_format.h"
#include "generated/cutap_ids.h"

static const char usage[] =
    "usage: cutap COMMAND [OPTIONS]      (cutap COMMAND --help for each command's options)\n"
    "\n"
    "  trace [OPTIONS] -- CMD [ARGS...]   run CMD and every process it starts with every CUDA call\n"
    "                                     recorded (runtime, libraries, driver, ioctls; NVTX), one\n"
    "                                     file per process in a directory; --print shows each call\n"
    "                                     as it completes; exits with CMD's status\n"
    "  stat [OPTIONS] -- CMD [ARGS...]    count calls only (cheapest); the summary at exit\n"
    "                                     (-o FILE [--force])\n"
    "  report [OPTIONS] DIR               per function: calls, errors, total, self, avg, median,\n"
    "                                     min, max time; --tree, --by, --sort, --top, --errors\n"
    "  dump [OPTIONS] DIR                 one line per call in time order, arguments decoded\n"
    "  export --format F -o FILE DIR      Perfetto (JSON, protobuf), SQLite or JSON lines\n"
    "  ps [OPTIONS] DIR | --pid PID       what every traced process and thread is doing now\n"
    "  run --inject SPEC -- CMD [ARGS...] run CMD with faults injected, nothing recorded\n"
    "  freeze DIR                         stop the traced processes of DIR overwriting their rings\n"
    "  --version                          cutap's release, its trace format and plugin API versions\n"
    "  help --options [COMMAND]           every option of every command (or of one), a line each\n"
    "\n"
    "FILTER (-e): comma-separated terms, each a glob on the entry point name\n"
    "(cuMem*, cudaMemcpy*, cublasGemm*) or layer=LAYER; a leading ! excludes.\n"
    "LAYER: driver, hidden (export-table slots), runtime, cublas, cublasLt, cudnn,\n"
    "nccl, cufft, curand, cusparse, cusolver, nvrtc, nvJitLink, nvtx, nvml, ioctl.\n"
    "\n"
    "examples:\n"
    "  cutap trace -o run1 -- python3 train.py\n"
    "  cutap trace --print -e 'cudaMemcpy*,layer=nccl' -- ./app\n"
    "  cutap report run1\n"
    "  cutap report --tree run1\n"
    "  cutap dump --pid 1234 run1 | less\n"
    "  cutap export --format perfetto -o run1.json run1     # open in ui.perfetto.dev\n"
    "  cutap stat -o counts.txt --force -- ./app\n";

int main(int argc, char **argv)
{
    /* A file-size limit (ulimit -f) must not kill cutap with SIGXFSZ: its
     * writes past the limit fail with EFBIG and are reported like a full
     * disk. The command cutap runs gets the disposition back (run/launch.c). */
    struct sigaction ign = {.sa_handler = SIG_IGN};
    sigaction(SIGXFSZ, &ign, &cli_xfsz_default);
    if (argc >= 3 && !strcmp(argv[1], "help") && !strcmp(argv[2], "--options") && argc <= 4)
        return cli_print_options(argc == 4 ? argv[3] : NULL);
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
