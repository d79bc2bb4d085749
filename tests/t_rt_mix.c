/* A program using a shared libcudart (tests/lib_cudart_cupti.c built with
 * VIA_TOOLS_HOOK) and a library with its own static runtime copy
 * (tests/lib_dnn_static_rt.c), both reporting their calls to CUPTI
 * through the driver's tools hook, from T threads at once:
 *   t_rt_mix T N: cuInit, then in each thread N rounds of
 *     cudaMalloc (shared: our wrapper; its CUPTI report must be dropped)
 *     fakednnRun(1) (the library's copy: recorded from CUPTI only)
 * each cudaMalloc making one cuMemAlloc_v2. Prints "CALLS cudaMalloc X"
 * and "CALLS cuMemAlloc_v2 X" with X = 2 T N. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda_min.h"

int cudaMalloc(void **ptr, size_t size);
int fakednnRun(int n);

static long rounds;
static void *worker(void *arg)
{
    (void)arg;
    long bad = 0;
    for (long i = 0; i < rounds; i++) {
        void *q = NULL;
        bad += cudaMalloc(&q, 64) != 0;
        bad += fakednnRun(1);
    }
    return (void *)bad;
}

int main(int argc, char **argv)
{
    int t = argc > 1 ? atoi(argv[1]) : 4;
    rounds = argc > 2 ? atol(argv[2]) : 10;
    if (t < 1 || t > 64 || rounds < 1)
        return 2;
    if (cuInit(0) != CUDA_SUCCESS)
        return 1;
    pthread_t th[64];
    long bad = 0;
    for (int i = 0; i < t; i++)
        if (pthread_create(&th[i], NULL, worker, NULL))
            return 1;
    for (int i = 0; i < t; i++) {
        void *r;
        pthread_join(th[i], &r);
        bad += (long)r;
    }
    printf("CALLS cudaMalloc %ld\nCALLS cuMemAlloc_v2 %ld\n", 2 * t * rounds, 2 * t * rounds);
    return bad != 0;
}
