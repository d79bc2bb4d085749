/* Drives the apitest plugin and checks what the driver saw; also checks the
 * metadata part of the public API (resolved at run time: libcutap.so is
 * preloaded, this program does not link it). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "cuda_min.h"
#include "cutap.h"
#include "fake/fake_internal.h"

int cuMemGetAttribute(FAKE_UNTYPED_PARAMS);

int main(void)
{
    int bad = 0;
    CUdeviceptr p = 0;
    uint32_t id;
    uint64_t a[16];
    bad += cuMemAlloc_v2(&p, 12345) != 0;
    fake_last(&id, a);
    printf("driver got bytesize %llu\n", (unsigned long long)a[1]);
    bad += a[1] != 54321;

    int n = 0;
    uint64_t before = fake_count_name("cuDeviceGetCount");
    bad += cuDeviceGetCount(&n) != 0 || n != 42;
    printf("cuDeviceGetCount gave %d, driver ran it %llu times\n", n,
           (unsigned long long)(fake_count_name("cuDeviceGetCount") - before));
    bad += fake_count_name("cuDeviceGetCount") != before;
    bad += cuDeviceGetCount(NULL) != CUDA_ERROR_INVALID_VALUE;   /* not skipped: NULL */

    bad += cuProfilerStart() != 0;   /* calls cuDriverGetVersion inside */

    int r = cuMemGetAttribute(0x11, 2, 3, 4, 5, 6, 7, 0x22, 0.5, 0.25);   /* its post makes an untyped call */
    printf("cuMemGetAttribute returned %d\n", r);
    bad += r != (0x11 ^ 0x22);

    uint32_t (*lookup)(const char *) = (uint32_t (*)(const char *))dlsym(RTLD_DEFAULT, "cutap_lookup");
    const char *(*name)(uint32_t) = (const char *(*)(uint32_t))dlsym(RTLD_DEFAULT, "cutap_call_name");
    const cutap_arg_info_t *(*arg)(uint32_t, unsigned) =
        (const cutap_arg_info_t *(*)(uint32_t, unsigned))dlsym(RTLD_DEFAULT, "cutap_call_arg");
    int (*nargs)(uint32_t) = (int (*)(uint32_t))dlsym(RTLD_DEFAULT, "cutap_call_nargs");
    if (!lookup || !name || !arg || !nargs) {
        printf("public API not found\n");
        return 1;
    }
    uint32_t lk = lookup("cuLaunchKernel");
    const cutap_arg_info_t *a9 = arg(lk, 9);
    printf("cuLaunchKernel id ok=%d nargs=%d arg9=%s:%s name=%s unknown=%s\n", lk == CUTAP_ID_cuLaunchKernel,
           nargs(lk), a9 ? a9->name : "?", a9 ? a9->type : "?", name(lk),
           lookup("cuNoSuch") == CUTAP_ID_ALL ? "none" : "?");
    bad += lk != CUTAP_ID_cuLaunchKernel || nargs(lk) != 11 || !a9 || strcmp(a9->name, "kernelParams");
    printf("%s\n", bad ? "FAILED" : "OK");
    return bad != 0;
}
