/* What the subcommands that run a program (cmd_trace.c, cmd_stat.c,
 * cmd_run.c, here in cli/run/) share: finding and preloading the library,
 * running the command (launch.c), their options (options.c), the
 * environment that configures the library (env.c). */
#ifndef CUTAP_RUN_INTERNAL_H
#define CUTAP_RUN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

struct run_opts {
    const char *out;
    const char *filter;
    int time_all;              /* stat --time-all */
    int no_nvtx;               /* trace --no-nvtx */
    int force;                 /* stat --force: replace an existing -o FILE */
    const char *runtime;       /* --runtime=symbols|cupti, NULL: symbols */
    double stuck;              /* trace --stuck SECONDS; < 0: off */
    unsigned long long ring;   /* trace --ring SIZE, bytes; 0: off */
    double delay, duration;    /* trace --delay / --duration, seconds; < 0: not given */
    const char *capture_range; /* trace --capture-range */
    const char *until_error;   /* trace --until-error FILTER */
    const char *sync_launches; /* trace --sync-launches FILTER */
    const char *stack;         /* trace --stack FILTER (the term errors: failing calls) */
    int print;                 /* trace --print[=FILE] */
    int gpu;                   /* trace --gpu: GPU activity through CUPTI (issue #31) */
    int ioctl_params;          /* trace --ioctl-params: RM parameter blocks (issue #32) */
    const char *print_file;    /* its FILE, NULL: stderr */
    char inject[8192];         /* --inject SPECs, canonical, one a line (CUTAP_INJECT) */
    int ninject;
    char **cmd;
};

/* launch.c */
int find_library(char *out, size_t size);   /* libcutap.so (its core beside it): 0, or -1 after a message */
int set_preload(const char *lib);
void run_watch(double stuck, const char *dir, const char *freeze_dir, const char *peer);
int run_command(char **argv, int *not_run);
void run_after_fork(void (*fn)(void *), void *arg);   /* fn(arg) in cutap right after the fork */   /* the command's exit status (128+N: killed by N) */

/* options.c: the options of trace, stat and run (stat: 1 for stat's) */
int parse(int argc, char **argv, struct run_opts *o, const char *usage, int stat);
int inject_add(struct run_opts *o, const char *arg);

/* env.c */
int count_traces(const char *dir);
int prepare_env(const char *mode_var, const char *dir, const char *filter, const char *runtime);
int set_nvtx_injection(void);
int inject_env(const struct run_opts *o);
int capture_env(const struct run_opts *o);

#define RUNTIME_HELP                                                                                  \
    "  --runtime=all|symbols|cupti  where runtime-API calls (cudaMalloc, ...) come from. all (default):\n" \
    "                           every copy of the runtime: the shared libcudart by its symbols, the\n"   \
    "                           copies linked statically into the program and into libraries (cuDNN,\n" \
    "                           cuBLAS, NCCL, libtorch_cuda, XLA) by their own reports to the driver,\n"  \
    "                           without CUPTI; each call once, named by its object, typed. symbols:\n"   \
    "                           the shared libcudart only. cupti: the copies through a CUPTI\n"          \
    "                           subscription (needs libcupti, and CUPTI free of other tools)\n"
#define FILTER_HELP                                                                                   \
    "  -e, --filter FILTER      record only the calls FILTER selects: comma-separated globs on the\n"     \
    "                           function name (cuMem*, cudaMemcpy*, cublasGemm*), layer=NAME (driver,\n" \
    "                           hidden, runtime, cublas, cublasLt, cudnn, nccl, cufft, curand,\n"        \
    "                           cusparse, cusolver, nvrtc, nvJitLink, nvtx, nvml, ioctl); a leading !\n"  \
    "                           excludes\n"
#define HELP_HELP "  -h, --help               this help\n"

#endif
