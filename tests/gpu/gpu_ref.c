/* The GPU activity referee (issue #31): a minimal CUPTI activity client of
 * its own, loaded by the driver through the injection mechanism, in a
 * separate run of the same workload:
 *
 *   CUDA_INJECTION64_PATH=build/gpu/libgpu_ref.so GPU_REF_DIR=DIR ./app
 *
 * It writes DIR/gpu.<pid>.tsv, one line per kernel, copy and memset CUPTI
 * reported: "kernel<TAB>duration ns<TAB>mangled name", "memcpy<TAB>ns<TAB>
 * [CUDA memcpy HtoD]" (the copy kind as cutap names it), "memset<TAB>ns<TAB>
 * [CUDA memset]". tests/gpu/gpu_compare.py compares these counts and
 * medians with cutap report --gpu of a `cutap trace --gpu` run. Nothing of
 * cutap's is used: it is what a profiler built on CUPTI (nsys) sees.
 *
 * Build: gcc -O2 -shared -fPIC -I<cupti include> gpu_ref.c -o libgpu_ref.so
 *        <libcupti.so> -lpthread   (tests/gpu/gpu_activity.sh) */
#define _GNU_SOURCE
#include <cupti.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static FILE *out;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int zeroed;   /* GPU_REF_OPTS=zeroed: buffers handed over zeroed */

/* GPU_REF_API=cb: the correlation ids the launch callbacks were given, by
 * domain (0 driver, 1 runtime), as bits; at exit, how many kernels carried
 * one of each (DIR/gpucb.<pid>.txt): whether a callback subscriber can join
 * kernels to the calls that launched them without API records */
#define CB_IDS (1u << 24)
static uint8_t *cb_seen[2];
static unsigned long long cb_calls[2], cb_kernels, cb_joined[2], cb_beyond;
static char cb_path[4096];

static void CUPTIAPI on_launch(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId id, const void *data)
{
    (void)ud, (void)id;
    const CUpti_CallbackData *cb = data;
    int k = dom == CUPTI_CB_DOMAIN_RUNTIME_API;
    if (cb->callbackSite != CUPTI_API_ENTER || !cb_seen[k])
        return;
    __atomic_fetch_add(&cb_calls[k], 1, __ATOMIC_RELAXED);
    if (cb->correlationId < CB_IDS)
        __atomic_fetch_or(&cb_seen[k][cb->correlationId / 8], (uint8_t)(1u << (cb->correlationId % 8)),
                          __ATOMIC_RELAXED);
}

static void CUPTIAPI requested(uint8_t **buffer, size_t *size, size_t *max)
{
    *size = 4u << 20;
    *buffer = aligned_alloc(8, *size);
    if (*buffer && zeroed)
        memset(*buffer, 0, *size);
    *max = 0;
    if (!*buffer)
        *size = 0;
}

static const char *copy_kind(unsigned k)
{
    static const char *const n[] = {"?", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH",
                                    "PtoP"};
    return k < sizeof n / sizeof n[0] ? n[k] : "?";
}

static void CUPTIAPI completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    (void)ctx, (void)stream, (void)size;
    CUpti_Activity *a = NULL;
    pthread_mutex_lock(&lock);
    while (out && cuptiActivityGetNextRecord(buffer, valid, &a) == CUPTI_SUCCESS) {
        if (a->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || a->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
            CUpti_ActivityKernel10 *k = (CUpti_ActivityKernel10 *)a;
            fprintf(out, "kernel\t%llu\t%s\n", (unsigned long long)(k->end - k->start), k->name ? k->name : "?");
            if (cb_seen[0]) {
                cb_kernels++;
                if (k->correlationId >= CB_IDS)
                    cb_beyond++;
                for (int d = 0; d < 2 && k->correlationId < CB_IDS; d++)
                    cb_joined[d] += (cb_seen[d][k->correlationId / 8] >> (k->correlationId % 8)) & 1;
            }
        } else if (a->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
            CUpti_ActivityMemcpy6 *m = (CUpti_ActivityMemcpy6 *)a;
            fprintf(out, "memcpy\t%llu\t[CUDA memcpy %s]\n", (unsigned long long)(m->end - m->start),
                    copy_kind(m->copyKind));
        } else if (a->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
            CUpti_ActivityMemset4 *m = (CUpti_ActivityMemset4 *)a;
            fprintf(out, "memset\t%llu\t[CUDA memset]\n", (unsigned long long)(m->end - m->start));
        }
    }
    if (out)
        fflush(out);
    pthread_mutex_unlock(&lock);
    free(buffer);
}

static void at_exit(void)
{
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    FILE *f = cb_seen[0] ? fopen(cb_path, "w") : NULL;
    if (f) {
        pthread_mutex_lock(&lock);
        fprintf(f, "driver launch callbacks %llu, runtime %llu; kernels %llu: with a driver callback's id %llu, "
                "a runtime callback's %llu, beyond the bitmap %llu\n",
                cb_calls[0], cb_calls[1], cb_kernels, cb_joined[0], cb_joined[1], cb_beyond);
        pthread_mutex_unlock(&lock);
        fclose(f);
    }
}

__attribute__((visibility("default"))) int InitializeInjection(void)
{
    const char *dir = getenv("GPU_REF_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/gpu.%d.tsv", dir && *dir ? dir : ".", (int)getpid());
    if (!(out = fopen(path, "w")))
        return 0;
    /* GPU_REF_OPTS, to find what a launch's cost under CUPTI depends on
     * (issue #31; bench/gpu/overhead's gpuref mode): words among
     * "kernelonly" (no copies or memsets), "pinned" (profiling data in
     * pinned host memory), "zeroed" (zeroed activity buffers handed to
     * CUPTI), "nothread" (no per-thread activity buffers), "predev=N"
     * (device buffers allocated at start), "devsize=N" (their size) */
    const char *o = getenv("GPU_REF_OPTS");
    int kernel_only = o && strstr(o, "kernelonly");
    if (o && strstr(o, "pinned")) {
        uint8_t v = 1;
        size_t n = sizeof v;
        cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, &n, &v);
    }
    if (o && strstr(o, "zeroed")) {
        uint8_t v = 1;
        size_t n = sizeof v;
        zeroed = 1;
        cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &n, &v);
    }
    if (o && strstr(o, "nothread")) {
        uint8_t v = 0;
        size_t n = sizeof v;
        cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &n, &v);
    }
    const char *pd = o ? strstr(o, "predev=") : NULL, *ds = o ? strstr(o, "devsize=") : NULL;
    if (pd) {
        size_t v = strtoul(pd + 7, NULL, 10), n = sizeof v;
        cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_PRE_ALLOCATE_VALUE, &n, &v);
    }
    if (ds) {
        size_t v = strtoul(ds + 8, NULL, 10), n = sizeof v;
        cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &n, &v);
    }
    if (cuptiActivityRegisterCallbacks(requested, completed) != CUPTI_SUCCESS ||
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS ||
        (!kernel_only && cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY) != CUPTI_SUCCESS) ||
        (!kernel_only && cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET) != CUPTI_SUCCESS)) {
        fprintf(out, "failed\t0\tCUPTI activity would not start\n");
        fflush(out);
        return 0;
    }
    /* GPU_REF_API: API records too, to measure what they cost: "launch"
     * of cuLaunchKernel and cudaLaunchKernel alone (the per-function
     * switches), "all" of every driver and runtime call (as nsys), "cb"
     * none, but a callback subscriber on the launch functions (above) */
    const char *api = getenv("GPU_REF_API");
    CUpti_SubscriberHandle sub;
    if (api && !strcmp(api, "cb") && (cb_seen[0] = calloc(CB_IDS / 8, 1)) && (cb_seen[1] = calloc(CB_IDS / 8, 1)) &&
        cuptiSubscribe(&sub, (CUpti_CallbackFunc)on_launch, NULL) == CUPTI_SUCCESS) {
        snprintf(cb_path, sizeof cb_path, "%s/gpucb.%d.txt", dir && *dir ? dir : ".", (int)getpid());
        static const CUpti_CallbackId drv[] = {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
                                               CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
                                               CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
                                               CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
                                               CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
                                               CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz};
        static const CUpti_CallbackId rt[] = {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                                              CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
                                              CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
                                              CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
                                              CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
                                              CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000};
        for (size_t i = 0; i < sizeof drv / sizeof drv[0]; i++)
            cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, drv[i]);
        for (size_t i = 0; i < sizeof rt / sizeof rt[0]; i++)
            cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, rt[i]);
    }
    if (api && !strcmp(api, "launch")) {
        cuptiActivityEnableDriverApi(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 1);
        cuptiActivityEnableRuntimeApi(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 1);
    } else if (api && !strcmp(api, "all")) {
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER);
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME);
    }
    atexit(at_exit);
    return 1;
}
