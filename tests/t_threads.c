/* First calls from 16 threads at once (the driver is resolved under the
 * race), then many calls from each. Every call must run in the driver once
 * and return the right value. Prints "CALL name" lines like t_paths. */
#include <pthread.h>
#include <stdio.h>

#include "cuda_min.h"
#include "fake/fake_internal.h"

#define THREADS 16
#define ROUNDS 500
static pthread_barrier_t start;
static int bad[THREADS];

static void *worker(void *arg)
{
    int k = (int)(intptr_t)arg;
    pthread_barrier_wait(&start);
    for (int i = 0; i < ROUNDS; i++) {
        CUcontext c = NULL;
        int v = 0;
        CUdeviceptr p = 0;
        bad[k] += cuCtxGetCurrent(&c) != 0 || c != (CUcontext)0xc0ffee00;
        bad[k] += cuDriverGetVersion(&v) != 0 || v != 13000;
        bad[k] += cuMemAlloc_v2(&p, 64) != 0 || !p;
    }
    return NULL;
}

int main(void)
{
    pthread_t t[THREADS];
    pthread_barrier_init(&start, NULL, THREADS);
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    int total = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        total += bad[i];
    }
    uint64_t want = THREADS * ROUNDS;
    int ran = fake_count_name("cuCtxGetCurrent") == want && fake_count_name("cuDriverGetVersion") == want &&
              fake_count_name("cuMemAlloc_v2") == want;
    printf("threads: %d bad results, driver counts %s\n", total, ran ? "exact" : "WRONG");
    for (uint64_t i = 0; i < want; i++)
        printf("CALL cuCtxGetCurrent\nCALL cuDriverGetVersion\nCALL cuMemAlloc_v2\n");
    return total || !ran;
}
