/* A shared "libcudart.so.13" whose functions also report to CUPTI, as the
 * real shared runtime does: under `cutap trace --runtime=cupti` each call
 * reaches cutap twice (our cudaMalloc wrapper, then CUPTI's callback from
 * inside the real one) and must be recorded once (src/resolve/cupti_rt.c).
 * Reports go to the fake libcupti's test hook (tests/fake/fake_cupti.c).
 * The caller initialises the driver. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "cuda_min.h"

#define EXPORT __attribute__((visibility("default")))

typedef int (*hook_fn)(int site, uint32_t cbid, const char *name, const void *params, void *ret, uint64_t *corr);
static _Atomic int delivered;   /* threads call in at once (t_rt_mix) */

#ifdef VIA_TOOLS_HOOK
/* Built as build/tests/cudart_hook/libcudart.so.13: reports through the
 * driver's tools hook, as the real runtime does (tests/rt_copy.h). */
#include "rt_copy.h"
static hook_fn hook(void) { return rt_copy_report; }
#else
static hook_fn hook(void)
{
    void *lib = dlopen("libcupti.so.13", RTLD_NOW | RTLD_NOLOAD);   /* loaded by a tool, or not at all */
    hook_fn h = lib ? (hook_fn)dlsym(lib, "fake_cupti_runtime_api") : NULL;
    if (lib)
        dlclose(lib);
    return h;
}
#endif

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
