/* How libcuda maps and unmaps the device files (issue #32, mappings): the
 * mappings of /dev/nvidia* in /proc/self/maps after each step of a
 * driver-API program that allocates and frees every kind of memory
 * (device, pinned host, registered host, managed, a memory pool, a second
 * context) and ends with the contexts destroyed. Prints one line per
 * step to stderr (counts and bytes per device file); stdout is the
 * program's result, deterministic. Run bare and under `cutap trace`: the
 * trace's mmap/munmap/mremap records should explain every change. */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(call)                                                               \
    do {                                                                       \
        CUresult r_ = (call);                                                  \
        if (r_ != CUDA_SUCCESS) {                                              \
            printf("CUDA error %d at line %d: %s\n", (int)r_, __LINE__, #call); \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

static void maps(const char *step)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512], names[8][64];
    unsigned long n[8] = {0}, bytes[8] = {0};
    int k = 0;
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        unsigned long a, b;
        char *p = strstr(line, "/dev/nvidia");
        if (!p || sscanf(line, "%lx-%lx", &a, &b) != 2)
            continue;
        p[strcspn(p, " \n")] = 0;
        int i = 0;
        while (i < k && strcmp(names[i], p + 5))
            i++;
        if (i == k && k < 8)
            snprintf(names[k++], sizeof names[0], "%s", p + 5);
        if (i < k)
            n[i]++, bytes[i] += b - a;
    }
    fclose(f);
    fprintf(stderr, "maps_probe %-22s", step);
    for (int i = 0; i < k; i++)
        fprintf(stderr, " %s:%lu/%luK", names[i], n[i], bytes[i] >> 10);
    fputc('\n', stderr);
}

int main(void)
{
    CUdevice dev;
    CUcontext ctx, ctx2;
    CUdeviceptr d, m, p;
    void *h, *reg;
    CUstream s;
    maps("start");
    CK(cuInit(0));
    maps("cuInit");
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    maps("primary context");
    CK(cuMemAlloc(&d, 64 << 20));
    maps("cuMemAlloc 64M");
    CK(cuMemHostAlloc(&h, 8 << 20, CU_MEMHOSTALLOC_DEVICEMAP));
    maps("cuMemHostAlloc 8M");
    reg = aligned_alloc(4096, 4 << 20);
    CK(cuMemHostRegister(reg, 4 << 20, 0));
    maps("cuMemHostRegister 4M");
    CK(cuMemAllocManaged(&m, 16 << 20, CU_MEM_ATTACH_GLOBAL));
    CK(cuMemsetD8(m, 1, 16 << 20));
    maps("cuMemAllocManaged 16M");
    CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CK(cuMemAllocAsync(&p, 32 << 20, s));
    CK(cuMemsetD8Async(p, 2, 32 << 20, s));
    CK(cuStreamSynchronize(s));
    maps("cuMemAllocAsync 32M");
    CK(cuMemFreeAsync(p, s));
    CK(cuStreamSynchronize(s));
    CK(cuStreamDestroy(s));
    CK(cuMemFree(m));
    CK(cuMemHostUnregister(reg));
    free(reg);
    CK(cuMemFreeHost(h));
    CK(cuMemFree(d));
    maps("all freed");
    CK(cuCtxCreate(&ctx2, NULL, 0, dev));
    maps("second context");
    CK(cuCtxDestroy(ctx2));
    maps("second destroyed");
    CK(cuCtxSetCurrent(ctx));
    CK(cuDevicePrimaryCtxRelease(dev));
    CK(cuDevicePrimaryCtxReset(dev));
    maps("primary reset");
    printf("maps_probe done\n");
    return 0;
}
