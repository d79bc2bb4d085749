/* A program with its own "statically linked" CUDA runtime, for
 * `cutap trace --runtime=cupti` (src/resolve/cupti_rt.c).
 *
 * Its runtime functions (rt_cudaMalloc, ...) are internal to the program,
 * as nvcc's static cudart is: no symbol of cutap can stand in for them.
 * Like the real runtime, each reports its entry and exit through the
 * driver's TOOLS_RUNTIME_CALLBACK_HOOKS when the driver's word for it is
 * set (tests/rt_copy.h: set by cutap's copy of the table by default, by a
 * CUPTI subscriber, here the fake libcupti.so.13, otherwise), with CUPTI's
 * function name, callback id and parameter struct
 * (generated_cuda_runtime_api_meta.h), and calls the driver in between.
 *
 * stdout: CALL <name> for every driver call made, and each runtime call's
 * result (the same with and without cutap, whatever CUPTI does).
 * stderr: RTCALL <name> for every runtime call whose entry was reported
 * and that cutap should record: a function of the runtime
 * API, at most 64 runtime calls deep; ADDR <name> <addresses> of the
 * structs passed by value inside the parameter struct (what cutap records
 * as their argument words); "CUPTI loaded" when a libcupti is in the
 * process at the end; TLS2 N: the TOOLS_TLS#2 calls the driver got (one
 * per report made, tests/rt_copy.h).
 *
 * The calls: the first runtime call initialises the driver after its entry
 * was reported (so a subscriber made at cuInit misses that entry, not its
 * exit); then cudaMalloc (one failing), cudaMemset (int then size_t:
 * alignment, sign), cudaLaunchKernel (dim3 by value), cudaMemAdvise (an
 * 8-byte struct aligned to 4 after an enum), cudaGetDevice
 * reported with no parameters, a function CUPTI names but the runtime API
 * has not, cudaFree named with a version suffix, cudaStreamGetCaptureInfo
 * as an older runtime reports it, cudaDeviceSynchronize
 * nested 70 deep (each level but the innermost calls cuDriverGetVersion
 * after the level inside it returned: it nests under the level's call, or
 * under the 64th for the levels cutap does not follow), cudaMalloc again,
 * and 4 threads x 50 cudaMalloc.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cuda_min.h"
#include "rt_copy.h"

typedef void *CUfunction;
typedef void *CUstream;
CUresult cuMemsetD8_v2(CUdeviceptr p, unsigned char v, size_t n);
CUresult cuCtxGetDevice(int *dev);
CUresult cuCtxSynchronize(void);
typedef struct {
    int type, id;
} CUmemLocation;
CUresult cuMemAdvise_v2(CUdeviceptr p, size_t n, int advice, CUmemLocation loc);
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned smem, CUstream s, void **params, void **extra);

typedef int cudaError_t;
struct cudaMemLocation {
    int type, id;
};

/* --- reporting, as the real runtime does (tests/rt_copy.h) ------------- */
struct rt_call {
    uint32_t cbid;        /* CUPTI_RUNTIME_TRACE_CBID_* of cupti_runtime_cbid.h */
    const char *name;     /* CUPTI's functionName */
    const void *params;
    uint64_t corr;
    int delivered;
};

static void called(const char *name) { printf("CALL %s\n", name); }

static _Atomic int depth_now;
static int rt_begin(struct rt_call *c)
{
    static _Atomic int asked;
    c->corr = 0;
    c->delivered = rt_copy_report(0, c->cbid, c->name, c->params, NULL, &c->corr);
    if (!atomic_exchange(&asked, 1)) {
        called("cuGetExportTable");   /* the copy's requests for its two tables (rt_copy.h) */
        called("cuGetExportTable");
    }
    return atomic_fetch_add(&depth_now, 0);
}

static cudaError_t rt_end(struct rt_call *c, cudaError_t r)
{
    rt_copy_report(1, c->cbid, c->name, c->params, &r, &c->corr);
    return r;
}

static _Atomic int expected_threads;
/* The runtime call should be in the trace (see the head comment). */
static void expect(const struct rt_call *c, const char *api_name, int depth)
{
    if (c->delivered && api_name && depth < 64)
        fprintf(stderr, "RTCALL %s\n", api_name);
}


static int initialised;
static cudaError_t rt_lazy_init(void)
{
    if (initialised)
        return 0;
    CUresult r = cuInit(0);
    called("cuInit");
    initialised = r == CUDA_SUCCESS;
    return r ? 3 /* cudaErrorInitializationError */ : 0;
}

static cudaError_t from_cu(CUresult r) { return r == CUDA_SUCCESS ? 0 : r == CUDA_ERROR_INVALID_VALUE ? 1 : 999; }

/* --- the mini runtime ---------------------------------------------------- */
static cudaError_t rt_cudaGetDeviceCount(int *count)
{
    struct { int *count; } p = {count};
    struct rt_call c = {3, "cudaGetDeviceCount", &p, 0, 0};
    int d = rt_begin(&c);
    cudaError_t r = rt_lazy_init();
    if (!r) {
        r = from_cu(cuDeviceGetCount(count));
        called("cuDeviceGetCount");
    }
    expect(&c, "cudaGetDeviceCount", d);
    return rt_end(&c, r);
}

/* Without its prints: also run by the threads. */
static cudaError_t malloc_quiet(void **ptr, size_t size, int *delivered)
{
    struct { void **devPtr; size_t size; } p = {ptr, size};   /* cudaMalloc_v3020_params */
    struct rt_call c = {20, "cudaMalloc", &p, 0, 0};
    rt_begin(&c);
    cudaError_t r = rt_lazy_init();
    if (!r)
        r = from_cu(cuMemAlloc_v2((CUdeviceptr *)ptr, size));
    *delivered = c.delivered;
    return rt_end(&c, r);
}

static cudaError_t rt_cudaMalloc(void **ptr, size_t size)
{
    int delivered;
    cudaError_t r = malloc_quiet(ptr, size, &delivered);
    called("cuMemAlloc_v2");
    if (delivered)
        fprintf(stderr, "RTCALL cudaMalloc\n");
    return r;
}

static cudaError_t rt_cudaMemset(void *ptr, int value, size_t count)
{
    struct { void *devPtr; int value; size_t count; } p = {ptr, value, count};   /* cudaMemset_v3020_params */
    struct rt_call c = {49, "cudaMemset", &p, 0, 0};
    int d = rt_begin(&c);
    cudaError_t r = from_cu(cuMemsetD8_v2((CUdeviceptr)(uintptr_t)ptr, (unsigned char)value, count));
    called("cuMemsetD8_v2");
    expect(&c, "cudaMemset", d);
    return rt_end(&c, r);
}

static cudaError_t rt_cudaLaunchKernel(const void *func, struct dim3 grid, struct dim3 block, void **args, size_t shmem,
                                       CUstream stream)
{
    struct rt_launch_params p = {func, grid, block, args, shmem, stream};
    struct rt_call c = {211, "cudaLaunchKernel", &p, 0, 0};
    fprintf(stderr, "ADDR cudaLaunchKernel %p %p\n", (void *)&p.gridDim, (void *)&p.blockDim);
    int d = rt_begin(&c);
    cudaError_t r = from_cu(cuLaunchKernel((CUfunction)(uintptr_t)func, grid.x, grid.y, grid.z, block.x, block.y,
                                           block.z, (unsigned)shmem, stream, args, NULL));
    called("cuLaunchKernel");
    expect(&c, "cudaLaunchKernel", d);
    return rt_end(&c, r);
}

static cudaError_t rt_cudaMemAdvise(const void *ptr, size_t count, int advice, struct cudaMemLocation loc)
{
    struct {
        const void *devPtr;
        size_t count;
        int advice;
        struct cudaMemLocation location;
    } p = {ptr, count, advice, loc};   /* cudaMemAdvise_v12020_params */
    struct rt_call c = {448, "cudaMemAdvise", &p, 0, 0};
    fprintf(stderr, "ADDR cudaMemAdvise %p\n", (void *)&p.location);
    int d = rt_begin(&c);
    CUmemLocation l = {loc.type, loc.id};
    cudaError_t r = from_cu(cuMemAdvise_v2((CUdeviceptr)(uintptr_t)ptr, count, advice, l));
    called("cuMemAdvise_v2");
    expect(&c, "cudaMemAdvise", d);
    return rt_end(&c, r);
}

/* Reported with no parameter struct at all: cutap records no arguments. */
static cudaError_t rt_cudaGetDevice(int *dev)
{
    struct rt_call c = {17, "cudaGetDevice", NULL, 0, 0};
    int d = rt_begin(&c);
    cudaError_t r = from_cu(cuCtxGetDevice(dev));
    called("cuCtxGetDevice");
    expect(&c, "cudaGetDevice", d);
    return rt_end(&c, r);
}

/* A name cutap's runtime layer has not (one removed from the headers, or
 * newer than them): recorded all the same, untyped, its driver call
 * nested under it. */
static cudaError_t rt_unknown(void)
{
    struct { int x; } p = {7};
    struct rt_call c = {600, "cudaNotARuntimeFunction", &p, 0, 0};
    int d = rt_begin(&c);
    CUcontext ctx;
    cudaError_t r = from_cu(cuCtxGetCurrent(&ctx));
    called("cuCtxGetCurrent");
    expect(&c, "cudaNotARuntimeFunction", d);
    return rt_end(&c, r);
}

static cudaError_t rt_cudaFree(void *ptr)
{
    struct { void *devPtr; } p = {ptr};
    struct rt_call c = {22, "cudaFree_v3020", &p, 0, 0};   /* a versioned name */
    int d = rt_begin(&c);
    cudaError_t r = from_cu(cuMemFree_v2((CUdeviceptr)(uintptr_t)ptr));
    called("cuMemFree_v2");
    expect(&c, "cudaFree", d);
    return rt_end(&c, r);
}

/* A runtime of an older major than the pinned headers: CUDA 10.1 to 12.x
 * report cudaStreamGetCaptureInfo with 3 parameters under callback id 324
 * (cudaStreamGetCaptureInfo_v10010), 13.0 with 7 under 461. Its parameter
 * struct ends a page whose next page is inaccessible: read with 13.0's
 * layout (and its output pointers followed), it would fault; cutap reads
 * it with CUDA 11.8's 3 parameters (issue #28). */
static cudaError_t rt_old_capture_info(void)
{
    long ps = sysconf(_SC_PAGESIZE);
    unsigned char *pg = mmap(NULL, 2 * (size_t)ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pg == MAP_FAILED || mprotect(pg + ps, (size_t)ps, PROT_NONE))
        abort();
    struct old_params {
        CUstream stream;
        int *pCaptureStatus;
        unsigned long long *pId;
    } *p = (struct old_params *)(pg + ps - sizeof *p);
    int status = 0;
    unsigned long long cid = 0;
    *p = (struct old_params){NULL, &status, &cid};
    struct rt_call c = {324, "cudaStreamGetCaptureInfo", p, 0, 0};
    int d = rt_begin(&c);
    CUcontext ctx;
    cudaError_t r = from_cu(cuCtxGetCurrent(&ctx));
    called("cuCtxGetCurrent");
    expect(&c, "cudaStreamGetCaptureInfo", d);
    r = rt_end(&c, r);
    munmap(pg, 2 * (size_t)ps);
    return r;
}

/* Nested levels deep, the innermost synchronises the context. */
static cudaError_t rt_cudaDeviceSynchronize(int levels)
{
    struct rt_call c = {165, "cudaDeviceSynchronize", NULL, 0, 0};
    int d = rt_begin(&c);
    atomic_fetch_add(&depth_now, 1);
    cudaError_t r;
    if (levels > 1) {
        r = rt_cudaDeviceSynchronize(levels - 1);
        int v;
        cuDriverGetVersion(&v);
        called("cuDriverGetVersion");
    } else {
        r = from_cu(cuCtxSynchronize());
        called("cuCtxSynchronize");
    }
    atomic_fetch_sub(&depth_now, 1);
    expect(&c, "cudaDeviceSynchronize", d);
    return rt_end(&c, r);
}

static void *thread_main(void *arg)
{
    (void)arg;
    for (int i = 0; i < 50; i++) {
        void *p = NULL;
        int delivered;
        if (malloc_quiet(&p, 64, &delivered))
            abort();
        atomic_fetch_add(&expected_threads, delivered);
    }
    return NULL;
}

int main(void)
{
    int n = 0;
    printf("cudaGetDeviceCount = %d, %d devices\n", rt_cudaGetDeviceCount(&n), n);
    void *p = NULL, *q = NULL;
    printf("cudaMalloc(4096) = %d\n", rt_cudaMalloc(&p, 4096));
    printf("cudaMalloc(0) = %d\n", rt_cudaMalloc(&q, 0));
    printf("cudaMemset = %d\n", rt_cudaMemset(p, -1, 4096));
    struct dim3 grid = {128, 2, 1}, block = {256, 1, 1};
    printf("cudaLaunchKernel = %d\n", rt_cudaLaunchKernel((void *)0xf0000100, grid, block, NULL, 64, NULL));
    struct cudaMemLocation loc = {1, 0};
    printf("cudaMemAdvise = %d\n", rt_cudaMemAdvise(p, 4096, 1, loc));
    int dev = -1;
    printf("cudaGetDevice = %d\n", rt_cudaGetDevice(&dev));
    printf("unknown = %d\n", rt_unknown());
    printf("cudaFree = %d\n", rt_cudaFree(p));
    printf("cudaStreamGetCaptureInfo (CUDA 12) = %d\n", rt_old_capture_info());
    printf("cudaDeviceSynchronize x70 = %d\n", rt_cudaDeviceSynchronize(70));
    printf("cudaMalloc(100) = %d\n", rt_cudaMalloc(&p, 100));
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, thread_main, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < 200; i++)
        called("cuMemAlloc_v2");
    for (int i = 0; i < atomic_load(&expected_threads); i++)
        fprintf(stderr, "RTCALL cudaMalloc\n");
    printf("threads: 200 cudaMalloc\n");
    if (dlopen("libcupti.so.13", RTLD_NOW | RTLD_NOLOAD))
        fprintf(stderr, "CUPTI loaded\n");
    /* the fake driver's count of TOOLS_TLS#2 calls (one per report) */
    void (*counts)(uint64_t *, uint64_t *, uint64_t *, uint64_t *) =
        (void (*)(uint64_t *, uint64_t *, uint64_t *, uint64_t *))dlsym(RTLD_DEFAULT, "fake_tools_counts");
    uint64_t c1 = 0, c4 = 0, miss = 0, tls2 = 0;
    if (counts)
        counts(&c1, &c4, &miss, &tls2);
    fprintf(stderr, "TLS2 %llu\n", (unsigned long long)tls2);
    return 0;
}
