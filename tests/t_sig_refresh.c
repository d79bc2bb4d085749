/* A signal handler that turns a client on for a function and calls it,
 * while its own thread is turning clients on and off for every function
 * (never harm: no hang). The main thread registers a client (libcutap.so
 * preloaded: the API resolved at run time) and turns it on and off for
 * CUTAP_ID_ALL R times (each a refresh of every id); a timer at the main
 * thread fires every 20 us, and its handler turns the client on for
 * cuDeviceGetCount alone (SIGUSR1-style toggling, as a plugin may do) and
 * calls it. A refresh waited for the lock its own thread held: the
 * handler never returned. Then, the timer off, the client on for every
 * id: M calls each of cuDeviceGetCount and cuCtxGetCurrent, which its pre
 * callback must see, each (no id left behind by a refresh put off).
 * Where libnvrtc.so.13 loads (the fakes' directory on LD_LIBRARY_PATH),
 * the handler also calls its nvrtcVersion (through dlsym: cutap's entry),
 * whose first call adopts the layer inside the handler and finds its ids
 * not refreshed yet (cutap_lib_resolve), its thread holding the refresh
 * lock: that call looped for ever. Prints "toggles R handler H seen D C
 * nvrtc V" (D and C: the callback's count of the last M calls of each; V
 * the nvrtcVersion calls that succeeded); status 0 when every call
 * succeeded.
 *   t_sig_refresh R M
 * The adoption mode (t_sig_adopt: this file linked with 8 fake libraries
 * of as many layers, -DADOPT_LINKED): with the timer on, the main thread
 * calls one function of each layer in turn, its first call of the layer
 * (which adopts the layer, then refreshes its ids), while the handler
 * calls the same function: a handler's call in that window finds the
 * layer adopted and its id not refreshed yet, its own thread holding the
 * refresh lock, and looped for ever (cutap_lib_resolve). Prints "adopted L
 * handler H calls C failed F" (C: the handler's calls of the 8; F: those
 * that did not succeed: a handler's call made while its own thread is
 * still adopting the layer gets the layer's "unavailable" status, a known
 * limit, docs/LIMITS.md); status 0 when the main thread's calls succeeded.
 *   t_sig_adopt adopt
 * The dynamic-id mode: slot 1 of the fake's FAKE_SIZED export table (a
 * dynamic id, FAKE_SIZED#1, its trampoline switched by the refresh) is
 * turned on for the client once from the handler, at its first tick, while
 * the main thread turns the client on and off for cuDeviceGetCount; then,
 * the timer off, the slot is called 100 times, which the client must see.
 * 20 rounds, the slot turned off before each. A deferred refresh of a
 * dynamic id was dropped (helper-27's review: 0 of 100 seen in 5 runs of
 * 8). Prints "dyn rounds R seen S of 2000".
 *   t_sig_refresh dyn */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cuda_min.h"
#include "cutap.h"
#include "sig_timer.h"

static volatile sig_atomic_t handled, bad;
static int client = -1;
static int (*enable)(int, uint32_t, int);
static uint32_t id_count, id_current;
static _Atomic long seen_count, seen_current;
static uint32_t id_slot;                     /* dyn mode: FAKE_SIZED#1 */
static volatile sig_atomic_t dyn_armed;      /* dyn mode: the handler turns the slot on once */
static _Atomic long seen_slot;

static int (*nvrtc_version)(int *, int *);
static volatile sig_atomic_t nvrtc_ok;

static int pre(cutap_call_t *call, void *ctx, uint64_t *scratch)
{
    (void)ctx, (void)scratch;
    if (call->id == id_count)
        atomic_fetch_add(&seen_count, 1);
    else if (call->id == id_current)
        atomic_fetch_add(&seen_current, 1);
    else if (id_slot && call->id == id_slot)
        atomic_fetch_add(&seen_slot, 1);
    return 0;
}

static void on_timer(int sig)
{
    (void)sig;
    int n = 0;
    if (enable(client, id_count, 1) || cuDeviceGetCount(&n) || n < 1)
        bad = 1;
    int major = 0, minor = 0;
    if (nvrtc_version) {
        if (nvrtc_version(&major, &minor))
            bad = 1;
        else
            nvrtc_ok++;
    }
    handled++;
}

/* one function of a layer with at most one pointer argument, and its library */
static const struct {
    const char *lib, *fn;
} layer_fns[] = {
    {"libcudart.so.13", "cudaRuntimeGetVersion"}, {"libcufft.so.12", "cufftGetVersion"},
    {"libcurand.so.10", "curandGetVersion"},      {"libnccl.so.2", "ncclGetVersion"},
    {"libcusolver.so.12", "cusolverGetVersion"},  {"libcudnn.so.9", "cudnnGetVersion"},
    {"libnvrtc.so.13", "nvrtcVersion"},           {"libcublasLt.so.13", "cublasLtGetVersion"},
};
#define NLAYER_FNS (sizeof layer_fns / sizeof layer_fns[0])
static int (*layer_fp[NLAYER_FNS])(int *, int *);

static volatile sig_atomic_t current = -1;   /* the layer the main thread is calling first */
static volatile sig_atomic_t layer_calls;    /* the handler's calls of them */
static volatile sig_atomic_t layer_fails;    /* of those, the ones that did not succeed */

static void on_timer_adopt(int sig)
{
    (void)sig;
    int a = 0, b = 0, i = current;
    if (i >= 0) {
        /* the main thread's first call of the layer may be under way */
        int r = i == 5 || i == 7 ? (layer_fp[i](&a, &b), 0) : layer_fp[i](&a, &b);   /* (size_t results) */
        layer_calls++;
        if (r)
            layer_fails++;
    }
    handled++;
}

#ifdef ADOPT_LINKED
/* linked with the fakes (tests/fakelibs.mk): the program's references bind
 * to cutap's entries (libcutap.so comes first), and no lookup adopts a
 * layer before its first call */
int cudaRuntimeGetVersion(int *), cufftGetVersion(int *), curandGetVersion(int *), ncclGetVersion(int *),
    cusolverGetVersion(int *), nvrtcVersion(int *, int *);
size_t cudnnGetVersion(void), cublasLtGetVersion(void);
static void *const linked_fns[] = {
    (void *)cudaRuntimeGetVersion, (void *)cufftGetVersion,    (void *)curandGetVersion, (void *)ncclGetVersion,
    (void *)cusolverGetVersion,    (void *)cudnnGetVersion,    (void *)nvrtcVersion,     (void *)cublasLtGetVersion,
};
#endif

static int adopt_mode(void)
{
#ifdef ADOPT_LINKED
    for (size_t i = 0; i < NLAYER_FNS; i++)
        layer_fp[i] = (int (*)(int *, int *))linked_fns[i];
#else
    printf("adopt: this build is not linked with the libraries (t_sig_adopt is)\n");
    return 1;
#endif
    timer_t tm;
    if (start_timer(&tm, on_timer_adopt))
        return 1;
    struct timespec pause = {0, 1000000};
    int adopted = 0;
    for (size_t i = 0; i < NLAYER_FNS; i++) {
        current = (sig_atomic_t)i;
        int a = 0, b = 0;
        int r = i == 5 || i == 7 ? (layer_fp[i](&a, &b), 0) : layer_fp[i](&a, &b);   /* (size_t results) */
        if (r)
            bad = 1;
        else
            adopted++;
        nanosleep(&pause, NULL);
    }
    stop_timer(tm);
    printf("adopted %d handler %d calls %d failed %d\n", adopted, (int)handled, (int)layer_calls, (int)layer_fails);
    return bad;
}

static void on_timer_dyn(int sig)
{
    (void)sig;
    if (dyn_armed) {
        dyn_armed = 0;
        if (enable(client, id_slot, 1))
            bad = 1;
    }
    handled++;
}

CUresult cuGetExportTable(const void **table, const void *uuid);

static int dyn_mode(void)
{
    static const unsigned char sized[16] = {0xfa, 0x4e, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01};
    const uintptr_t *t = NULL;
    if (cuGetExportTable((const void **)&t, sized) || !t || ((int (*)(int))t[1])(41) != 42)
        return 1;
    uint32_t (*lookup)(const char *) = (uint32_t (*)(const char *))dlsym(RTLD_DEFAULT, "cutap_lookup");
    int (*reg)(const char *, cutap_pre_fn, cutap_post_fn, void *) =
        (int (*)(const char *, cutap_pre_fn, cutap_post_fn, void *))dlsym(RTLD_DEFAULT, "cutap_register");
    enable = (int (*)(int, uint32_t, int))dlsym(RTLD_DEFAULT, "cutap_enable");
    if (!lookup || !reg || !enable || (id_slot = lookup("FAKE_SIZED#1")) == CUTAP_ID_ALL ||
        (client = reg("sig-refresh", pre, NULL, NULL)) < 0) {
        printf("no dynamic id FAKE_SIZED#1 or no API\n");
        return 1;
    }
    uint32_t id_dev = lookup("cuDeviceGetCount");
    long seen = 0;
    int rounds = 0;
    for (; rounds < 20; rounds++) {
        if (enable(client, id_slot, 0))
            return 1;
        handled = 0;
        dyn_armed = 1;
        timer_t tm;
        if (start_timer(&tm, on_timer_dyn))
            return 1;
        for (long r = 0; dyn_armed || r < 1000; r++)   /* until the handler has run, and on a while */
            if (enable(client, id_dev, (int)(r & 1)))
                bad = 1;
        stop_timer(tm);
        seen_slot = 0;
        for (int i = 0; i < 100; i++)
            if (((int (*)(int))t[1])(i) != i + 1)
                bad = 1;
        seen += seen_slot;
    }
    printf("dyn rounds %d seen %ld of %d\n", rounds, seen, rounds * 100);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "dyn")) {
        if (cuInit(0))
            return 1;
        return dyn_mode();
    }
    if (argc > 1 && !strcmp(argv[1], "adopt")) {
        if (cuInit(0))
            return 1;
        return adopt_mode();
    }
    long rounds = argc > 1 ? atol(argv[1]) : 100, m = argc > 2 ? atol(argv[2]) : 1000;
    if (cuInit(0))
        return 1;
    int (*reg)(const char *, cutap_pre_fn, cutap_post_fn, void *) =
        (int (*)(const char *, cutap_pre_fn, cutap_post_fn, void *))dlsym(RTLD_DEFAULT, "cutap_register");
    uint32_t (*lookup)(const char *) = (uint32_t (*)(const char *))dlsym(RTLD_DEFAULT, "cutap_lookup");
    enable = (int (*)(int, uint32_t, int))dlsym(RTLD_DEFAULT, "cutap_enable");
    if (!reg || !lookup || !enable) {
        printf("public API not found\n");
        return 1;
    }
    id_count = lookup("cuDeviceGetCount");
    id_current = lookup("cuCtxGetCurrent");
    if ((client = reg("sig-refresh", pre, NULL, NULL)) < 0)
        return 1;
    void *nv = dlopen("libnvrtc.so.13", RTLD_NOW | RTLD_LOCAL);
    if (nv)
        nvrtc_version = (int (*)(int *, int *))dlsym(nv, "nvrtcVersion");
    timer_t tm;
    if (start_timer(&tm, on_timer))
        return 1;
    for (long r = 0; r < rounds; r++)
        if (enable(client, CUTAP_ID_ALL, (int)(r & 1)))
            bad = 1;
    stop_timer(tm);
    if (enable(client, CUTAP_ID_ALL, 1))
        bad = 1;
    seen_count = seen_current = 0;
    CUcontext c;
    int n;
    for (long i = 0; i < m; i++)
        if (cuDeviceGetCount(&n) || cuCtxGetCurrent(&c))
            bad = 1;
    printf("toggles %ld handler %d seen %ld %ld nvrtc %d\n", rounds, (int)handled, (long)seen_count,
           (long)seen_current, (int)nvrtc_ok);
    return bad;
}
