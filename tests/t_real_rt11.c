/* The real CUDA 11.8 runtime (Debian bookworm's libcudart.so.11.0, opened
 * with dlopen; the case skips where the machine has none) on the fake
 * driver (issue #28): it starts (cuGetProcAddress, cuInit, its export
 * tables) and then fails to initialise (cudaErrorInitializationError: the
 * fake is no GPU), so every call returns early, having read none of its
 * pointers. What is checked is cutap's side: calls of 11.8's own
 * signature typed with it, 13.0's unchanged ones typed as generated, and
 * one that 13.0 dropped intercepted and typed.
 *
 * Announces each call on stderr as tests/lib/older_typed.py reads it
 * ("TYPED NAME N WORDS PARAMS") and prints "CALL NAME" and "NAME = STATUS"
 * on stdout. Exit 77 without a libcudart.so.11.0. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned char buf[4096] __attribute__((aligned(4096)));
#define P(i) ((void *)(buf + 64 * (i)))
#define W(i) ((unsigned long long)(uintptr_t)P(i))

static void *h;
static void *sym(const char *n)
{
    void *f = dlsym(h, n);
    if (!f) {
        printf("no %s in libcudart.so.11.0\n", n);
        exit(1);
    }
    return f;
}

#define CALL(n, expr)                                                        \
    do {                                                                     \
        printf("CALL %s\n", n);                                              \
        fflush(stdout);                                                      \
        int r_ = (expr);                                                     \
        printf("%s = %d\n", n, r_);                                          \
    } while (0)

int main(void)
{
    if (!(h = dlopen("libcudart.so.11.0", RTLD_NOW | RTLD_LOCAL))) {
        printf("no libcudart.so.11.0: %s\n", dlerror());
        return 77;
    }
    int (*rv)(int *) = sym("cudaRuntimeGetVersion");
    int (*dv)(int *) = sym("cudaDriverGetVersion");
    int (*gc)(int *) = sym("cudaGetDeviceCount");
    int (*ma)(void **, size_t) = sym("cudaMalloc");
    /* 11.8's: (cudaGraphExec_t *, cudaGraph_t, cudaGraphNode_t *, char *,
     * size_t); 13.0's takes (cudaGraphExec_t *, cudaGraph_t, unsigned long
     * long) */
    int (*gi)(void *, void *, void *, void *, size_t) = sym("cudaGraphInstantiate");
    /* 11.8's: (const void *, size_t, int dstDevice, cudaStream_t); 13.0's
     * passes a struct cudaMemLocation by value and flags */
    int (*pf)(void *, size_t, int, void *) = sym("cudaMemPrefetchAsync");
    /* 11.8's, dropped by 12.0 */
    int (*ts)(void) = sym("cudaThreadSynchronize");

    int v = -1;
    fprintf(stderr, "TYPED cudaRuntimeGetVersion 1 %llx runtimeVersion\n", W(0));
    CALL("cudaRuntimeGetVersion", rv(P(0)));
    fprintf(stderr, "TYPED cudaDriverGetVersion 1 - driverVersion\n");
    CALL("cudaDriverGetVersion", dv(&v));
    fprintf(stderr, "TYPED cudaGetDeviceCount 1 %llx count\n", W(1));
    CALL("cudaGetDeviceCount", gc(P(1)));
    fprintf(stderr, "TYPED cudaMalloc 2 %llx 100 devPtr,size\n", W(2));
    CALL("cudaMalloc", ma(P(2), 256));
    fprintf(stderr, "TYPED cudaGraphInstantiate 5 %llx %llx %llx %llx 40 pGraphExec,graph,pErrorNode,pLogBuffer,bufferSize\n",
            W(3), W(4), W(5), W(6));
    CALL("cudaGraphInstantiate", gi(P(3), P(4), P(5), P(6), 64));
    fprintf(stderr, "TYPED cudaMemPrefetchAsync 4 %llx 1000 3 %llx devPtr,count,dstDevice,stream\n", W(7), W(8));
    CALL("cudaMemPrefetchAsync", pf(P(7), 4096, 3, P(8)));
    fprintf(stderr, "TYPED cudaThreadSynchronize 0 -\n");
    CALL("cudaThreadSynchronize", ts());
    printf("done\n");
    return 0;
}
