// GPU activity of known shape (issue #31, tests/gpu/gpu_activity.sh): with
// N (default 50) rounds it makes, in order, per round:
//   scale<<<>>> (runtime launch)            1 kernel "scale"
//   cuLaunchKernel(add_one)                 1 kernel "add_one" (driver launch)
//   cudaMemcpyAsync HtoD, DtoD, DtoH        3 copies
//   cudaMemsetAsync                         1 memset
//   cudaGraphLaunch of a captured graph     2 kernels "scale", 1 kernel "add_one", 1 memset
// and prints "expect kernels scale=3N add_one=2N memcpy=3N memset=2N".
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

__global__ void scale(float *x, int n, float a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= a;
}
__global__ void add_one(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] += 1.0f;
}

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 50, n = 1 << 16;
    float *d, *e, *h;
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    CK(cudaMalloc(&d, n * sizeof(float)));
    CK(cudaMalloc(&e, n * sizeof(float)));
    CK(cudaMallocHost(&h, n * sizeof(float)));
    for (int i = 0; i < n; i++)
        h[i] = 1.0f;
    cudaFunction_t fn;
    CK(cudaGetFuncBySymbol(&fn, (const void *)add_one));
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    scale<<<n / 256, 256, 0, s>>>(e, n, 0.5f);
    add_one<<<n / 256, 256, 0, s>>>(e, n);
    CK(cudaMemsetAsync(e, 0, 1024, s));
    scale<<<n / 256, 256, 0, s>>>(e, n, 2.0f);
    CK(cudaStreamEndCapture(s, &g));
#if CUDART_VERSION >= 12000
    CK(cudaGraphInstantiate(&ge, g, 0));
#else   /* CUDA 11.8 (tests/gpu/older_cupti.sh) */
    CK(cudaGraphInstantiate(&ge, g, NULL, NULL, 0));
#endif
    for (int r = 0; r < rounds; r++) {
        CK(cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s));
        scale<<<n / 256, 256, 0, s>>>(d, n, 1.5f);
        void *args[] = {&d, &n};
        if (cuLaunchKernel((CUfunction)fn, n / 256, 1, 1, 256, 1, 1, 0, (CUstream)s, args, NULL) != CUDA_SUCCESS) {
            fprintf(stderr, "cuLaunchKernel failed\n");
            return 1;
        }
        CK(cudaMemcpyAsync(e, d, n * sizeof(float), cudaMemcpyDeviceToDevice, s));
        CK(cudaMemsetAsync(d, 0, n * sizeof(float), s));
        CK(cudaGraphLaunch(ge, s));
        CK(cudaMemcpyAsync(h, e, n * sizeof(float), cudaMemcpyDeviceToHost, s));
    }
    CK(cudaStreamSynchronize(s));
    printf("expect kernels scale=%d add_one=%d memcpy=%d memset=%d\n", 3 * rounds, 2 * rounds, 3 * rounds, 2 * rounds);
    return 0;
}
