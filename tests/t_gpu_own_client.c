/* A program with a CUPTI activity client of its own (issue #31), as a
 * profiler the program runs (PyTorch's Kineto, a CUPTI sample) has, on the
 * fake driver and the fake libcupti:
 *
 *   t_gpu_own_client before|after|local|handle|sub|subhandle|weakv2|forksub|subrace|capture|stub|ctor|regsub
 *
 * before: registers its buffer callbacks before cuInit, then launches;
 * after: launches 20 kernels, registers, launches 20 more;
 * local: as after, with libcupti loaded into a scope of its own
 *   (dlopen RTLD_LOCAL) and the function taken by dlsym(RTLD_DEFAULT):
 *   the definition found first, which under cutap is cutap's (bare: none,
 *   and the library's own is taken).
 * handle: as local, the function taken by dlsym of the library's handle
 *   (as profilers that load CUPTI themselves do: XLA's).
 * It enables kernels itself, flushes at the end and prints "own kernels N":
 * the kernel records its own callbacks got (what CUPTI gave it).
 * sub: launches 20 kernels, then subscribes to CUPTI's callbacks
 *   (cuptiSubscribe: CUPTI has one subscriber; under cutap trace --gpu,
 *   cutap's) and enables cuLaunchKernel's, launches 20 more and prints
 *   "own subscriber R callbacks N": cuptiSubscribe's result and the
 *   callbacks it got (20 entries and 20 exits), no activity client.
 * subhandle: as sub, libcupti loaded RTLD_LOCAL and cuptiSubscribe taken
 *   by dlsym of its handle.
 * weakv2: as sub, through cuptiSubscribe_v2 where the program finds one (a
 *   weak reference), else cuptiSubscribe (the fake libcupti has no _v2).
 * forksub: launches 20 kernels, forks; the child subscribes and prints
 *   "child subscriber R" (bare: 0; CUPTI's memory the child got holds the
 *   parent's subscriber, under --gpu cutap's).
 * subrace: a second thread subscribes as soon as CUPTI has a subscriber
 *   (the fake's fake_cupti_has_subscriber: under --gpu, cutap's, inside
 *   cuInit, while cutap still starts; FAKE_CUPTI_ENABLE_CB_SLEEP_MS makes
 *   that window) or when cuInit has returned (bare); prints "race
 *   subscriber R".
 * capture: 10 launches, 10 captured into a graph on a stream
 *   (cuStreamBeginCapture_v2 .. cuStreamEndCapture: no GPU work), 10 more;
 *   prints "captured N" (cuStreamEndCapture's result).
 * stub: after cuInit, the library $CUPTI_FORWARD (tests/lib_cupti_forward.c:
 *   a cuptiSubscribe of its own that passes on to libcupti through dlsym)
 *   loaded RTLD_LOCAL, its cuptiSubscribe taken by dlsym and called;
 *   prints "stub subscriber R".
 * ctor: a thread loads $CUPTI_CTOR (tests/lib_cupti_ctor.c, whose
 *   constructor subscribes once CUPTI has a subscriber) while the main
 *   thread's cuInit runs; prints "ctor subscriber R".
 * regsub: after cuInit and 5 launches, a thread registers activity
 *   callbacks of its own and another subscribes 50 ms later (under --gpu,
 *   while cutap lets its subscription go: FAKE_CUPTI_UNSUB_SLEEP_MS makes
 *   that slow); prints "register R subscribe S".
 * Linked against libcupti (the call binds as a library's would). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cuda_min.h"

typedef void *CUfunction;
CUresult cuModuleGetFunction(CUfunction *f, void *mod, const char *name);
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned smem, void *s, void **params, void **extra);
CUresult cuCtxSynchronize(void);
typedef void (*req_fn)(uint8_t **buffer, size_t *size, size_t *max);
typedef void (*done_fn)(void *ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid);
int cuptiActivityRegisterCallbacks(req_fn, done_fn);
int cuptiSubscribe(void **subscriber, void (*fn)(void *, int, uint32_t, const void *), void *userdata);
extern int cuptiSubscribe_v2(void **subscriber, void (*fn)(void *, int, uint32_t, const void *), void *userdata,
                             void *params) __attribute__((weak));
static unsigned long own_callbacks;
static int (*race_has)(void);
static _Atomic int race_inited;
static int race_result = -1;
static void on_callback(void *ud, int domain, uint32_t cbid, const void *data);
static int regsub_r = -1, regsub_s = -1;
static void requested(uint8_t **buffer, size_t *size, size_t *max);
static void completed(void *ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid);
static void *regsub_register(void *unused)
{
    (void)unused;
    regsub_r = cuptiActivityRegisterCallbacks(requested, completed);
    return NULL;
}
static void *regsub_subscribe(void *unused)
{
    (void)unused;
    struct timespec t = {0, 50000000};
    nanosleep(&t, NULL);
    void *sub = NULL;
    regsub_s = cuptiSubscribe(&sub, on_callback, NULL);
    return NULL;
}
static int ctor_result = -2;
static void *ctor_thread(void *unused)
{
    (void)unused;
    while (!race_has() && !atomic_load(&race_inited))
        sched_yield();
    void *h = dlopen(getenv("CUPTI_CTOR"), RTLD_NOW | RTLD_LOCAL);
    int *res = h ? (int *)dlsym(h, "ctor_subscribe_result") : NULL;
    if (!res)
        fprintf(stderr, "ctor: %s\n", dlerror());
    ctor_result = res ? *res : -3;
    return NULL;
}
static void *race_thread(void *unused)
{
    (void)unused;
    while (!race_has() && !atomic_load(&race_inited))
        sched_yield();
    void *sub = NULL;
    race_result = cuptiSubscribe(&sub, on_callback, NULL);
    return NULL;
}
static void on_callback(void *ud, int domain, uint32_t cbid, const void *data)
{
    (void)ud, (void)data;
    own_callbacks += domain == 1 && cbid == 307;   /* CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel */
}
static int (*enable)(int);
static int (*next_record)(uint8_t *, size_t, const void **);
static int (*flush_all)(uint32_t);

static unsigned long own_kernels;

static void requested(uint8_t **buffer, size_t *size, size_t *max)
{
    *size = 1 << 20;
    *buffer = aligned_alloc(8, *size);
    *max = 0;
}

static void completed(void *ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    (void)ctx, (void)stream, (void)size;
    const void *r = NULL;
    while (next_record(buffer, valid, &r) == 0) {
        uint32_t kind;
        memcpy(&kind, r, 4);
        own_kernels += kind == 3 || kind == 10;
    }
    free(buffer);
}

static int own_client(void *cupti, int local)
{
    int (*reg)(req_fn, done_fn) = cuptiActivityRegisterCallbacks;
    if (local == 2)
        reg = (int (*)(req_fn, done_fn))dlsym(cupti, "cuptiActivityRegisterCallbacks");
    else if (local) {   /* the definition found first; bare, none is global: the library's own */
        reg = (int (*)(req_fn, done_fn))dlsym(RTLD_DEFAULT, "cuptiActivityRegisterCallbacks");
        if (!reg)
            reg = (int (*)(req_fn, done_fn))dlsym(cupti, "cuptiActivityRegisterCallbacks");
    }
    enable = (int (*)(int))dlsym(cupti, "cuptiActivityEnable");
    next_record = (int (*)(uint8_t *, size_t, const void **))dlsym(cupti, "cuptiActivityGetNextRecord");
    flush_all = (int (*)(uint32_t))dlsym(cupti, "cuptiActivityFlushAll");
    if (!reg || !enable || !next_record || !flush_all) {
        fprintf(stderr, "no activity API\n");
        return 1;
    }
    int r = reg(requested, completed);
    if (r) {
        fprintf(stderr, "cuptiActivityRegisterCallbacks: %d\n", r);
        return 1;
    }
    return enable(10);
}

static void launches(CUfunction f, int n)
{
    for (int i = 0; i < n; i++)
        cuLaunchKernel(f, 4, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "after";
    int local = !strcmp(mode, "local") ? 1 : !strcmp(mode, "handle") ? 2 : 0;
    int subhandle = !strcmp(mode, "subhandle");
    void *cupti = dlopen("libcupti.so.13", RTLD_NOW | (local || subhandle ? RTLD_LOCAL : RTLD_GLOBAL));
    if (!cupti) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    if (!strcmp(mode, "before") && own_client(cupti, 0))
        return 1;
    if (!strcmp(mode, "capture")) {
        int (*begin)(void *, int) = (int (*)(void *, int))dlsym(RTLD_DEFAULT, "cuStreamBeginCapture_v2");
        int (*end)(void *, void **) = (int (*)(void *, void **))dlsym(RTLD_DEFAULT, "cuStreamEndCapture");
        if (!begin || !end || cuInit(0))
            return 1;
        CUfunction f = NULL;
        cuModuleGetFunction(&f, NULL, "_Z9scale_f32Pfi");
        void *st = (void *)(uintptr_t)0x5000, *graph = NULL;
        launches(f, 10);
        if (begin(st, 0))
            return 1;
        for (int i = 0; i < 10; i++)
            cuLaunchKernel(f, 4, 1, 1, 32, 1, 1, 0, st, NULL, NULL);
        int r = end(st, &graph);
        launches(f, 10);
        cuCtxSynchronize();
        printf("captured %d\n", r);
        return 0;
    }
    if (!strcmp(mode, "stub")) {
        const char *path = getenv("CUPTI_FORWARD");
        void *h = path && !cuInit(0) ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
        int (*subscribe)(void **, void (*)(void *, int, uint32_t, const void *), void *) = NULL;
        if (h)
            *(void **)&subscribe = dlsym(h, "cuptiSubscribe");
        if (!subscribe)
            return 1;
        void *sub = NULL;
        printf("stub subscriber %d\n", subscribe(&sub, on_callback, NULL));
        return 0;
    }
    if (!strcmp(mode, "regsub")) {
        next_record = (int (*)(uint8_t *, size_t, const void **))dlsym(cupti, "cuptiActivityGetNextRecord");
        if (!next_record || cuInit(0))
            return 1;
        CUfunction f = NULL;
        cuModuleGetFunction(&f, NULL, "_Z9scale_f32Pfi");
        launches(f, 5);
        cuCtxSynchronize();
        pthread_t a, b;
        if (pthread_create(&a, NULL, regsub_register, NULL) || pthread_create(&b, NULL, regsub_subscribe, NULL))
            return 1;
        pthread_join(a, NULL);
        pthread_join(b, NULL);
        printf("register %d subscribe %d\n", regsub_r, regsub_s);
        return 0;
    }
    if (!strcmp(mode, "ctor") || !strcmp(mode, "subrace")) {
        /* a thread subscribes (itself, or a constructor of the library it
         * loads) while the main thread's cuInit runs */
        int ctor = !strcmp(mode, "ctor");
        race_has = (int (*)(void))dlsym(cupti, "fake_cupti_has_subscriber");
        pthread_t t;
        if (!race_has || (ctor && !getenv("CUPTI_CTOR")) ||
            pthread_create(&t, NULL, ctor ? ctor_thread : race_thread, NULL))
            return 1;
        int r = cuInit(0);
        atomic_store(&race_inited, 1);
        pthread_join(t, NULL);
        printf("%s subscriber %d\n", ctor ? "ctor" : "race", ctor ? ctor_result : race_result);
        return r != 0;
    }
    if (!strcmp(mode, "forksub")) {
        if (cuInit(0))
            return 1;
        CUfunction f = NULL;
        cuModuleGetFunction(&f, NULL, "_Z9scale_f32Pfi");
        launches(f, 20);
        cuCtxSynchronize();
        fflush(stdout);
        pid_t p = fork();
        if (p == 0) {
            void *sub = NULL;
            printf("child subscriber %d\n", cuptiSubscribe(&sub, on_callback, NULL));
            fflush(stdout);
            _exit(0);
        }
        int st = 0;
        waitpid(p, &st, 0);
        return p < 0 || !WIFEXITED(st);
    }
    if (!strcmp(mode, "sub") || subhandle || !strcmp(mode, "weakv2")) {
        int (*en)(uint32_t, void *, int, uint32_t) =
            (int (*)(uint32_t, void *, int, uint32_t))dlsym(cupti, "cuptiEnableCallback");
        if (!en || cuInit(0))
            return 1;
        CUfunction f = NULL;
        cuModuleGetFunction(&f, NULL, "_Z9scale_f32Pfi");
        launches(f, 20);
        void *sub = NULL;
        int (*subscribe)(void **, void (*)(void *, int, uint32_t, const void *), void *) = cuptiSubscribe;
        if (subhandle)
            *(void **)&subscribe = dlsym(cupti, "cuptiSubscribe");
        int r = !subscribe ? -1
                : !strcmp(mode, "weakv2") && cuptiSubscribe_v2 ? cuptiSubscribe_v2(&sub, on_callback, NULL, NULL)
                                                               : subscribe(&sub, on_callback, NULL);
        if (!r)
            en(1, sub, 1, 307);
        launches(f, 20);
        cuCtxSynchronize();
        printf("own subscriber %d callbacks %lu\n", r, own_callbacks);
        return 0;
    }
    if (cuInit(0))
        return 1;
    CUfunction f = NULL;
    cuModuleGetFunction(&f, NULL, "_Z9scale_f32Pfi");
    launches(f, 20);
    if (strcmp(mode, "before") && own_client(cupti, local))
        return 1;
    launches(f, 20);
    cuCtxSynchronize();
    flush_all(1);
    printf("own kernels %lu\n", own_kernels);
    return 0;
}
