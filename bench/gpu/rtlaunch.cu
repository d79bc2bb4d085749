// What a runtime kernel launch costs the launching thread (issue #31):
// batches of 1,000 launches of an empty kernel through the runtime
// (<<<>>>: cudaLaunchKernel), the thread's CPU time of each batch's
// launches (the synchronisation after each batch left out), best of 7
// batches of 20 (N launches in all, default 140,000); prints
// "rtlaunch <thread CPU ns a launch> <wall ns a launch>". Run by
// bench/gpu/rtlaunch.sh bare and under the ways of collecting GPU
// activity, alternating.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <cuda_runtime.h>

__global__ void empty() {}

static double ns(clockid_t c)
{
    timespec t;
    clock_gettime(c, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv)
{
    long per = 1000, batches = 20;
    if (argc > 1)
        batches = atol(argv[1]) / (7 * per) > 0 ? atol(argv[1]) / (7 * per) : 1;
    if (cudaFree(0) != cudaSuccess) {
        puts("NOGPU");
        return 0;
    }
    for (int i = 0; i < 2000; i++)
        empty<<<1, 32>>>();
    cudaDeviceSynchronize();
    double cpu[7], wall[7];
    for (int k = 0; k < 7; k++) {
        double c = 0, w = 0;
        for (long b = 0; b < batches; b++) {
            double c0 = ns(CLOCK_THREAD_CPUTIME_ID), w0 = ns(CLOCK_MONOTONIC);
            for (long i = 0; i < per; i++)
                empty<<<1, 32>>>();
            c += ns(CLOCK_THREAD_CPUTIME_ID) - c0;
            w += ns(CLOCK_MONOTONIC) - w0;
            cudaDeviceSynchronize();
        }
        cpu[k] = c / (batches * per);
        wall[k] = w / (batches * per);
    }
    if (cudaGetLastError() != cudaSuccess) {
        puts("FAILED");
        return 1;
    }
    printf("rtlaunch %.1f %.1f\n", *std::min_element(cpu, cpu + 7), *std::min_element(wall, wall + 7));
    return 0;
}
