/* Calls a shared libcudart (tests/lib_cudart_cupti.c) that also reports
 * to CUPTI, from inside a runtime function of its own that reports to CUPTI
 * too, as a static cudart would (one process holding both):
 *
 *   cuInit; cudaMemset (static: reported to CUPTI only) {
 *       cudaMalloc (shared: our wrapper, then CUPTI) { cuMemAlloc_v2 }
 *       cuMemsetD8_v2 }
 *   then N-1 more cudaMalloc (shared)
 *
 * The shared library is adopted as the runtime layer during that first
 * cudaMalloc; from then on cutap ignores CUPTI's reports. Each call must be
 * recorded once, the static cudaMemset (entered before the adoption)
 * included, with everything nested as made. stdout: CALL lines; stderr:
 * how many cudaMalloc entries a CUPTI subscriber got. Each copy asks for
 * TOOLS_RUNTIME_CALLBACK_HOOKS and TOOLS_TLS once (CALL cuGetExportTable). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda_min.h"
#include "rt_copy.h"

CUresult cuMemsetD8_v2(CUdeviceptr p, unsigned char v, size_t n);
int cudaMalloc(void **ptr, size_t size);
int lib_cudart_cupti_delivered(void);

static void report(int site, const void *params, int *ret, uint64_t *corr)
{
    rt_copy_report(site, 49, "cudaMemset", params, ret, corr);
}

static int static_cudaMemset(void *ptr, int value, size_t count)
{
    struct { void *devPtr; int value; size_t count; } p = {ptr, value, count};   /* cudaMemset_v3020_params */
    uint64_t corr = 0;
    report(0, &p, NULL, &corr);
    printf("CALL cuGetExportTable\nCALL cuGetExportTable\n");   /* this copy's requests for its two tables */
    void *q = NULL;
    int r = cudaMalloc(&q, 256);
    printf("CALL cudaMalloc\nCALL cuGetExportTable\nCALL cuGetExportTable\nCALL cuMemAlloc_v2\n");   /* the shared copy's */
    r |= cuMemsetD8_v2((CUdeviceptr)(uintptr_t)ptr, (unsigned char)value, count) != CUDA_SUCCESS;
    printf("CALL cuMemsetD8_v2\nCALL cudaMemset\n");
    report(1, &p, &r, &corr);
    return r;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10, bad = cuInit(0) != CUDA_SUCCESS;
    printf("CALL cuInit\n");
    bad += static_cudaMemset((void *)0x7f0000000000, 0, 256);
    for (int i = 1; i < n; i++) {
        void *p = NULL;
        bad += cudaMalloc(&p, 256) != 0;
        printf("CALL cudaMalloc\nCALL cuMemAlloc_v2\n");
    }
    fprintf(stderr, "delivered %d\n", lib_cudart_cupti_delivered());
    return bad;
}
