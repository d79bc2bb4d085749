/* Threads that make the first calls of many functions at once, under
 * trace (issue #27): each function's first call takes the general path,
 * which names it in the file and then hands out its trace fast path; the
 * rest of its calls must take that fast path (CUTAP_DIAG_PATHS counts the
 * others), also when another thread's refresh was under way at that
 * moment (a trylock there once left an id on the general path for good).
 *   t_first_names THREADS
 * Each thread makes the first and second calls of its share of the
 * one-pointer driver getters below, all threads starting together; then
 * the main thread calls each 3 times more. Prints the functions found. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda_min.h"
#include "one_pointer_fns.h"

static one_ptr_fn fns[ONE_PTR_COUNT];
static int nf, nt;
static pthread_barrier_t bar;
static char buf[4096];

static void *run(void *arg)
{
    int k = (int)(long)arg;
    pthread_barrier_wait(&bar);
    for (int i = k; i < nf; i += nt)
        fns[i](buf);
    for (int i = k; i < nf; i += nt)
        fns[i](buf);
    return NULL;
}

int main(int argc, char **argv)
{
    nt = argc > 1 ? atoi(argv[1]) : 8;
    if (nt < 1 || nt > 64)
        return 2;
    for (size_t i = 0; i < ONE_PTR_COUNT; i++)
        if ((fns[nf] = (one_ptr_fn)dlsym(RTLD_DEFAULT, one_ptr_names[i])))
            nf++;
    if (cuInit(0))   /* (called directly: the driver is linked, and found by dlsym) */
        return 1;
    pthread_barrier_init(&bar, NULL, (unsigned)nt);
    pthread_t th[64];
    for (long k = 0; k < nt; k++)
        pthread_create(&th[k], NULL, run, (void *)k);
    for (int k = 0; k < nt; k++)
        pthread_join(th[k], NULL);
    for (int r = 0; r < 3; r++)
        for (int i = 0; i < nf; i++)
            fns[i](buf);
    printf("%d functions\n", nf);
    return 0;
}
