/* Calls the runtime and library stand-ins of tests/lib_layers.c (linked
 * against them, as an nvcc program with -cudart shared is): prints
 * "CALL name" for each call it makes, the runtime's driver calls are
 * printed by the stand-ins. Results on stderr: "FAIL ..." when one is not
 * what the stand-in returns. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cudaMalloc(void **devPtr, size_t size);
int cudaMemcpy(void *dst, const void *src, size_t count, int kind);
const char *cudaGetErrorString(int error);
int cublasGemmEx(void *handle, int transa, int transb, int m, int n, int k, const void *alpha, const void *A,
                 int Atype, int lda, const void *B, int Btype, int ldb, const void *beta, void *C, int Ctype, int ldc,
                 int computeType, int algo);
int ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count, int datatype, int op, void *comm, void *stream);

static int bad;
static void check(const char *what, long got, long want)
{
    if (got != want) {
        fprintf(stderr, "FAIL %s: %ld, want %ld\n", what, got, want);
        bad = 1;
    }
}

int main(void)
{
    static char host[4096];
    void *dev = NULL, *none = NULL;
    puts("CALL cudaMalloc");
    check("cudaMalloc", cudaMalloc(&dev, 4096), 0);
    puts("CALL cudaMemcpy");
    check("cudaMemcpy", cudaMemcpy(dev, host, sizeof host, 1 /* cudaMemcpyHostToDevice */), 0);
    puts("CALL cudaMalloc");
    check("cudaMalloc too big", cudaMalloc(&none, 1ull << 40), 2 /* cudaErrorMemoryAllocation */);
    puts("CALL cudaGetErrorString");
    check("cudaGetErrorString", strcmp(cudaGetErrorString(2), "out of memory"), 0);
    float alpha = 1, beta = 0;
    /* CUBLAS_OP_N, CUBLAS_OP_T, CUDA_R_16F (2), CUDA_R_32F (0),
     * CUBLAS_COMPUTE_32F (68), CUBLAS_GEMM_DEFAULT (-1) */
    puts("CALL cublasGemmEx");
    check("cublasGemmEx", cublasGemmEx((void *)0x1234, 0, 1, 64, 32, 16, &alpha, dev, 2, 64, dev, 2, 32, &beta, dev, 0,
                                       64, 68, -1), 0);
    puts("CALL cublasGemmEx");
    check("cublasGemmEx m<0", cublasGemmEx((void *)0x1234, 0, 0, -1, 1, 1, &alpha, dev, 0, 1, dev, 0, 1, &beta, dev, 0,
                                           1, 68, -1), 7 /* CUBLAS_STATUS_INVALID_VALUE */);
    /* ncclFloat32 (7), ncclSum (0) */
    puts("CALL ncclAllReduce");
    check("ncclAllReduce", ncclAllReduce(dev, dev, 1024, 7, 0, (void *)0x5678, NULL), 0);
    return bad;
}
