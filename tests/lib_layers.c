/* Minimal stand-ins for the runtime and two libraries, so the command's
 * handling of the layers above the driver can be tested without CUDA:
 * built three times (tests/tests.mk), as libcudart.so.13 (-DLAYER_RUNTIME),
 * libcublas.so.13 (-DLAYER_CUBLAS) and libnccl.so.2 (-DLAYER_NCCL), the
 * sonames cutap takes each layer's real functions from. The signatures are
 * the headers' with ABI types (enums as int). Every driver call made
 * inside is printed as "CALL name", like the test programs do. */
#include <stdint.h>
#include <stdio.h>

#include "cuda_min.h"

#define EXPORT __attribute__((visibility("default")))

#ifdef LAYER_RUNTIME
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n);

/* cudaError_t values of driver_types.h */
enum { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2 };
/* One size fails the way cudart fails when the device is full, without
 * asking the driver. */
#define RT_TOO_BIG (1ull << 40)

EXPORT int cudaMalloc(void **devPtr, size_t size)
{
    if (size == RT_TOO_BIG)
        return cudaErrorMemoryAllocation;
    puts("CALL cuMemAlloc_v2");
    return cuMemAlloc_v2((CUdeviceptr *)devPtr, size) ? cudaErrorInvalidValue : cudaSuccess;
}

/* kind 1: cudaMemcpyHostToDevice, the only one this stand-in does */
EXPORT int cudaMemcpy(void *dst, const void *src, size_t count, int kind)
{
    if (kind != 1)
        return cudaErrorInvalidValue;
    puts("CALL cuMemcpyHtoD_v2");
    return cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)dst, src, count) ? cudaErrorInvalidValue : cudaSuccess;
}

/* A pointer result: no status, never an error. */
EXPORT const char *cudaGetErrorString(int error)
{
    return error == cudaSuccess ? "no error" : error == cudaErrorMemoryAllocation ? "out of memory" : "invalid argument";
}
#endif

#ifdef LAYER_CUBLAS
/* cublasStatus_t: CUBLAS_STATUS_SUCCESS 0, CUBLAS_STATUS_INVALID_VALUE 7 */
EXPORT int cublasGemmEx(void *handle, int transa, int transb, int m, int n, int k, const void *alpha, const void *A,
                        int Atype, int lda, const void *B, int Btype, int ldb, const void *beta, void *C, int Ctype,
                        int ldc, int computeType, int algo)
{
    (void)handle, (void)transa, (void)transb, (void)n, (void)k, (void)alpha, (void)A, (void)Atype, (void)lda;
    (void)B, (void)Btype, (void)ldb, (void)beta, (void)C, (void)Ctype, (void)ldc, (void)computeType, (void)algo;
    return m < 0 ? 7 : 0;
}
#endif

#ifdef LAYER_NCCL
/* ncclResult_t: ncclSuccess 0 */
EXPORT int ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count, int datatype, int op, void *comm,
                         void *stream)
{
    (void)sendbuff, (void)recvbuff, (void)count, (void)datatype, (void)op, (void)comm, (void)stream;
    return 0;
}
#endif
