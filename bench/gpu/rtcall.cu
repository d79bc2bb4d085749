// What a runtime call costs under each way of seeing it, side by side in
// one run (issue #14). Built twice by tests/gpu/build.sh: with the runtime
// linked statically (nvcc's default: the case of cuDNN's, cuBLAS's and
// PyTorch's own copies, which only CUPTI's callbacks see) and with the
// shared libcudart (cutap's symbol wrapper). Times 7 batches of N calls of
// cudaGetDevice and prints the best batch's ns per call (issue #27's way:
// the cost without the machine's other work); bench/gpu/rtcall.sh runs
// it bare, under a bare CUPTI subscriber, under `cutap trace` and under
// `cutap trace --runtime=all`, alternating, and prints the table.
//   rtcall [N]          one runtime, as linked
//   rtcall N mixed      (the static build) both in one process, their
//                       batches alternating: its own static copy's
//                       cudaGetDevice and the shared libcudart's (dlopen,
//                       dlsym): "STATIC SHARED", each its best batch; the
//                       two compared under the same conditions (the same
//                       trace file, the same helper thread, the same
//                       interference), which separate processes on a busy
//                       host are not (issue #25's ratio)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <cuda_runtime.h>
#include <dlfcn.h>

static double now_ns()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

typedef cudaError_t (*get_device_fn)(int *);

static double batch(get_device_fn f, long n, int *dev)
{
    double t0 = now_ns();
    for (long i = 0; i < n; i++)
        f(dev);
    return (now_ns() - t0) / n;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000;
    int dev = -1;
    if (cudaFree(0) != cudaSuccess || cudaGetDevice(&dev) != cudaSuccess) {
        puts("NOGPU");
        return 0;
    }
    if (argc > 2 && !strcmp(argv[2], "mixed")) {
        void *h = dlopen("libcudart.so.13", RTLD_NOW | RTLD_LOCAL);
        get_device_fn shared = h ? (get_device_fn)dlsym(h, "cudaGetDevice") : NULL;
        if (!shared || shared(&dev) != cudaSuccess) {
            puts("NOSHARED");
            return 0;
        }
        double s[7], d[7];
        for (int k = 0; k < 7; k++) {
            s[k] = batch(cudaGetDevice, n, &dev);
            d[k] = batch(shared, n, &dev);
        }
        printf("%.2f %.2f\n", *std::min_element(s, s + 7), *std::min_element(d, d + 7));
        return 0;
    }
    double r[7];
    for (int k = 0; k < 7; k++)
        r[k] = batch(cudaGetDevice, n, &dev);
    printf("%.2f\n", *std::min_element(r, r + 7));
    return 0;
}
