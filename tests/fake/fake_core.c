/* Behaviour of the fake driver; see fake_internal.h. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake_internal.h"

#define NIDS (CUTAP_DRIVER_COUNT + 16)
#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_NOT_FOUND 500

static _Atomic uint64_t counts[NIDS];
static _Atomic int forced[NIDS];
static __thread struct {
    uint32_t id;
    unsigned n;
    uint64_t a[16];
    int aligned;
} last;

typedef uint64_t (*special_fn)(const uint64_t *a);
static special_fn special[NIDS];

/* FAKE_SLOW=NAME[:NS]: every call of NAME busy-waits NS ns (default 2000)
 * before it returns: a call slow enough for cutap stat to time them all. */
static int slow_id = -1;
static uint64_t slow_ns;

static uint64_t mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void record(uint32_t id, const uint64_t *a, unsigned n)
{
    atomic_fetch_add(&counts[id], 1);
    last.id = id;
    last.n = n;
    memcpy(last.a, a, n * sizeof *a);
    /* A callee runs with (rsp + 8) % 16 == 0 at entry; the frame address
     * (rbp after the prologue) is then 16-aligned. */
    last.aligned = ((uintptr_t)__builtin_frame_address(0) & 15) == 0;
}

uint64_t fake_call(uint32_t id, const uint64_t *a, unsigned n)
{
    record(id, a, n);
    if ((int)id == slow_id)
        for (uint64_t until = mono_ns() + slow_ns; mono_ns() < until;)
            ;
    int f = atomic_load(&forced[id]);
    if (f)
        return (uint64_t)(uint32_t)f;
    if (special[id])
        return special[id](a);
    if (n == 10 && id < CUTAP_DRIVER_COUNT && !strncmp(fake_names[id], "cuMemGetAttribute", 17))
        return (uint32_t)(a[0] ^ a[7]);
    return CUDA_SUCCESS;
}

uint64_t fake_count(uint32_t id) { return id < NIDS ? atomic_load(&counts[id]) : 0; }
void fake_set_result(uint32_t id, int result) { if (id < NIDS) atomic_store(&forced[id], result); }
int fake_is_special(uint32_t id) { return id < NIDS && special[id] != NULL; }
int fake_last_stack_aligned(void) { return last.aligned; }

static int id_of(const char *name)
{
    for (int i = 0; i < CUTAP_DRIVER_COUNT; i++)
        if (!strcmp(fake_names[i], name))
            return i;
    if (!strcmp(name, "cuFutureFunction"))
        return FAKE_ID_FUTURE;
    return -1;
}

uint64_t fake_count_name(const char *name)
{
    int id = id_of(name);
    return id < 0 ? 0 : fake_count((uint32_t)id);
}

unsigned fake_last(uint32_t *id, uint64_t *args)
{
    *id = last.id;
    memcpy(args, last.a, last.n * sizeof *args);
    return last.n;
}

/* The fake's own address of an export: what the real driver would hand out
 * (this library is linked -Bsymbolic, so these are never interposed). */
void *fake_real_address(const char *name)
{
    int id = id_of(name);
    if (id < 0)
        return NULL;
    return fake_addresses[id];
}

/* --- entry points with behaviour --- */
#define P(i, T) ((T)(uintptr_t)a[i])

static uint64_t do_init(const uint64_t *a) { (void)a; return CUDA_SUCCESS; }

static uint64_t do_driver_version(const uint64_t *a)
{
    if (!P(0, int *))
        return CUDA_ERROR_INVALID_VALUE;
    *P(0, int *) = 13000;
    return CUDA_SUCCESS;
}

static uint64_t do_ctx_get_current(const uint64_t *a)
{
    if (!P(0, void **))
        return CUDA_ERROR_INVALID_VALUE;
    *P(0, void **) = (void *)0xc0ffee00;
    return CUDA_SUCCESS;
}

static uint64_t do_device_get_count(const uint64_t *a)
{
    if (!P(0, int *))
        return CUDA_ERROR_INVALID_VALUE;
    *P(0, int *) = 1;
    return CUDA_SUCCESS;
}

static _Atomic uint64_t next_dptr = 0x7f0000000000ULL;
static uint64_t do_mem_alloc(const uint64_t *a)
{
    if (!P(0, uint64_t *) || !a[1])
        return CUDA_ERROR_INVALID_VALUE;
    *P(0, uint64_t *) = atomic_fetch_add(&next_dptr, (a[1] + 255) & ~255ULL);
    return CUDA_SUCCESS;
}

static uint64_t do_error_name(const uint64_t *a)
{
    if (!P(1, const char **))
        return CUDA_ERROR_INVALID_VALUE;
    switch ((int)a[0]) {
    case 0: *P(1, const char **) = "CUDA_SUCCESS"; break;
    case 1: *P(1, const char **) = "CUDA_ERROR_INVALID_VALUE"; break;
    case 2: *P(1, const char **) = "CUDA_ERROR_OUT_OF_MEMORY"; break;
    default: *P(1, const char **) = NULL; return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

/* Kernels: cuModuleGetFunction hands out a handle per name, cuFuncGetName
 * (and cuKernelGetName) gives the name back, as the real driver does. */
#define FAKE_FUNCS 64
static struct {
    uint64_t handle;
    char name[128];
} funcs[FAKE_FUNCS];
static _Atomic unsigned nfuncs;

static uint64_t do_module_get_function(const uint64_t *a)
{
    const char *name = P(2, const char *);
    if (!P(0, uint64_t *) || !name)
        return CUDA_ERROR_INVALID_VALUE;
    unsigned n = atomic_load(&nfuncs);
    for (unsigned i = 0; i < n; i++)
        if (!strcmp(funcs[i].name, name)) {
            *P(0, uint64_t *) = funcs[i].handle;
            return CUDA_SUCCESS;
        }
    if (n >= FAKE_FUNCS)
        return CUDA_ERROR_NOT_FOUND;
    funcs[n].handle = 0xf0000000ULL + 0x100ULL * n;
    snprintf(funcs[n].name, sizeof funcs[n].name, "%s", name);
    atomic_store(&nfuncs, n + 1);
    *P(0, uint64_t *) = funcs[n].handle;
    return CUDA_SUCCESS;
}

static uint64_t do_func_get_name(const uint64_t *a)
{
    if (!P(0, const char **))
        return CUDA_ERROR_INVALID_VALUE;
    unsigned n = atomic_load(&nfuncs);
    for (unsigned i = 0; i < n; i++)
        if (funcs[i].handle == a[1]) {
            *P(0, const char **) = funcs[i].name;
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_VALUE;
}

/* A driver function that itself makes a driver call through the global
 * scope, as the runtime does above the driver: it nests. */
static uint64_t do_profiler_start(const uint64_t *a)
{
    (void)a;
    int (*ver)(int *) = (int (*)(int *))dlsym(RTLD_DEFAULT, "cuDriverGetVersion");
    int v = 0;
    return ver ? (uint64_t)ver(&v) : CUDA_ERROR_NOT_FOUND;
}

/* cuCtxSynchronize never returns when FAKE_SYNC_DIES is set: the process
 * kills itself inside the call (a call in progress when a process dies). */
static uint64_t do_ctx_synchronize(const uint64_t *a)
{
    (void)a;
    if (getenv("FAKE_SYNC_DIES"))
        raise(SIGKILL);
    return CUDA_SUCCESS;
}

/* cuGetProcAddress: the highest version at or below the one asked for; with
 * CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM (2) the per-thread variant
 * when one exists at that version. */
#define EXTRA_PROCS 1
static const struct fake_procaddr extra[EXTRA_PROCS] = {{"cuFutureFunction", 13010, 0, "cuFutureFunction"}};

static int proc_lookup(const char *sym, int version, uint64_t flags, void **pfn, int *status)
{
    const struct fake_procaddr *best = NULL, *best_fl = NULL;
    int any = 0;
    for (unsigned i = 0; i < fake_procaddr_count + EXTRA_PROCS; i++) {
        const struct fake_procaddr *e = i < fake_procaddr_count ? &fake_procaddr_table[i] : &extra[i - fake_procaddr_count];
        if (strcmp(e->base, sym))
            continue;
        any = 1;
        if (e->version > version)
            continue;
        if (!e->flavour && (!best || e->version > best->version))
            best = e;
        if (e->flavour && (!best_fl || e->version > best_fl->version))
            best_fl = e;
    }
    if ((flags & 2) && best_fl && (!best || best_fl->version >= best->version))
        best = best_fl;
    *pfn = NULL;
    if (!best) {
        *status = any ? 2 : 1;   /* VERSION_NOT_SUFFICIENT : SYMBOL_NOT_FOUND */
        return CUDA_ERROR_NOT_FOUND;
    }
    *pfn = fake_real_address(best->export_name);
    *status = 0;
    return CUDA_SUCCESS;
}

static uint64_t do_get_proc_address_v2(const uint64_t *a)
{
    if (!P(0, const char *) || !P(1, void **))
        return CUDA_ERROR_INVALID_VALUE;
    int st;
    int rc = proc_lookup(P(0, const char *), (int)a[2], a[3], P(1, void **), &st);
    if (P(4, int *))
        *P(4, int *) = st;
    return (uint64_t)rc;
}

static uint64_t do_get_proc_address(const uint64_t *a)
{
    if (!P(0, const char *) || !P(1, void **))
        return CUDA_ERROR_INVALID_VALUE;
    int st;
    return (uint64_t)proc_lookup(P(0, const char *), (int)a[2], a[3], P(1, void **), &st);
}

/* Export tables: one with a size word, one without, one under the real
 * CUDART_INTERFACE UUID (to check that known names are used). */
static int slot1(int x) { uint64_t a[1] = {(uint64_t)x}; record(FAKE_ID_SLOT_BASE + 0, a, 1); return x + 1; }
static uint64_t slot2(FAKE_UNTYPED_PARAMS)
{
    FAKE_UNTYPED_WORDS(a);
    record(FAKE_ID_SLOT_BASE + 1, a, 10);
    return u0 + u1 + u2 + u3 + u4 + u5 + u6 + u7 + (uint64_t)(int64_t)(d0 * d1);
}
static double slot3(double x) { uint64_t a[1] = {fake_d2w(x)}; record(FAKE_ID_SLOT_BASE + 2, a, 1); return x * 2.0; }
static int nslot0(int x) { uint64_t a[1] = {(uint64_t)x}; record(FAKE_ID_SLOT_BASE + 3, a, 1); return x * 2; }
static int nslot1(void) { uint64_t a[1] = {0}; record(FAKE_ID_SLOT_BASE + 4, a, 0); return 11; }

static const uintptr_t table_sized[] = {4 * sizeof(uintptr_t), (uintptr_t)slot1, (uintptr_t)slot2, (uintptr_t)slot3};
static const uintptr_t table_nosize[] = {(uintptr_t)nslot0, (uintptr_t)nslot1};
static const uintptr_t table_cudart[] = {2 * sizeof(uintptr_t), (uintptr_t)slot1};
static const unsigned char uuid_sized[16] = {0xfa, 0x4e, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01};
static const unsigned char uuid_nosize[16] = {0xfa, 0x4e, 0x00, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02};
static const unsigned char uuid_cudart[16] = {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9};

/* TOOLS_RUNTIME_CALLBACK_HOOKS, as the real driver's is used under CUPTI
 * (docs/HIDDEN_API.md): a runtime copy calls slot 1 at the entry and at
 * the exit of each of its API calls, and CUPTI calls its subscriber from
 * inside it. Here slot 1 hands the report to the fake libcupti's test
 * hook when a tool loaded it (its signature is the fake's own; the real
 * slot's is not public). */
typedef int (*cupti_hook_fn)(int site, uint32_t cbid, const char *name, const void *params, void *ret, uint64_t *corr);
static int tools_report(int site, uint32_t cbid, const char *name, const void *params, void *ret, uint64_t *corr)
{
    static cupti_hook_fn _Atomic hook;
    cupti_hook_fn h = atomic_load(&hook);
    if (!h) {
        void *lib = dlopen("libcupti.so.13", RTLD_NOW | RTLD_NOLOAD);   /* loaded by a tool, or not at all */
        if (!lib || !(h = (cupti_hook_fn)dlsym(lib, "fake_cupti_runtime_api")))
            return 0;
        atomic_store(&hook, h);
    }
    return h(site, cbid, name, params, ret, corr);
}
static const uintptr_t table_tools[] = {2 * sizeof(uintptr_t), (uintptr_t)tools_report};
static const unsigned char uuid_tools[16] = {0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66};

static uint64_t do_export_table(const uint64_t *a)
{
    const void **pp = P(0, const void **);
    const unsigned char *u = P(1, const unsigned char *);
    if (!pp || !u)
        return CUDA_ERROR_INVALID_VALUE;
    if (!memcmp(u, uuid_sized, 16))
        *pp = table_sized;
    else if (!memcmp(u, uuid_nosize, 16))
        *pp = table_nosize;
    else if (!memcmp(u, uuid_cudart, 16))
        *pp = table_cudart;
    else if (!memcmp(u, uuid_tools, 16))
        *pp = table_tools;
    else {
        *pp = NULL;
        return CUDA_ERROR_NOT_FOUND;
    }
    return CUDA_SUCCESS;
}

/* Not in cutap's tables: an entry point "added by a newer driver". */
uint64_t cuFutureFunction(FAKE_UNTYPED_PARAMS)
{
    FAKE_UNTYPED_WORDS(a);
    record(FAKE_ID_FUTURE, a, 10);
    return u0 * 3 + u7 + (uint64_t)d1;
}

__attribute__((constructor)) static void setup(void)
{
    const char *slow = getenv("FAKE_SLOW");
    if (slow && *slow) {
        char name[128];
        snprintf(name, sizeof name, "%s", slow);
        char *colon = strchr(name, ':');
        slow_ns = colon ? strtoull(colon + 1, NULL, 10) : 2000;
        if (colon)
            *colon = 0;
        slow_id = id_of(name);
        if (slow_id < 0)
            fprintf(stderr, "fake libcuda: FAKE_SLOW=%s: no such entry point\n", slow);
    }
    special[CUTAP_ID_cuInit] = do_init;
    special[CUTAP_ID_cuDriverGetVersion] = do_driver_version;
    special[CUTAP_ID_cuCtxGetCurrent] = do_ctx_get_current;
    special[CUTAP_ID_cuDeviceGetCount] = do_device_get_count;
    special[CUTAP_ID_cuMemAlloc_v2] = do_mem_alloc;
    special[CUTAP_ID_cuGetErrorName] = do_error_name;
    special[CUTAP_ID_cuProfilerStart] = do_profiler_start;
    special[CUTAP_ID_cuCtxSynchronize] = do_ctx_synchronize;
    special[CUTAP_ID_cuGetProcAddress] = do_get_proc_address;
    special[CUTAP_ID_cuGetProcAddress_v2] = do_get_proc_address_v2;
    special[CUTAP_ID_cuGetExportTable] = do_export_table;
    special[CUTAP_ID_cuModuleGetFunction] = do_module_get_function;
    special[CUTAP_ID_cuFuncGetName] = do_func_get_name;
    special[CUTAP_ID_cuKernelGetName] = do_func_get_name;
}
