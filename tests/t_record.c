/* Programs for the recorder tests (cutap trace / report / dump / export).
 * Like t_paths it prints "CALL <exported name>" for every driver call it
 * makes, so a test can compare what was recorded with what was done.
 *
 *   t_record kernels        module functions and launches (kernel names)
 *   t_record errors         failing calls, output strings, NULL outputs
 *   t_record many N         N calls (spans many chunks and segments)
 *   t_record mix N          N rounds of cuCtxGetCurrent, cuDriverGetVersion
 *                           (slow with FAKE_SLOW=cuDriverGetVersion) and a
 *                           failing cuGetErrorName
 *   t_record die N HOW      N calls, then: kill (SIGKILL), abort, segv, _exit
 *   t_record die_inside N   N calls, then cuProfilerStart (which nests a call)
 *                           and cuCtxSynchronize, inside which the process
 *                           dies when FAKE_SYNC_DIES is set
 *   t_record wait N         N calls, then "ready" on stdout, then waits for a
 *                           signal (the test looks at its threads meanwhile)
 *   t_record slots N        N calls through slot 1 of the fake's FAKE_SIZED
 *                           export table (an untyped call, no status)
 *   t_record initslots N    the same after cuInit(0)
 *   t_record threads T N    T threads at once, each N rounds of
 *                           cuCtxGetCurrent and cuProfilerStart (which nests
 *                           cuDriverGetVersion): 3 N T calls, only their
 *                           count printed ("CALLS n")
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <semaphore.h>
#include <string.h>
#include <unistd.h>

#include "cuda_min.h"

typedef void *CUfunction;
typedef void *CUmodule;
typedef void *CUstream;
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name);
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned smem, CUstream s, void **params, void **extra);

static void called(const char *name) { printf("CALL %s\n", name); }

static int kernels(void)
{
    int bad = cuInit(0) != 0;
    called("cuInit");
    CUfunction f1 = NULL, f2 = NULL;
    bad += cuModuleGetFunction(&f1, (CUmodule)0x1000, "_Z6vecaddPfS_i") != 0;
    called("cuModuleGetFunction");
    bad += cuModuleGetFunction(&f2, (CUmodule)0x1000, "plain_kernel") != 0;
    called("cuModuleGetFunction");
    for (int i = 0; i < 3; i++) {
        bad += cuLaunchKernel(f1, 128, 1, 1, 256, 1, 1, 0, NULL, NULL, NULL) != 0;
        called("cuLaunchKernel");
    }
    bad += cuLaunchKernel(f2, 1, 2, 3, 4, 5, 6, 64, (CUstream)0x5000, NULL, NULL) != 0;
    called("cuLaunchKernel");
    return bad;
}

static int errors(void)
{
    CUdeviceptr p = 0;
    int bad = cuMemAlloc_v2(NULL, 16) == 0;      /* NULL output: the driver's error */
    called("cuMemAlloc_v2");
    bad += cuMemAlloc_v2(&p, 0) == 0;            /* size 0: error, p untouched */
    called("cuMemAlloc_v2");
    bad += cuMemAlloc_v2(&p, 4096) != 0;
    called("cuMemAlloc_v2");
    const char *s = NULL;
    bad += cuGetErrorName(1, &s) != 0 || !s;
    called("cuGetErrorName");
    bad += cuGetErrorName(1, NULL) == 0;
    called("cuGetErrorName");
    int v = 0;
    bad += cuDriverGetVersion(&v) != 0;
    called("cuDriverGetVersion");
    return bad;
}

static int many(long n)
{
    CUcontext c;
    for (long i = 0; i < n; i++) {
        if (cuCtxGetCurrent(&c))
            return 1;
        called("cuCtxGetCurrent");
    }
    return 0;
}

static int mix(long n)
{
    CUcontext c;
    int v;
    const char *s;
    for (long i = 0; i < n; i++) {
        if (cuCtxGetCurrent(&c) || cuDriverGetVersion(&v) || cuGetErrorName(999, &s) == 0)
            return 1;
        called("cuCtxGetCurrent");
        called("cuDriverGetVersion");
        called("cuGetErrorName");
    }
    return 0;
}

static int die(long n, const char *how)
{
    if (many(n))
        return 1;
    fflush(stdout);
    if (!strcmp(how, "kill"))
        raise(SIGKILL);
    else if (!strcmp(how, "abort"))
        abort();
    else if (!strcmp(how, "segv"))
        *(volatile int *)(uintptr_t)8 = 1;
    else if (!strcmp(how, "_exit"))
        _exit(0);
    return 1;
}

CUresult cuCtxSynchronize(void);

static int slots(long n)
{
    static const unsigned char sized[16] = {0xfa, 0x4e, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01};
    const uintptr_t *t = NULL;
    if (cuGetExportTable((const void **)&t, sized) || !t)
        return 1;
    long bad = 0;
    for (long i = 0; i < n; i++)
        bad += ((int (*)(int))t[1])((int)(i & 0xffff)) != (int)(i & 0xffff) + 1;
    printf("CALLS %ld\n", n);
    return bad != 0;
}

static long rounds;
static void *round_thread(void *arg)
{
    (void)arg;
    CUcontext c;
    long bad = 0;
    for (long i = 0; i < rounds; i++)
        bad += (cuCtxGetCurrent(&c) != 0) + (cuProfilerStart() != 0);
    return (void *)bad;
}

static int threads(int t, long n)
{
    pthread_t th[64];
    if (t < 1 || t > 64)
        return 2;
    rounds = n;
    long bad = 0;
    for (int i = 0; i < t; i++)
        if (pthread_create(&th[i], NULL, round_thread, NULL))
            return 1;
    for (int i = 0; i < t; i++) {
        void *r;
        pthread_join(th[i], &r);
        bad += (long)r;
    }
    printf("CALLS %ld\n", 3 * n * t);
    return bad != 0;
}

static int die_inside(long n)
{
    if (many(n))
        return 1;
    called("cuProfilerStart");   /* cuDriverGetVersion nested inside */
    if (cuProfilerStart())
        return 1;
    fflush(stdout);
    return cuCtxSynchronize() != 0;
}

/* tails N: a thread that makes a call, says so, and exits when told */
static struct tail_sem {
    sem_t called, go;
} tail_sems[2];
static void *tail_thread(void *arg)
{
    struct tail_sem *t = arg;
    CUcontext c;
    cuCtxGetCurrent(&c);
    sem_post(&t->called);
    sem_wait(&t->go);
    return NULL;
}

/* atexit N: N calls at exit, from a handler registered before the first
 * CUDA call, so that it runs after cutap's own (which marks the trace
 * file CLOSED): calls a process makes after reaching exit, 200 ms after
 * (a reader following the file sees it CLOSED before they come) */
static long exit_calls;
static void at_exit_calls(void)
{
    CUcontext c;
    usleep(200000);
    for (long i = 0; i < exit_calls; i++)
        cuCtxGetCurrent(&c);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    if (argc >= 2 && !strcmp(argv[1], "kernels"))
        return kernels();
    if (argc >= 2 && !strcmp(argv[1], "errors"))
        return errors();
    if (argc >= 3 && !strcmp(argv[1], "many"))
        return many(atol(argv[2]));
    if (argc >= 3 && !strcmp(argv[1], "mix"))
        return mix(atol(argv[2]));
    if (argc >= 3 && !strcmp(argv[1], "die_inside"))
        return die_inside(atol(argv[2]));
    if (argc >= 4 && !strcmp(argv[1], "die"))
        return die(atol(argv[2]), argv[3]);
    if (argc >= 3 && !strcmp(argv[1], "wait")) {
        CUcontext c;
        for (long i = atol(argv[2]); i > 0; i--)
            if (cuCtxGetCurrent(&c))
                return 1;
        printf("ready\n");
        fflush(stdout);
        for (;;)
            pause();
    }
    if (argc >= 3 && !strcmp(argv[1], "tails")) {
        for (int i = 0; i < 2; i++)
            if (sem_init(&tail_sems[i].called, 0, 0) || sem_init(&tail_sems[i].go, 0, 0))
                return 1;
        /* threads A and B take chunks 0 and 1 (a call each), then exit, A
         * first: their chunks' tails are given back in that order and
         * taken in the other, so the main thread's N calls (each with its
         * own argument: i) go on in B's tail, then in A's, lower in the
         * file */
        pthread_t a, b;
        if (pthread_create(&a, NULL, tail_thread, &tail_sems[0]))
            return 1;
        sem_wait(&tail_sems[0].called);
        if (pthread_create(&b, NULL, tail_thread, &tail_sems[1]))
            return 1;
        sem_wait(&tail_sems[1].called);
        sem_post(&tail_sems[0].go);
        pthread_join(a, NULL);
        sem_post(&tail_sems[1].go);
        pthread_join(b, NULL);
        const char *s;
        for (long i = 0, n = atol(argv[2]); i < n; i++)
            cuGetErrorName((CUresult)i, &s);
        return 0;
    }
    if (argc >= 3 && !strcmp(argv[1], "atexit")) {
        exit_calls = atol(argv[2]);
        atexit(at_exit_calls);
        return many(3);
    }
    if (argc >= 3 && !strcmp(argv[1], "slots"))
        return slots(atol(argv[2]));
    if (argc >= 3 && !strcmp(argv[1], "initslots"))
        return cuInit(0) || slots(atol(argv[2]));
    if (argc >= 4 && !strcmp(argv[1], "threads"))
        return threads(atoi(argv[2]), atol(argv[3]));
    fprintf(stderr, "usage: t_record kernels|errors|many N|mix N|atexit N|tails N|die N kill|abort|segv|_exit|slots N|"
                    "initslots N|threads T N\n");
    return 2;
}
