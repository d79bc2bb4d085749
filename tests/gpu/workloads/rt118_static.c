/* A program with CUDA 11.8's runtime linked statically (issue #25: a
 * runtime copy of another major), no kernels: runtime calls only. Built on
 * the development machine, where Debian's nvidia-cuda-dev (bookworm
 * non-free) gives CUDA 11.8's headers and libcudart_static.a, and carried
 * to the device machine (which has CUDA 13 only):
 *   gcc -O2 tests/gpu/workloads/rt118_static.c -o build/rt118_static \
 *       /usr/lib/x86_64-linux-gnu/libcudart_static.a -ldl -lpthread -lrt
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
