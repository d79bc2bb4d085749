/* Fault injection's workload (issue #17): prints, one line per call, what
 * each call returned, so that a test sees exactly which calls an injected
 * fault hit and that the real function was not reached (the fake driver
 * hands out device pointers in sequence: a call not made takes none).
 *   t_inject alloc N         N cuMemAlloc_v2 of 1 MiB: "alloc K = RESULT PTR"
 *   t_inject threads T N     T threads, N cuCtxGetDevice each; prints the
 *                            failures' count "failed F of T*N"
 *   t_inject nccl N          N ncclAllReduce of the fake NCCL: "nccl K = RESULT"
 *   t_inject fork N          alloc N in a child, then in the parent */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int cuInit(unsigned flags);
int cuMemAlloc_v2(unsigned long long *dptr, size_t bytes);
int cuCtxGetDevice(int *dev);

static int n;
static atomic_int failed;

static void allocs(const char *who)
{
    for (int k = 1; k <= n; k++) {
        unsigned long long p = 0;
        int r = cuMemAlloc_v2(&p, 1 << 20);
        printf("%salloc %d = %d 0x%llx\n", who, k, r, p);
    }
    fflush(stdout);
}

static void *worker(void *arg)
{
    (void)arg;
    for (int k = 0; k < n; k++) {
        int d;
        if (cuCtxGetDevice(&d))
            atomic_fetch_add(&failed, 1);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 3 || cuInit(0))
        return 1;
    const char *mode = argv[1];
    if (!strcmp(mode, "alloc")) {
        n = atoi(argv[2]);
        allocs("");
    } else if (!strcmp(mode, "threads") && argc > 3) {
        int t = atoi(argv[2]);
        n = atoi(argv[3]);
        pthread_t th[64];
        for (int i = 0; i < t && i < 64; i++)
            pthread_create(&th[i], NULL, worker, NULL);
        for (int i = 0; i < t && i < 64; i++)
            pthread_join(th[i], NULL);
        printf("failed %d of %d\n", atomic_load(&failed), t * n);
    } else if (!strcmp(mode, "nccl")) {
        n = atoi(argv[2]);
        void *h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
        int (*ar)(const void *, void *, size_t, int, int, void *, void *) =
            h ? (int (*)(const void *, void *, size_t, int, int, void *, void *))dlsym(h, "ncclAllReduce") : NULL;
        if (!ar)
            return 1;
        static float buf[16];
        for (int k = 1; k <= n; k++)
            printf("nccl %d = %d\n", k, ar(buf, buf, 16, 7, 0, (void *)0xc0117, NULL));
    } else if (!strcmp(mode, "fork")) {
        n = atoi(argv[2]);
        pid_t c = fork();
        if (c == 0) {
            allocs("child ");
            _exit(0);
        }
        waitpid(c, NULL, 0);
        allocs("parent ");
    } else
        return 2;
    return 0;
}
