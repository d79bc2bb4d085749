// How a CUDA runtime copy learns that runtime callbacks are wanted, and what
// it hands the driver when it reports one (issue #25). Research probe, run on
// the device machine without cutap:
//   nvcc -O1 -cudart static -o rt_hooks_probe tests/gpu/rt_hooks_probe.cu -lcuda -lcupti
// It takes the driver's TOOLS_RUNTIME_CALLBACK_HOOKS table itself before the
// runtime starts, makes its page writable and puts logging shims in slots
// 1..6 (the runtime copy in this program then calls the shims), asks slots
// #2 and #6 for their buffers, and then, phase by phase (no subscriber; a
// CUPTI runtime-domain subscriber; one callback id; unsubscribed; the
// subscriber's buffer contents written by hand with no subscriber; the same
// with the driver's slots 1 and 4 not called), prints how the buffers changed,
// how often each slot was called, the first calls' arguments with the memory
// they point to, and what CUPTI's callback received, to match them up.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

static const CUuuid HOOKS = {{(char)0xa0, (char)0x94, (char)0x79, (char)0x8c, 0x2e, 0x74, 0x2e, 0x74,
                              (char)0x93, (char)0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66}};
typedef uint64_t (*fn6)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
static void **tab;
static fn6 orig[8];
static int counts[8];
static int dump_left;       // arguments of this many more slot calls are printed
static int pass_real = 1;   // call the driver's slot (else return 0)
static int pipefd[2];

static int readable(const void *p, size_t n)
{
    if ((uintptr_t)p < 0x10000) return 0;
    ssize_t w = write(pipefd[1], p, n);
    if (w > 0) { static char b[65536]; (void)!read(pipefd[0], b, (size_t)w); }
    return w == (ssize_t)n;
}

static void dump_mem(const char *tag, uint64_t a)
{
    if (!readable((void *)a, 96)) return;
    const uint64_t *q = (const uint64_t *)a;
    printf("      %s @%#lx:", tag, (unsigned long)a);
    for (int i = 0; i < 12; i++) printf(" %lx", (unsigned long)q[i]);
    const char *s = (const char *)a;
    int printable = 1;
    for (int i = 0; i < 6; i++) if (s[i] < 32 || s[i] > 126) printable = 0;
    if (printable) printf("  \"%.40s\"", s);
    printf("\n");
}

static uint64_t shim(int slot, uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
    counts[slot]++;
    int show = dump_left > 0;
    if (show) {
        dump_left--;
        printf("    #%d(%#lx, %#lx, %#lx, %#lx, %#lx, %#lx)\n", slot, (unsigned long)a, (unsigned long)b,
               (unsigned long)c, (unsigned long)d, (unsigned long)e, (unsigned long)f);
        uint64_t v[6] = {a, b, c, d, e, f};
        for (int i = 0; i < 6; i++) {
            char t[8]; snprintf(t, sizeof t, "a%d", i);
            dump_mem(t, v[i]);
        }
    }
    uint64_t r = pass_real ? orig[slot](a, b, c, d, e, f) : 0;
    if (show) {
        printf("      -> %#lx\n", (unsigned long)r);
        uint64_t v[6] = {a, b, c, d, e, f};
        for (int i = 0; i < 6; i++) { char t[12]; snprintf(t, sizeof t, "after a%d", i); dump_mem(t, v[i]); }
    }
    return r;
}
#define SHIM(n) static uint64_t shim##n(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f) \
    { return shim(n, a, b, c, d, e, f); }
SHIM(1) SHIM(2) SHIM(3) SHIM(4) SHIM(5) SHIM(6)
static fn6 shims[8] = {0, shim1, shim2, shim3, shim4, shim5, shim6, 0};

static unsigned char *buf1, *buf2;
static size_t n1, n2, len1, len2;
static unsigned char snap0_1[16384], snap0_2[256], snapS_1[16384], snapS_2[256];

static void snap(unsigned char *d1, unsigned char *d2)
{
    memcpy(d1, buf1, len1);
    memcpy(d2, buf2, len2);
}

static void diff(const char *what, const unsigned char *o1, const unsigned char *o2)
{
    int k = 0;
    printf("  buffers vs start, %s:", what);
    for (size_t i = 0; i < len1; i++)
        if (buf1[i] != o1[i]) { if (k++ < 24) printf(" b1[%zu]=%02x(was %02x)", i, buf1[i], o1[i]); }
    int k1 = k;
    for (size_t i = 0; i < len2; i++)
        if (buf2[i] != o2[i]) { if (k++ < 48) printf(" b2[%zu]=%02x(was %02x)", i, buf2[i], o2[i]); }
    printf("  [%d bytes of buf1, %d of buf2 differ]\n", k1, k - k1);
}

__global__ void add(int *x) { x[threadIdx.x] += 1; }

/* ns per cudaGetDevice over 200,000 calls: what the runtime's reporting
 * costs by itself (the shims count and, in "not called", return at once) */
static double per_call(void)
{
    struct timespec a, b;
    int d;
    cudaGetDevice(&d);
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < 200000; i++)
        cudaGetDevice(&d);
    clock_gettime(CLOCK_MONOTONIC, &b);
    return ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 200000.0;
}

static void workload(const char *phase)
{
    memset(counts, 0, sizeof counts);
    int n = 0;
    cudaGetDeviceCount(&n);
    cudaGetDeviceCount(&n);
    int *d = 0;
    cudaError_t e1 = cudaMalloc(&d, 256);
    add<<<1, 32>>>(d);
    cudaError_t e2 = cudaDeviceSynchronize();
    cudaFree(d);
    printf("  phase %-28s slot calls #1..#6: %d %d %d %d %d %d   (devices %d, malloc %d, sync %d)\n", phase,
           counts[1], counts[2], counts[3], counts[4], counts[5], counts[6], n, (int)e1, (int)e2);
    printf("  phase %-28s cudaGetDevice %.1f ns\n", phase, per_call());
}

static int cupti_calls;
static void CUPTIAPI cb(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId id, const void *data)
{
    (void)ud;
    cupti_calls++;
    if (dom != CUPTI_CB_DOMAIN_RUNTIME_API || dump_left <= 0) return;
    const CUpti_CallbackData *c = (const CUpti_CallbackData *)data;
    printf("    CUPTI cb id %u site %d name %s @%p params %p ret %p symbol %p ctx %p ctxuid %u corrdata %p corr %u; cbdata %p\n",
           id, (int)c->callbackSite, c->functionName, (const void *)c->functionName, c->functionParams,
           c->functionReturnValue, (const void *)c->symbolName, (void *)c->context, c->contextUid,
           (void *)c->correlationData, c->correlationId, data);
    if (c->functionParams) dump_mem("params", (uint64_t)c->functionParams);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (pipe(pipefd)) return 1;
    cuInit(0);
    const void *t = 0;
    if (cuGetExportTable(&t, &HOOKS) != CUDA_SUCCESS || !t) { printf("no table\n"); return 1; }
    tab = (void **)t;
    size_t words = (size_t)tab[0] / 8;
    printf("TOOLS_RUNTIME_CALLBACK_HOOKS at %p: size %#lx (%zu words)\n", t, (unsigned long)(uintptr_t)tab[0], words);
    for (size_t i = 1; i < words && i < 8; i++) printf("  #%zu = %p\n", i, tab[i]);
    void *p = 0;
    size_t n = 0;
    ((void (*)(void **, size_t *))tab[2])(&p, &n);
    buf1 = (unsigned char *)p; n1 = n;
    ((void (*)(void **, size_t *))tab[6])(&p, &n);
    buf2 = (unsigned char *)p; n2 = n;
    len1 = n1 * 8 < sizeof snap0_1 ? n1 * 8 : sizeof snap0_1;
    while (len1 && !readable(buf1, len1)) len1 /= 2;
    len2 = n2 * 8 < sizeof snap0_2 ? n2 * 8 : sizeof snap0_2;
    while (len2 && !readable(buf2, len2)) len2 /= 2;
    printf("#2 -> %p, %zu (reading %zu bytes); #6 -> %p, %zu (reading %zu bytes)\n", buf1, n1, len1, buf2, n2, len2);
    snap(snap0_1, snap0_2);
    int nz = 0;
    for (size_t i = 0; i < len1; i++) nz += snap0_1[i] != 0;
    printf("  nonzero at start: buf1 %d bytes; buf2:", nz);
    for (size_t i = 0; i < len2; i++) printf(" %02x", snap0_2[i]);
    printf("\n");

    uintptr_t pg = (uintptr_t)tab & ~(uintptr_t)4095;
    if (mprotect((void *)pg, 8192, PROT_READ | PROT_WRITE)) { perror("mprotect"); return 1; }
    for (int i = 1; i <= 6 && (size_t)i < words; i++) { orig[i] = (fn6)tab[i]; tab[i] = (void *)shims[i]; }

    workload("no subscriber");

    CUpti_SubscriberHandle sub;
    dump_left = 0;
    memset(counts, 0, sizeof counts);
    printf("cuptiSubscribe %d\n", (int)cuptiSubscribe(&sub, (CUpti_CallbackFunc)cb, NULL));
    printf("cuptiEnableDomain(runtime) %d; slot calls while subscribing: %d %d %d %d %d %d\n",
           (int)cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API), counts[1], counts[2], counts[3], counts[4],
           counts[5], counts[6]);
    diff("runtime domain enabled", snap0_1, snap0_2);
    snap(snapS_1, snapS_2);
    dump_left = 8;
    int n0 = 0;
    cudaGetDeviceCount(&n0);
    dump_left = 0;
    workload("runtime domain enabled");
    printf("  CUPTI callbacks so far %d\n", cupti_calls);

    cuptiEnableDomain(0, sub, CUPTI_CB_DOMAIN_RUNTIME_API);
    diff("domain disabled", snap0_1, snap0_2);
    cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020);
    diff("only cudaGetDeviceCount (3)", snap0_1, snap0_2);
    workload("only cudaGetDeviceCount");
    cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020);
    diff("and cudaMalloc (20)", snap0_1, snap0_2);
    cuptiEnableCallback(0, sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020);
    cuptiEnableCallback(0, sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020);
    cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API);
    diff("driver domain only", snap0_1, snap0_2);
    cuptiEnableDomain(0, sub, CUPTI_CB_DOMAIN_DRIVER_API);
    printf("cuptiUnsubscribe %d\n", (int)cuptiUnsubscribe(sub));
    diff("unsubscribed", snap0_1, snap0_2);
    workload("unsubscribed");

    int before = cupti_calls;
    memcpy(buf1, snapS_1, len1);
    memcpy(buf2, snapS_2, len2);
    dump_left = 8;
    cudaGetDeviceCount(&n0);
    dump_left = 0;
    workload("forged, driver's #1 #4 called");
    pass_real = 0;
    dump_left = 4;
    cudaGetDeviceCount(&n0);
    dump_left = 0;
    workload("forged, #1 #4 not called");
    pass_real = 1;
    printf("  CUPTI callbacks while forged: %d\n", cupti_calls - before);
    memcpy(buf1, snap0_1, len1);
    memcpy(buf2, snap0_2, len2);
    workload("restored");
    return 0;
}
