/* The environment that configures libcutap.so in every process of the
 * command (run_internal.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "run_internal.h"

int count_traces(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        n += tr_is_trace_name(e->d_name);
    }
    closedir(d);
    return n;
}

int prepare_env(const char *mode_var, const char *dir, const char *filter, const char *runtime)
{
    char lib[PATH_MAX], abs[PATH_MAX];
    if (find_library(lib, sizeof lib))
        return -1;
    if (!realpath(dir, abs)) {
        fprintf(stderr, "cutap: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    unsetenv("CUTAP_TRACE");
    unsetenv("CUTAP_COUNT");
    unsetenv("CUTAP_FILTER");
    unsetenv("CUTAP_RUNTIME");   /* like the filter: the option decides, default all */
    if (set_preload(lib) || setenv(mode_var, abs, 1) || (filter && setenv("CUTAP_FILTER", filter, 1)) ||
        (runtime && setenv("CUTAP_RUNTIME", runtime, 1))) {
        fprintf(stderr, "cutap: cannot set the environment\n");
        return -1;
    }
    return 0;
}

/* cutap as the NVTX injection library (src/resolve/nvtx.c): at a
 * program's first NVTX call, NVTX loads the library NVTX_INJECTION64_PATH
 * names, here the libcutap.so already preloaded (the same object), and
 * its ranges and marks reach the recorder as calls of layer nvtx. A value
 * the user set is theirs: left as it is, silently. */
int set_nvtx_injection(void)
{
    const char *v = getenv("NVTX_INJECTION64_PATH");
    char lib[PATH_MAX];
    if (v && *v)
        return 0;
    if (find_library(lib, sizeof lib))
        return -1;
    if (setenv("NVTX_INJECTION64_PATH", lib, 1)) {
        fprintf(stderr, "cutap: cannot set the environment\n");
        return -1;
    }
    return 0;
}

/* CUTAP_INJECT for every process of the command: the checked specs, or
 * none (an inherited value is removed). */
int inject_env(const struct run_opts *o)
{
    unsetenv("CUTAP_INJECT");
    return o->ninject ? setenv("CUTAP_INJECT", o->inject, 1) : 0;
}

/* The flight recorder and capture control, for every process of the
 * command (src/record/capture.c reads them). Each variable is set or
 * removed: the options decide, not an inherited environment. */
int capture_env(const struct run_opts *o)
{
    static const char *const vars[] = {"CUTAP_RING", "CUTAP_CAPTURE_T0", "CUTAP_CAPTURE_DELAY",
                                       "CUTAP_CAPTURE_DURATION", "CUTAP_CAPTURE_RANGE", "CUTAP_UNTIL_ERROR"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        unsetenv(vars[i]);
    char v[64];
    int bad = 0;
    if (o->ring) {
        snprintf(v, sizeof v, "%llu", o->ring);
        bad |= setenv("CUTAP_RING", v, 1);
    }
    if (o->delay >= 0 || o->duration > 0) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        snprintf(v, sizeof v, "%llu", (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec);
        bad |= setenv("CUTAP_CAPTURE_T0", v, 1);
        snprintf(v, sizeof v, "%llu", (unsigned long long)((o->delay > 0 ? o->delay : 0) * 1e9));
        bad |= setenv("CUTAP_CAPTURE_DELAY", v, 1);
        if (o->duration > 0) {
            snprintf(v, sizeof v, "%llu", (unsigned long long)(o->duration * 1e9));
            bad |= setenv("CUTAP_CAPTURE_DURATION", v, 1);
        }
    }
    if (o->capture_range)
        bad |= setenv("CUTAP_CAPTURE_RANGE", o->capture_range, 1);
    if (o->until_error)
        bad |= setenv("CUTAP_UNTIL_ERROR", o->until_error, 1);
    bad |= inject_env(o);
    unsetenv("CUTAP_SYNC_LAUNCHES");
    unsetenv("CUTAP_STACK");
    unsetenv("CUTAP_GPU");
    unsetenv("CUTAP_IOCTL_PARAMS");
    if (o->ioctl_params)
        bad |= setenv("CUTAP_IOCTL_PARAMS", "1", 1);
    if (o->gpu)
        bad |= setenv("CUTAP_GPU", "1", 1);
    if (o->stack)
        bad |= setenv("CUTAP_STACK", o->stack, 1);
    if (o->sync_launches)
        bad |= setenv("CUTAP_SYNC_LAUNCHES", o->sync_launches, 1);
    if (bad)
        fprintf(stderr, "cutap: cannot set the environment\n");
    return bad ? -1 : 0;
}
