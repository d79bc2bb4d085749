/* A shared "libcudart.so.13" whose functions also report to CUPTI, as the
 * real shared runtime does: under `cutap trace --runtime=cupti` each call
 * reaches cutap twice (our cudaMalloc wrapper, then CUPTI's callback from
 * inside the real one) and must be recorded once (src/resolve/cupti_rt.c).
 * Reports go through the driver's tools hook (tests/rt_copy.h). The
 * caller initialises the driver. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "cuda_min.h"

#define EXPORT __attribute__((visibility("default")))

typedef int (*hook_fn)(int site, uint32_t cbid, const char *name, const void *params, void *ret, uint64_t *corr);
static _Atomic int delivered;   /* threads call in at once (t_rt_mix) */

/* Reports through the driver's tools hook, as the real runtime does
 * (tests/rt_copy.h); built twice (build/tests/cudart and cudart_hook):
 * the same library. */
#include "rt_copy.h"
static hook_fn hook(void) { return rt_copy_report; }

EXPORT int cudaMalloc(void **ptr, size_t size)
{
    struct { void **devPtr; size_t size; } p = {ptr, size};   /* cudaMalloc_v3020_params */
    uint64_t corr = 0;
    hook_fn h = hook();
    delivered += h && h(0, 20, "cudaMalloc", &p, NULL, &corr);
    int r = cuMemAlloc_v2((CUdeviceptr *)ptr, size) == CUDA_SUCCESS ? 0 : 1;
    if ((h = hook()))
        h(1, 20, "cudaMalloc", &p, &r, &corr);
    return r;
}

/* How many entries a CUPTI subscriber got. */
EXPORT int lib_cudart_cupti_delivered(void) { return delivered; }
