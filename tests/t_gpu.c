/* GPU work for `cutap trace --gpu` (src/record/gpu.c) on the fake driver,
 * whose "GPU" the fake libcupti's activity API sees (tests/fake/fake_gpu.c,
 * fake_cupti_activity.c; the cases in tests/cases/gpu).
 *
 *   t_gpu [ROUNDS [THREADS [PAUSE_MS]]]      (defaults 20, 4, 0)
 *
 * Main loads six kernels by name (cuModuleGetFunction), allocates device
 * memory, builds a graph of three kernel nodes (gnodea, gnodeb, gnodec)
 * and instantiates it, calls the runtime copy's cudaGetDevice (no GPU
 * work); then THREADS threads each make ROUNDS rounds of:
 *   driver:  cuLaunchKernel (scale_f32), cuLaunchKernel_ptsz on the
 *            thread's stream (scale_f32), cuLaunchKernelEx (add_one),
 *            cuGraphLaunch (3 kernels), copies HtoD, DtoH, DtoD, HtoD async,
 *            cuMemcpy host to host, cuMemcpyPeer (peer to peer), memsets
 *            D8, D16, D32 async, D2D8, and cuCtxGetCurrent (no GPU work)
 *   runtime: a runtime copy of its own (tests/rt_copy.h: it reports each
 *            call through the driver's tools hook when the driver's word
 *            for it is set, as a static cudart does): cudaLaunchKernel
 *            (rt_axpy, through cuLaunchKernel), cudaMemcpy (HtoD, through
 *            cuMemcpyHtoD_v2), cudaMemcpyAsync (DtoH, through
 *            cuMemcpyDtoHAsync_v2), cudaMemset (through cuMemsetD8_v2),
 *            cudaGraphLaunch (the graph's 3 kernels, through cuGraphLaunch)
 * Per round: 10 kernels (scale_f32 2, add_one 1, gnodea/b/c 2 each,
 * rt_axpy 1), 8 copies, 5 memsets. T_GPU_NO_DRIVER_EX_GRAPH=1: the
 * driver part makes no cuLaunchKernelEx and no cuGraphLaunch of its own
 * (the runtime's cudaGraphLaunch still calls cuGraphLaunch). Main then destroys the graph, frees the
 * memory, sleeps PAUSE_MS, prints and calls cuCtxSynchronize last (inside
 * which the fake kills the process when FAKE_SYNC_DIES is set).
 *
 * stdout (the same with and without cutap): "kernel NAME N", "memcpy KIND
 * N", "memset N" for the work made, "call NAME N" for the driver calls made
 * before cuCtxSynchronize. stderr: "RTCALL NAME N", the runtime calls whose
 * entry was reported (what cutap records of the runtime copy). Exit 1 if
 * any call failed. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_min.h"
#include "rt_copy.h"

typedef void *CUfunction;
typedef void *CUstream;
typedef void *CUgraph;
typedef void *CUgraphExec;
typedef void *CUgraphNode;
CUresult cuModuleGetFunction(CUfunction *f, void *mod, const char *name);
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned smem, CUstream s, void **params, void **extra);
CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                             unsigned bz, unsigned smem, CUstream s, void **params, void **extra);
typedef struct {
    unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
    CUstream hStream;
    void *attrs;
    unsigned numAttrs;
} CUlaunchConfig;
CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **params, void **extra);
typedef struct {
    CUfunction func;
    unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
    void **kernelParams, **extra;
    void *kern;
    CUcontext ctx;
} CUDA_KERNEL_NODE_PARAMS_v2;
CUresult cuGraphCreate(CUgraph *g, unsigned flags);
CUresult cuGraphAddKernelNode_v2(CUgraphNode *n, CUgraph g, const CUgraphNode *deps, size_t ndeps,
                                 const CUDA_KERNEL_NODE_PARAMS_v2 *p);
CUresult cuGraphInstantiateWithFlags(CUgraphExec *x, CUgraph g, unsigned long long flags);
CUresult cuGraphLaunch(CUgraphExec x, CUstream s);
CUresult cuGraphExecDestroy(CUgraphExec x);
CUresult cuGraphDestroy(CUgraph g);
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *h, size_t n);
CUresult cuMemcpyDtoH_v2(void *h, CUdeviceptr d, size_t n);
CUresult cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, size_t n);
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *h, size_t n, CUstream s);
CUresult cuMemcpyDtoHAsync_v2(void *h, CUdeviceptr d, size_t n, CUstream s);
CUresult cuMemcpy(CUdeviceptr d, CUdeviceptr s, size_t n);
CUresult cuMemcpyPeer(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n);
CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n);
CUresult cuMemsetD16_v2(CUdeviceptr d, unsigned short v, size_t n);
CUresult cuMemsetD32Async(CUdeviceptr d, unsigned v, size_t n, CUstream s);
CUresult cuMemsetD2D8_v2(CUdeviceptr d, size_t pitch, unsigned char v, size_t w, size_t h);
CUresult cuCtxSynchronize(void);
CUresult cuCtxGetDevice(int *dev);

/* --- what was made ------------------------------------------------------- */
enum {
    cuInit_, cuModuleGetFunction_, cuMemAlloc_v2_, cuGraphCreate_, cuGraphAddKernelNode_v2_,
    cuGraphInstantiateWithFlags_, cuLaunchKernel_, cuLaunchKernel_ptsz_, cuLaunchKernelEx_, cuGraphLaunch_,
    cuMemcpyHtoD_v2_, cuMemcpyDtoH_v2_, cuMemcpyDtoD_v2_, cuMemcpyHtoDAsync_v2_, cuMemcpyDtoHAsync_v2_, cuMemcpy_,
    cuMemcpyPeer_, cuMemsetD8_v2_, cuMemsetD16_v2_, cuMemsetD32Async_, cuMemsetD2D8_v2_, cuCtxGetCurrent_,
    cuGetExportTable_, cuCtxGetDevice_, cuGraphExecDestroy_, cuGraphDestroy_, cuMemFree_v2_, NCALLS
};
static const char *const call_names[NCALLS] = {
    "cuInit", "cuModuleGetFunction", "cuMemAlloc_v2", "cuGraphCreate", "cuGraphAddKernelNode_v2",
    "cuGraphInstantiateWithFlags", "cuLaunchKernel", "cuLaunchKernel_ptsz", "cuLaunchKernelEx", "cuGraphLaunch",
    "cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2", "cuMemcpyDtoD_v2", "cuMemcpyHtoDAsync_v2", "cuMemcpyDtoHAsync_v2", "cuMemcpy",
    "cuMemcpyPeer", "cuMemsetD8_v2", "cuMemsetD16_v2", "cuMemsetD32Async", "cuMemsetD2D8_v2", "cuCtxGetCurrent",
    "cuGetExportTable", "cuCtxGetDevice", "cuGraphExecDestroy", "cuGraphDestroy", "cuMemFree_v2"};
static _Atomic unsigned long ncalled[NCALLS];
static _Atomic int failed;

/* A driver call made: counted; a failure noted. */
#define DRV(name, ...) check(name##_, name(__VA_ARGS__))
static void check(int which, CUresult r)
{
    ncalled[which]++;
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "t_gpu: %s failed: %d\n", call_names[which], r);
        failed = 1;
    }
}

enum { K_SCALE, K_ADD, K_GA, K_GB, K_GC, K_RT, NKERNELS };
static const char *const kernel_names[NKERNELS] = {"_Z9scale_f32Pfi", "_Z7add_onePi", "_Z6gnodeaPf",
                                                   "_Z6gnodebPf", "_Z6gnodecPf", "_Z7rt_axpyPfS_f"};
static CUfunction kernels[NKERNELS];
static _Atomic unsigned long nkernel[NKERNELS];
static const char *const copy_names[] = {"HtoD", "DtoH", "DtoD", "HtoH", "PtoP"};
enum { C_HTOD, C_DTOH, C_DTOD, C_HTOH, C_PTOP, NCOPIES };
static _Atomic unsigned long ncopy[NCOPIES], nmemset;

/* --- the runtime copy (tests/rt_copy.h) ------------------------------------ */
enum { R_LAUNCH, R_MEMCPY, R_MEMCPY_ASYNC, R_MEMSET, R_GRAPH, R_GET_DEVICE, NRT };
static const char *const rt_names[NRT] = {"cudaLaunchKernel", "cudaMemcpy", "cudaMemcpyAsync", "cudaMemset",
                                          "cudaGraphLaunch", "cudaGetDevice"};
static const uint32_t rt_cbids[NRT] = {211, 31, 41, 49, 311, 17};   /* cupti_runtime_cbid.h */
static _Atomic unsigned long nrt[NRT];

struct rt_call {
    int which;
    const void *params;
    uint64_t corr;
    int delivered;
};
static void rt_begin(struct rt_call *c)
{
    static _Atomic int asked;
    c->corr = 0;
    c->delivered = rt_copy_report(0, rt_cbids[c->which], rt_names[c->which], c->params, NULL, &c->corr);
    if (!atomic_exchange(&asked, 1))
        ncalled[cuGetExportTable_] += 2;   /* the copy's requests for its two tables (rt_copy.h) */
}
static int rt_end(struct rt_call *c, int r)
{
    rt_copy_report(1, rt_cbids[c->which], rt_names[c->which], c->params, &r, &c->corr);
    if (c->delivered)
        nrt[c->which]++;
    return r;
}

static int rt_cudaLaunchKernel(CUfunction func, struct dim3 grid, struct dim3 block, void **args, size_t shmem,
                               CUstream stream)
{
    struct rt_launch_params p = {func, grid, block, args, shmem, stream};
    struct rt_call c = {R_LAUNCH, &p, 0, 0};
    rt_begin(&c);
    DRV(cuLaunchKernel, func, grid.x, grid.y, grid.z, block.x, block.y, block.z, (unsigned)shmem, stream, args, NULL);
    return rt_end(&c, 0);
}
static int rt_cudaMemcpy(void *dst, const void *src, size_t count, int kind)
{
    struct {
        void *dst;
        const void *src;
        size_t count;
        int kind;
    } p = {dst, src, count, kind};   /* cudaMemcpy_v3020_params; kind 1: host to device */
    struct rt_call c = {R_MEMCPY, &p, 0, 0};
    rt_begin(&c);
    DRV(cuMemcpyHtoD_v2, (CUdeviceptr)(uintptr_t)dst, src, count);
    return rt_end(&c, 0);
}
static int rt_cudaMemcpyAsync(void *dst, const void *src, size_t count, int kind, CUstream s)
{
    struct {
        void *dst;
        const void *src;
        size_t count;
        int kind;
        CUstream stream;
    } p = {dst, src, count, kind, s};   /* cudaMemcpyAsync_v3020_params; kind 2: device to host */
    struct rt_call c = {R_MEMCPY_ASYNC, &p, 0, 0};
    rt_begin(&c);
    DRV(cuMemcpyDtoHAsync_v2, dst, (CUdeviceptr)(uintptr_t)src, count, s);
    return rt_end(&c, 0);
}
static int rt_cudaMemset(void *ptr, int value, size_t count)
{
    struct {
        void *devPtr;
        int value;
        size_t count;
    } p = {ptr, value, count};   /* cudaMemset_v3020_params */
    struct rt_call c = {R_MEMSET, &p, 0, 0};
    rt_begin(&c);
    DRV(cuMemsetD8_v2, (CUdeviceptr)(uintptr_t)ptr, (unsigned char)value, count);
    return rt_end(&c, 0);
}
/* No GPU work: made once by main before the threads (the copy's first
 * call asks for its tables: one thread does). */
static int rt_cudaGetDevice(int *dev)
{
    struct {
        int *device;
    } p = {dev};   /* cudaGetDevice_v3020_params */
    struct rt_call c = {R_GET_DEVICE, &p, 0, 0};
    rt_begin(&c);
    DRV(cuCtxGetDevice, dev);
    return rt_end(&c, 0);
}
static int rt_cudaGraphLaunch(CUgraphExec x, CUstream s)
{
    struct {
        CUgraphExec graphExec;
        CUstream stream;
    } p = {x, s};   /* cudaGraphLaunch_v10000_params */
    struct rt_call c = {R_GRAPH, &p, 0, 0};
    rt_begin(&c);
    DRV(cuGraphLaunch, x, s);
    return rt_end(&c, 0);
}

/* --- the rounds ------------------------------------------------------------- */
static CUdeviceptr dev1, dev2;
static CUgraphExec graph_exec;
static int rounds = 20;

static void *thread_main(void *arg)
{
    CUstream st = (CUstream)(uintptr_t)(0x5000 + 0x10 * (uintptr_t)arg);   /* the thread's stream */
    static char host[8192];
    const char *se = getenv("T_GPU_NO_DRIVER_EX_GRAPH");
    int skip_ex_graph = se && !strcmp(se, "1");
    char mine[4096];
    memset(mine, 1, sizeof mine);
    for (int i = 0; i < rounds; i++) {
        DRV(cuLaunchKernel, kernels[K_SCALE], 64, 1, 1, 128, 1, 1, 0, NULL, NULL, NULL);
        DRV(cuLaunchKernel_ptsz, kernels[K_SCALE], 32, 2, 1, 256, 1, 1, 0, st, NULL, NULL);
        nkernel[K_SCALE] += 2;
        if (!skip_ex_graph) {
            CUlaunchConfig cfg = {16, 1, 1, 64, 1, 1, 0, st, NULL, 0};
            DRV(cuLaunchKernelEx, &cfg, kernels[K_ADD], NULL, NULL);
            nkernel[K_ADD]++;
            DRV(cuGraphLaunch, graph_exec, st);
            nkernel[K_GA]++; nkernel[K_GB]++; nkernel[K_GC]++;
        }
        DRV(cuMemcpyHtoD_v2, dev1, mine, 1024);
        DRV(cuMemcpyDtoH_v2, mine, dev1, 2048);
        DRV(cuMemcpyDtoD_v2, dev2, dev1, 4096);
        DRV(cuMemcpyHtoDAsync_v2, dev2, mine, 512, st);
        DRV(cuMemcpy, (CUdeviceptr)(uintptr_t)host, (CUdeviceptr)(uintptr_t)mine, 256);
        DRV(cuMemcpyPeer, dev2, NULL, dev1, NULL, 128);
        ncopy[C_HTOD] += 2; ncopy[C_DTOH]++; ncopy[C_DTOD]++; ncopy[C_HTOH]++; ncopy[C_PTOP]++;
        DRV(cuMemsetD8_v2, dev1, 0xab, 4096);
        DRV(cuMemsetD16_v2, dev1, 0x1234, 100);
        DRV(cuMemsetD32Async, dev2, 7, 256, st);
        DRV(cuMemsetD2D8_v2, dev1, 64, 1, 64, 8);
        nmemset += 4;
        CUcontext ctx;
        DRV(cuCtxGetCurrent, &ctx);
        struct dim3 grid = {8, 8, 1}, block = {32, 4, 1};
        rt_cudaLaunchKernel(kernels[K_RT], grid, block, NULL, 0, st);
        nkernel[K_RT]++;
        rt_cudaMemcpy((void *)(uintptr_t)dev1, mine, 1000, 1);
        rt_cudaMemcpyAsync(mine, (void *)(uintptr_t)dev2, 300, 2, st);
        ncopy[C_HTOD]++; ncopy[C_DTOH]++;
        rt_cudaMemset((void *)(uintptr_t)dev2, 0, 64);
        nmemset++;
        rt_cudaGraphLaunch(graph_exec, st);
        nkernel[K_GA]++; nkernel[K_GB]++; nkernel[K_GC]++;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int nthreads = 4, pause_ms = 0;
    if (argc > 1)
        rounds = atoi(argv[1]);
    if (argc > 2)
        nthreads = atoi(argv[2]);
    if (argc > 3)
        pause_ms = atoi(argv[3]);
    if (rounds < 0 || nthreads < 1 || nthreads > 64 || pause_ms < 0) {
        fprintf(stderr, "usage: t_gpu [ROUNDS [THREADS [PAUSE_MS]]]\n");
        return 2;
    }
    DRV(cuInit, 0);
    for (int k = 0; k < NKERNELS; k++)
        DRV(cuModuleGetFunction, &kernels[k], NULL, kernel_names[k]);
    DRV(cuMemAlloc_v2, &dev1, 1 << 16);
    DRV(cuMemAlloc_v2, &dev2, 1 << 16);
    CUgraph g = NULL;
    DRV(cuGraphCreate, &g, 0);
    CUgraphNode prev = NULL;
    for (int k = K_GA; k <= K_GC; k++) {
        CUDA_KERNEL_NODE_PARAMS_v2 p = {kernels[k], 4, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL, NULL};
        CUgraphNode n = NULL;
        DRV(cuGraphAddKernelNode_v2, &n, g, prev ? &prev : NULL, prev ? 1 : 0, &p);
        prev = n;
    }
    DRV(cuGraphInstantiateWithFlags, &graph_exec, g, 0);
    int dev = 0;
    rt_cudaGetDevice(&dev);
    pthread_t t[64];
    for (int i = 0; i < nthreads; i++)
        pthread_create(&t[i], NULL, thread_main, (void *)(uintptr_t)i);
    for (int i = 0; i < nthreads; i++)
        pthread_join(t[i], NULL);
    DRV(cuGraphExecDestroy, graph_exec);
    DRV(cuGraphDestroy, g);
    DRV(cuMemFree_v2, dev1);
    DRV(cuMemFree_v2, dev2);
    if (pause_ms) {
        struct timespec ts = {pause_ms / 1000, (long)(pause_ms % 1000) * 1000000};
        nanosleep(&ts, NULL);
    }
    for (int k = 0; k < NKERNELS; k++)
        printf("kernel %s %lu\n", kernel_names[k], nkernel[k]);
    unsigned long copies = 0;
    for (int c = 0; c < NCOPIES; c++) {
        printf("memcpy %s %lu\n", copy_names[c], ncopy[c]);
        copies += ncopy[c];
    }
    printf("memcpy %lu\nmemset %lu\n", copies, nmemset);
    for (int i = 0; i < NCALLS; i++)
        if (ncalled[i])
            printf("call %s %lu\n", call_names[i], ncalled[i]);
    for (int i = 0; i < NRT; i++)
        if (nrt[i])
            fprintf(stderr, "RTCALL %s %lu\n", rt_names[i], nrt[i]);
    fflush(stdout);
    fflush(stderr);
    if (cuCtxSynchronize() != CUDA_SUCCESS)   /* last: FAKE_SYNC_DIES kills the process in it */
        failed = 1;
    return failed;
}
