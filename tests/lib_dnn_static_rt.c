/* "libfakednn.so": a library carrying its own copy of the runtime linked
 * statically, as cuDNN, cuBLAS, NCCL and PyTorch's libraries do. Its
 * runtime functions are internal (no symbol of ours can stand in for
 * them) and report each call to CUPTI through the driver's tools hook, as
 * the real runtime does (tests/rt_copy.h): under `cutap trace
 * --runtime=cupti` they are recorded from CUPTI's reports, even when the
 * program also uses a shared libcudart, whose own reports are dropped
 * (src/resolve/cupti_rt.c).
 *   int fakednnRun(int n): n calls of its own cudaMalloc, each making a
 *   cuMemAlloc_v2; returns the number that failed. */
#include <stddef.h>
#include <stdint.h>

#include "rt_copy.h"

#define EXPORT __attribute__((visibility("default")))

static int copy_cudaMalloc(void **ptr, size_t size)
{
    struct { void **devPtr; size_t size; } p = {ptr, size};   /* cudaMalloc_v3020_params */
    uint64_t corr = 0;
    rt_copy_report(0, 20, "cudaMalloc", &p, NULL, &corr);
    int r = cuMemAlloc_v2((CUdeviceptr *)ptr, size) == CUDA_SUCCESS ? 0 : 2 /* cudaErrorMemoryAllocation */;
    rt_copy_report(1, 20, "cudaMalloc", &p, &r, &corr);
    return r;
}

EXPORT int fakednnRun(int n)
{
    int bad = 0;
    for (int i = 0; i < n; i++) {
        void *q = NULL;
        bad += copy_cudaMalloc(&q, 256) != 0;
    }
    return bad;
}
