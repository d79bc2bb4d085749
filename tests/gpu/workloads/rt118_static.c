/* A program with an older major's runtime (issue #25: runtime copies of
 * other majors), no kernels: runtime calls only. Built on the development
 * machine and carried to the device machine (which has CUDA 13 only) as
 * build/rtold/ by tests/gpu/workloads/build_rtold.sh: CUDA 11.8 from
 * Debian bookworm's nvidia-cuda-dev, 12.4 from trixie's (unpacked, not
 * installed), each linked statically and against its shared libcudart.
 * Prints the runtime's version, the device, then OK; NOGPU without one. */
#include <stdio.h>
#include <cuda_runtime_api.h>
int main(void)
{
    int n = 0, v = 0, d = -1;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) { printf("NOGPU\n"); return 0; }
    cudaRuntimeGetVersion(&v);
    cudaSetDevice(0);
    cudaGetDevice(&d);
    void *p = NULL;
    cudaStream_t s;
    cudaStreamCreate(&s);
    for (int i = 0; i < 10; i++) {
        cudaMalloc(&p, 1 << 20);
        cudaMemsetAsync(p, 1, 1 << 20, s);
        cudaStreamSynchronize(s);
        cudaFree(p);
    }
    cudaStreamDestroy(s);
    cudaDeviceSynchronize();
    printf("runtime %d device %d OK\n", v, d);
    return 0;
}
