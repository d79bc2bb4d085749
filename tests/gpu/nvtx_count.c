/* An NVTX injection library of its own, independent of cutap: the referee
 * of which NVTX push/pop ranges a program leaves open (issue #16: NCCL's
 * ncclCommInitRankConfig range shown unfinished). Loaded by NVTX from
 * NVTX_INJECTION64_PATH, it counts per thread the pushes (RangePushA/Ex,
 * DomainRangePushEx) and pops (RangePop, DomainRangePop), keeps a stack of
 * the pushed names (registered strings by their text), and at exit prints
 * per thread: pushes, pops, and the names still open.
 *   gcc -O2 -shared -fPIC -I/usr/local/cuda/include tests/gpu/nvtx_count.c -o libnvtx_count.so -lpthread */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <nvtx3/nvToolsExt.h>

#define MAXT 256
#define DEPTH 64
struct th {
    int tid, pushes, pops, depth;
    const char *stack[DEPTH];
};
static struct th threads[MAXT];
static int nthreads;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static __thread struct th *me;
#define MAXS 4096
static const char *strings[MAXS];   /* registered string handle - 1 -> text */
static int nstrings;

static struct th *self(void)
{
    if (!me) {
        pthread_mutex_lock(&lock);
        if (nthreads < MAXT) {
            me = &threads[nthreads++];
            me->tid = (int)syscall(SYS_gettid);
        }
        pthread_mutex_unlock(&lock);
    }
    return me;
}

static void push(const char *name)
{
    struct th *t = self();
    if (!t)
        return;
    t->pushes++;
    if (t->depth < DEPTH)
        t->stack[t->depth] = name;
    t->depth++;
}

static void pop(void)
{
    struct th *t = self();
    if (!t)
        return;
    t->pops++;
    if (t->depth > 0)
        t->depth--;
}

static const char *attr_name(const nvtxEventAttributes_t *a)
{
    if (!a)
        return "?";
    if (a->messageType == NVTX_MESSAGE_TYPE_ASCII)
        return a->message.ascii ? strdup(a->message.ascii) : "?";
    if (a->messageType == NVTX_MESSAGE_TYPE_REGISTERED) {
        uintptr_t h = (uintptr_t)a->message.registered;
        return h && h <= (uintptr_t)nstrings ? strings[h - 1] : "(registered)";
    }
    return "(other)";
}

static int range_push_a(const char *m) { push(m ? strdup(m) : "?"); return 0; }
static int range_push_ex(const nvtxEventAttributes_t *a) { push(attr_name(a)); return 0; }
static int range_pop(void) { pop(); return 0; }
static int domain_push_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) { (void)d; push(attr_name(a)); return 0; }
static int domain_pop(nvtxDomainHandle_t d) { (void)d; pop(); return 0; }
static nvtxStringHandle_t register_string(nvtxDomainHandle_t d, const char *s)
{
    (void)d;
    pthread_mutex_lock(&lock);
    uintptr_t h = 0;
    if (nstrings < MAXS) {
        strings[nstrings++] = s ? strdup(s) : "?";
        h = (uintptr_t)nstrings;
    }
    pthread_mutex_unlock(&lock);
    return (nvtxStringHandle_t)h;
}
static nvtxDomainHandle_t domain_create(const char *n) { static uintptr_t next = 1; (void)n; return (nvtxDomainHandle_t)next++; }

static void report(void)
{
    for (int i = 0; i < nthreads; i++) {
        struct th *t = &threads[i];
        fprintf(stderr, "nvtx_count: tid %d pushes %d pops %d open %d:", t->tid, t->pushes, t->pops, t->depth);
        for (int k = 0; k < t->depth && k < DEPTH; k++)
            fprintf(stderr, " %s", t->stack[k]);
        fprintf(stderr, "\n");
    }
}

static void set(NvtxFunctionTable table, unsigned size, unsigned cbid, NvtxFunctionPointer fn)
{
    if (cbid < size && table[cbid])
        *table[cbid] = fn;
}

int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get)
{
    const NvtxExportTableCallbacks *cb = (const NvtxExportTableCallbacks *)get(NVTX_ETID_CALLBACKS);
    NvtxFunctionTable t;
    unsigned n;
    if (!cb || !cb->GetModuleFunctionTable)
        return 0;
    if (cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &t, &n)) {
        set(t, n, NVTX_CBID_CORE_RangePushA, (NvtxFunctionPointer)range_push_a);
        set(t, n, NVTX_CBID_CORE_RangePushEx, (NvtxFunctionPointer)range_push_ex);
        set(t, n, NVTX_CBID_CORE_RangePop, (NvtxFunctionPointer)range_pop);
    }
    if (cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &t, &n)) {
        set(t, n, NVTX_CBID_CORE2_DomainRangePushEx, (NvtxFunctionPointer)domain_push_ex);
        set(t, n, NVTX_CBID_CORE2_DomainRangePop, (NvtxFunctionPointer)domain_pop);
        set(t, n, NVTX_CBID_CORE2_DomainRegisterStringA, (NvtxFunctionPointer)register_string);
        set(t, n, NVTX_CBID_CORE2_DomainCreateA, (NvtxFunctionPointer)domain_create);
    }
    atexit(report);
    return 1;
}
