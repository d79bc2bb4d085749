/* The flight recorder's and capture control's workload (issue #16):
 * THREADS threads each make ITERS all-reduces of the fake NCCL (K launches
 * nested inside each, FAKE_NCCL_LAUNCHES) on communicator 0xc0000+thread,
 * then a cuDeviceGetCount, the thread's last call.
 *
 *   t_ring THREADS ITERS              that, then "done"
 *   t_ring THREADS ITERS hold         meanwhile the main thread is inside an
 *                                     all-reduce on communicator 0xb10c whose
 *                                     K launches are followed by a
 *                                     cuCtxSynchronize the test makes hang
 *                                     (FAKE_BLOCK): a call still open whose
 *                                     record lies chunks behind; "workers
 *                                     done" when the threads have finished
 *   t_ring THREADS ITERS phase[,fail][,prof][,nvtx]
 *                                     phase 1 as above, "phase1 done", then
 *                                     waits for the file $T_RING_GO (and
 *                                     $T_RING_GO2 if set); phase 2: prof:
 *                                     cuProfilerStart; nvtx: range "step"
 *                                     pushed; fail: a cuDeviceGetCount(NULL)
 *                                     (fails); the threads again on
 *                                     communicators 0xd0000+thread; the range
 *                                     popped, cuProfilerStop; phase 3: ITERS
 *                                     all-reduces of the main thread on
 *                                     0xe0000; "done"
 *   t_ring THREADS ITERS dtor         THREADS threads one after the other, each
 *                                     making a cuDeviceGetCount and another
 *                                     from a thread-specific destructor
 *                                     (a key made after libcutap's: it runs
 *                                     after cutap's own exit destructor);
 *                                     then ITERS cuDeviceGetCount of the
 *                                     main thread; "done"
 * nvtx needs the binary built with NVTX (t_ring_nvtx). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef WITH_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

int cuInit(unsigned flags);
int cuDeviceGetCount(int *n);
int cuProfilerStart(void);
int cuProfilerStop(void);
typedef int (*all_reduce_fn)(const void *, void *, size_t, int, int, void *, void *);
static all_reduce_fn all_reduce;
static int iters;
static uintptr_t comm_base = 0xc0000;

static void *worker(void *arg)
{
    static float buf[256];
    for (int i = 0; i < iters; i++)
        if (all_reduce(buf, buf, 256, 7, 0, (void *)(comm_base + (uintptr_t)arg), NULL))
            return (void *)1;
    int n;
    return cuDeviceGetCount(&n) ? (void *)1 : NULL;
}

static pthread_t th[64];
static int nt, bad;

static int start_workers(void)
{
    for (int t = 0; t < nt; t++)
        if (pthread_create(&th[t], NULL, worker, (void *)(uintptr_t)t))
            return 1;
    return 0;
}

/* joins the workers; says so */
static void *joiner(void *arg)
{
    for (int t = 0; t < nt; t++) {
        void *r;
        pthread_join(th[t], &r);
        bad |= r != NULL;
    }
    printf("%s\n", (const char *)arg);
    fflush(stdout);
    return NULL;
}

static void wait_file(const char *var)
{
    const char *f = getenv(var);
    while (f && *f && access(f, F_OK))
        usleep(10000);
}

static pthread_key_t late_key;
static void late_dtor(void *v)
{
    int n;
    (void)v;
    cuDeviceGetCount(&n);
}
static void *late_worker(void *arg)
{
    int n;
    pthread_setspecific(late_key, (void *)1);
    cuDeviceGetCount(&n);
    return arg;
}

int main(int argc, char **argv)
{
    nt = argc > 1 ? atoi(argv[1]) : 2;
    iters = argc > 2 ? atoi(argv[2]) : 100;
    const char *mode = argc > 3 ? argv[3] : "";
    void *h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    all_reduce = h ? (all_reduce_fn)dlsym(h, "ncclAllReduce") : NULL;
    if (!all_reduce || cuInit(0) || nt < 1 || nt > 1000)
        return 1;
    if (!strcmp(mode, "dtor")) {
        pthread_key_create(&late_key, late_dtor);
        for (int t = 0; t < nt; t++) {
            pthread_t w;
            if (pthread_create(&w, NULL, late_worker, NULL) || pthread_join(w, NULL))
                return 1;
        }
        int n;
        for (int i = 0; i < iters; i++)
            cuDeviceGetCount(&n);
        printf("done\n");
        return 0;
    }
    if (nt > 64)
        return 1;
    if (start_workers())
        return 1;
    pthread_t j;
    int hold = !strcmp(mode, "hold"), phase = !strncmp(mode, "phase", 5);
    if (pthread_create(&j, NULL, joiner, hold ? "workers done" : phase ? "phase1 done" : "workers done"))
        return 1;
    static float buf[256];
    if (hold)
        bad |= all_reduce(buf, buf, 256, 7, 0, (void *)0xb10c, NULL) != 0;
    pthread_join(j, NULL);
    if (phase) {
        wait_file("T_RING_GO");
        wait_file("T_RING_GO2");
        int prof = !!strstr(mode, ",prof"), nv = !!strstr(mode, ",nvtx");
        if (prof)
            bad |= cuProfilerStart() != 0;
#ifdef WITH_NVTX
        if (nv)
            nvtxRangePushA("step");
#else
        if (nv)
            return 3;
#endif
        if (strstr(mode, ",fail"))
            bad |= cuDeviceGetCount(NULL) == 0;   /* must fail */
        comm_base = 0xd0000;
        if (start_workers())
            return 1;
        joiner("phase2 done");
#ifdef WITH_NVTX
        if (nv)
            nvtxRangePop();
#endif
        if (prof)
            bad |= cuProfilerStop() != 0;
        for (int i = 0; i < iters; i++)
            bad |= all_reduce(buf, buf, 256, 7, 0, (void *)0xe0000, NULL) != 0;
    }
    printf("done\n");
    return bad;
}
