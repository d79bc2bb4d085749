// What a runtime call costs under each way of seeing it, side by side in
// one run (issue #14). Built twice by tests/gpu/build.sh: with the runtime
// linked statically (nvcc's default: the case of cuDNN's, cuBLAS's and
// PyTorch's own copies, which only CUPTI's callbacks see) and with the
// shared libcudart (cutap's symbol wrapper). Times 7 rounds of N calls of
// cudaGetDevice and prints the median ns per call; bench/gpu/rtcall.sh runs
// it bare, under a bare CUPTI subscriber, under `cutap trace` and under
// `cutap trace --runtime=all`, alternating, and prints the table.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <cuda_runtime.h>

static double now_ns()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000;
    int dev = -1;
    if (cudaFree(0) != cudaSuccess || cudaGetDevice(&dev) != cudaSuccess) {
        puts("NOGPU");
        return 0;
    }
    double r[7];
    for (int k = 0; k < 7; k++) {
        double t0 = now_ns();
        for (long i = 0; i < n; i++)
            cudaGetDevice(&dev);
        r[k] = (now_ns() - t0) / n;
    }
    std::sort(r, r + 7);
    printf("%.2f\n", r[3]);
    return 0;
}
