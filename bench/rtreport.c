/* A runtime copy's reports, counted (issue #25): N calls of cudaGetDevice
 * made the way a statically linked runtime makes them (tests/rt_copy.h:
 * its entry and exit reported through TOOLS_RUNTIME_CALLBACK_HOOKS where
 * the word is set, the driver's cuCtxGetDevice in between), on the fake
 * driver. bench/instructions.sh runs it under callgrind for N and 2N calls
 * in each mode: the instructions one reported call adds.
 *   rtreport N */
#include <stdio.h>
#include <stdlib.h>

#include "../tests/rt_copy.h"

CUresult cuCtxGetDevice(int *dev);

struct get_device_params { int *device; };

static __attribute__((noinline)) int rt_get_device(int *dev)
{
    struct get_device_params p = {dev};
    int ret = 0;
    rt_copy_report(0, 17, "cudaGetDevice", &p, &ret, NULL);
    ret = cuCtxGetDevice(dev);
    rt_copy_report(1, 17, "cudaGetDevice", &p, &ret, NULL);
    return ret;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    int dev = -1, bad = 0;
    if (cuInit(0))
        return 1;
    for (long i = 0; i < n; i++)
        bad += rt_get_device(&dev) != 0;
    printf("%ld calls, %d failed\n", n, bad);
    return 0;
}
