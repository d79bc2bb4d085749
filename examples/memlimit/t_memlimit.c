/* Tests of the memlimit example plugin on the fake driver
 * (tests/cases/api/example_memlimit*.sh):
 *   t_memlimit            with a cap of 10000 bytes: two 4096-byte
 *                         cuMemAlloc_v2 fit, the third does not (and never
 *                         reaches the driver), after a free it fits again
 *   t_memlimit paths      caps 0:10000,1:20000: every allocation path on
 *                         device 0, cuMemCreate on device 1, frees and
 *                         releases giving bytes back, cuMemGetInfo and
 *                         NVML's memory info reporting the cap
 *   t_memlimit hold N     allocates N bytes, prints "held", then waits
 *                         until stdin closes, frees and exits
 *   t_memlimit try N      allocates N bytes: prints the result
 * The fake driver writes no output of most calls: the test sets the
 * pointers and handles it expects before each call. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_min.h"
#include "fake/fake_internal.h"

typedef int (*alloc3_fn)(CUdeviceptr *, size_t, uint64_t);
typedef int (*pool_fn)(CUdeviceptr *, size_t, void *, void *);
typedef int (*pitch_fn)(CUdeviceptr *, size_t *, size_t, size_t, unsigned);
typedef int (*create_fn)(uint64_t *, size_t, const void *, unsigned long long);
typedef int (*release_fn)(uint64_t);
typedef int (*info_fn)(size_t *, size_t *);
typedef int (*free_async_fn)(CUdeviceptr, void *);
typedef unsigned (*nvml_handle_fn)(unsigned, void **);
typedef unsigned (*nvml_info_fn)(void *, void *);

static void *sym(const char *name)
{
    void *f = dlsym(RTLD_DEFAULT, name);
    if (!f) {
        printf("no %s\n", name);
        exit(2);
    }
    return f;
}

static int bad;
static void expect(const char *what, long long got, long long want)
{
    if (got != want) {
        printf("%s: %lld, expected %lld\n", what, got, want);
        bad = 1;
    }
}

static int paths(void)
{
    CUdeviceptr a = 0, b = 0x2000, m = 0x3000, p = 0x4000;
    expect("cuMemAlloc_v2 4096", cuMemAlloc_v2(&a, 4096), 0);
    alloc3_fn managed = (alloc3_fn)sym("cuMemAllocManaged"), async = (alloc3_fn)sym("cuMemAllocAsync");
    expect("cuMemAllocManaged 4096", managed(&m, 4096, 1), 0);
    expect("cuMemAllocAsync 4096 (over 10000)", async(&b, 4096, 0), CUDA_ERROR_OUT_OF_MEMORY);
    pool_fn pool = (pool_fn)sym("cuMemAllocFromPoolAsync");
    expect("cuMemAllocFromPoolAsync 1000", pool(&p, 1000, NULL, NULL), 0);
    size_t pitch = 0;
    pitch_fn allocpitch = (pitch_fn)sym("cuMemAllocPitch_v2");
    CUdeviceptr q = 0x5000;
    expect("cuMemAllocPitch_v2 100 x 10 (rows of 512: 5120)", allocpitch(&q, &pitch, 100, 10, 4), CUDA_ERROR_OUT_OF_MEMORY);
    free_async_fn free_async = (free_async_fn)sym("cuMemFreeAsync");
    expect("cuMemFreeAsync", free_async(0x4000, NULL), 0);
    /* device 1 through the virtual memory API: its properties name it */
    struct { int type, handle_types, loc_type, loc_id; char rest[48]; } prop = {1, 0, 1, 1, {0}};
    create_fn create = (create_fn)sym("cuMemCreate");
    release_fn release = (release_fn)sym("cuMemRelease");
    uint64_t h1 = 0x71, h2 = 0x72;
    expect("cuMemCreate 16384 on device 1", create(&h1, 16384, &prop, 0), 0);
    expect("cuMemCreate 8192 on device 1 (over 20000)", create(&h2, 8192, &prop, 0), CUDA_ERROR_OUT_OF_MEMORY);
    expect("cuMemRelease", release(0x71), 0);
    h2 = 0x72;
    expect("cuMemCreate 8192 on device 1 after the release", create(&h2, 8192, &prop, 0), 0);
    uint64_t ran = fake_count_name("cuMemCreate");
    expect("cuMemCreate calls the driver ran", (long long)ran, 2);
    /* device 0 holds 8192: what cuMemGetInfo and NVML report */
    info_fn info = (info_fn)sym("cuMemGetInfo_v2");
    size_t fr = (size_t)1 << 40, to = (size_t)1 << 40;
    expect("cuMemGetInfo_v2", info(&fr, &to), 0);
    expect("cuMemGetInfo_v2 free", (long long)fr, 10000 - 8192);
    expect("cuMemGetInfo_v2 total", (long long)to, 10000);
    void *nv = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!nv) {
        printf("no fake libnvidia-ml.so.1: %s\n", dlerror());
        return 1;
    }
    nvml_handle_fn by_index = (nvml_handle_fn)dlsym(nv, "nvmlDeviceGetHandleByIndex_v2");
    nvml_info_fn meminfo = (nvml_info_fn)dlsym(nv, "nvmlDeviceGetMemoryInfo"),
                 meminfo2 = (nvml_info_fn)dlsym(nv, "nvmlDeviceGetMemoryInfo_v2");
    if (!by_index || !meminfo || !meminfo2) {
        printf("fake NVML lacks a function\n");
        return 1;
    }
    void *dev0 = (void *)0xd0, *dev1 = (void *)0xd1;
    expect("nvmlDeviceGetHandleByIndex_v2 0", by_index(0, &dev0), 0);
    expect("nvmlDeviceGetHandleByIndex_v2 1", by_index(1, &dev1), 0);
    unsigned long long mem[3] = {1ull << 40, 1ull << 40, 0};   /* total, free, used */
    expect("nvmlDeviceGetMemoryInfo", meminfo(dev0, mem), 0);
    expect("NVML total", (long long)mem[0], 10000);
    expect("NVML free", (long long)mem[1], 10000 - 8192);
    expect("NVML used", (long long)mem[2], 8192);
    struct { unsigned version; unsigned long long total, reserved, free, used; } m2 = {2, 1ull << 40, 5, 1ull << 40, 0};
    expect("nvmlDeviceGetMemoryInfo_v2", meminfo2(dev1, &m2), 0);
    expect("NVML v2 total", (long long)m2.total, 20000);
    expect("NVML v2 used", (long long)m2.used, 8192);
    expect("NVML v2 free", (long long)m2.free, 20000 - 8192);
    printf("%s\n", bad ? "FAILED" : "paths OK");
    return bad;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "paths"))
        return paths();
    if (argc > 2 && (!strcmp(argv[1], "hold") || !strcmp(argv[1], "try"))) {
        CUdeviceptr a = 0;
        int r = cuMemAlloc_v2(&a, strtoull(argv[2], NULL, 0));
        if (!strcmp(argv[1], "try")) {
            printf("try %s: %d\n", argv[2], r);
            return 0;
        }
        printf("held %s: %d\n", argv[2], r);
        fflush(stdout);
        char buf[16];
        while (fread(buf, 1, sizeof buf, stdin) > 0)
            ;
        cuMemFree_v2(a);
        return 0;
    }
    CUdeviceptr a = 0, b = 0, c = 0, d = 0;
    int r1 = cuMemAlloc_v2(&a, 4096), r2 = cuMemAlloc_v2(&b, 4096), r3 = cuMemAlloc_v2(&c, 4096);
    uint64_t ran = fake_count_name("cuMemAlloc_v2");
    int rf = cuMemFree_v2(a);
    int r4 = cuMemAlloc_v2(&d, 4096);
    printf("memlimit: %d %d %d free %d then %d; driver ran %llu of 3\n", r1, r2, r3, rf, r4, (unsigned long long)ran);
    return !(r1 == 0 && r2 == 0 && r3 == CUDA_ERROR_OUT_OF_MEMORY && c == 0 && ran == 2 && rf == 0 && r4 == 0);
}
