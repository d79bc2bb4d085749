/* cutap as the NVTX injection library (`cutap trace` sets
 * NVTX_INJECTION64_PATH to libcutap.so).
 *
 * NVTX (nvtx3/nvToolsExt.h) is header-only: every object that includes it
 * (the program, libtorch, cuDNN, ...) has its own copy of the NVTX globals,
 * whose function pointers are null until its first NVTX call. That call
 * dlopens $NVTX_INJECTION64_PATH (libcutap.so, already loaded as the
 * preload: same object), calls our InitializeInjectionNvtx2 with that copy's
 * getExportTable, and we fill its CORE and CORE2 function tables
 * (nvtxDetail/nvtxImpl.h, nvtxEtiGetModuleFunctionTable). Each entry points
 * to cutap's generated wrapper of that NVTX function (layer nvtx, ids
 * CUTAP_ID_nvtx*): the calls go through the normal dispatch, so the recorder
 * and every client see them, with their string arguments captured.
 *
 * The "real" functions behind those wrappers are cutap's own (there is no
 * NVTX library to call on): push/pop keep a per-thread, per-domain depth
 * and return NVTX's values (push: the 0-based level of the range started;
 * pop: the level of the range ended, -1 when none is open), RangeStart
 * returns a unique increasing id, DomainCreate, RegisterString and
 * ResourceCreate unique handles, the rest does nothing. They are installed
 * with cutap_lib_install for every id of the layer.
 *
 * Messages of the Ex variants: the recorder copies the 48-byte
 * nvtxEventAttributes_t, whose message is a pointer into the traced
 * process, useless to a reader. So the Ex entries of the table are small
 * functions here that turn an ASCII message into a call whose string is
 * captured:
 *   nvtxMarkEx / nvtxRangeStartEx / nvtxRangePushEx with an ASCII message
 *     -> a call of the ...A wrapper with that message (what is recorded is
 *        nvtxMarkA / nvtxRangeStartA / nvtxRangePushA; color, category and
 *        payload are not kept);
 *   nvtxDomainMarkEx / nvtxDomainRangeStartEx / nvtxDomainRangePushEx with
 *     an ASCII message (no ...A variant exists) -> a call of the
 *     nvtxDomainRegisterStringA wrapper (domain, message), then the Ex
 *     wrapper with a copy of the attributes whose message is that
 *     registered string: the reader names the range by the registered
 *     string (docs/FORMAT.md, "NVTX ranges").
 * Other message types (registered strings, wide strings, none) go to the
 * Ex wrapper unchanged.
 *
 * The nvtx headers are not included: building cutap needs no CUDA toolkit.
 * The few types and constants used are declared below, each naming the
 * header of NVTX 3 (CUDA 13.0) it comes from. */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "resolve_internal.h"
#include "generated/nvtx_slots.h"
#include "cutap_cuda_abi.h"

/* --- from nvtx3/nvtxDetail/nvtxTypes.h ------------------------------------ */
typedef void (*cutap_nvtx_fn)(void);                 /* NvtxFunctionPointer */
typedef cutap_nvtx_fn **cutap_nvtx_table;            /* NvtxFunctionTable */
typedef const void *(*cutap_nvtx_get_export_table)(uint32_t exportTableId);   /* NvtxGetExportTableFunc_t */
enum {                                               /* NvtxExportTableID */
    CUTAP_NVTX_ETID_CALLBACKS = 1,
    CUTAP_NVTX_ETID_VERSIONINFO = 3,
};
enum {                                               /* NvtxCallbackModule */
    CUTAP_NVTX_CB_MODULE_CORE = 1,
    CUTAP_NVTX_CB_MODULE_CORE2 = 5,
};
struct cutap_nvtx_callbacks {                        /* NvtxExportTableCallbacks */
    size_t struct_size;
    int (*GetModuleFunctionTable)(int callback_module, cutap_nvtx_table *out_table, unsigned int *out_size);
};
struct cutap_nvtx_versioninfo {                      /* NvtxExportTableVersionInfo */
    size_t struct_size;
    uint32_t version;
    uint32_t reserved0;
    void (*SetInjectionNvtxVersion)(uint32_t version);
};
/* NvtxCallbackIdCore, NvtxCallbackIdCore2: index in the CORE and CORE2
 * tables -> id of our wrapper (src/resolve/generated/nvtx_slots.h, from the header's
 * enums by the rule in gen/specs/nvtx.py). */
static const uint16_t core_ids[] = {CUTAP_NVTX_CORE_IDS};
static const uint16_t core2_ids[] = {CUTAP_NVTX_CORE2_IDS};

/* nvtxEventAttributes_t: cutap_cuda_abi.h */

/* --- cutap's implementation (the "real" functions) ------------------------- */

/* Handles we give out: unique, never dereferenced by anyone. Small numbers
 * (not addresses), so that the per-thread depth below can index by domain. */
static _Atomic uint64_t next_domain = 1, next_string = 1, next_resource = 1, next_range = 1;

/* Push/pop depth per thread and domain: slot 0 is the default domain (NULL
 * handle, the non-domain calls), slot k domain handle k; domains beyond the
 * last slot share it (only the values returned to the program are affected,
 * the trace pairs pushes and pops itself). */
#define NVTX_DEPTH_SLOTS CUTAP_NVTX_DEPTH_SLOTS
#define nvtx_depth (cutap_tls.nvtx_depth)

static int32_t *depth_of(const void *domain)
{
    uintptr_t d = (uintptr_t)domain;
    return &nvtx_depth[d < NVTX_DEPTH_SLOTS ? d : NVTX_DEPTH_SLOTS - 1];
}

/* NVTX: push returns the 0-based level of the range it starts, pop the
 * level of the range it ends, or a negative value on error (nothing open). */
static int push_on(const void *domain)
{
    int32_t *d = depth_of(domain);
    return (*d)++;
}
static int pop_on(const void *domain)
{
    int32_t *d = depth_of(domain);
    return *d > 0 ? --*d : -1;
}

static int real_push_msg(const void *message) { (void)message; return push_on(NULL); }
static int real_pop(void) { return pop_on(NULL); }
static int real_domain_push(const void *domain, const void *attr) { (void)attr; return push_on(domain); }
static int real_domain_pop(const void *domain) { return pop_on(domain); }
static uint64_t real_start_msg(const void *message) { (void)message; return next_range++; }
static uint64_t real_domain_start(const void *domain, const void *attr)
{
    (void)domain;
    (void)attr;
    return next_range++;
}
static void *real_domain_create(const void *name) { (void)name; return (void *)(uintptr_t)next_domain++; }
static void *real_register_string(const void *domain, const void *s)
{
    (void)domain;
    (void)s;
    return (void *)(uintptr_t)next_string++;
}
static void *real_resource_create(const void *domain, const void *attr)
{
    (void)domain;
    (void)attr;
    return (void *)(uintptr_t)next_resource++;
}
/* Everything else: marks, ends, names, destroys, the init stubs. Called
 * through the wrappers' typed thunks with whatever arguments; on x86-64 a
 * function that reads none and returns 0 in rax serves every signature of
 * the layer (integer and pointer results only; void ones ignore it). */
static uint64_t real_nothing(void) { return 0; }

/* --- the Ex entries of the tables (see the top of this file) -------------- */

#define WRAPPER(id, type) ((type)cutap_static_wrapper(id))

static int ascii_message(const struct cutap_nvtx_attr *a)
{
    /* size: NVTX's versioning of the struct; a shorter one has no message */
    return a && a->size >= sizeof *a && a->messageType == CUTAP_NVTX_MESSAGE_TYPE_ASCII && a->message;
}

static void mark_ex(const struct cutap_nvtx_attr *a)
{
    if (ascii_message(a))
        WRAPPER(CUTAP_ID_nvtxMarkA, void (*)(const void *))(a->message);
    else
        WRAPPER(CUTAP_ID_nvtxMarkEx, void (*)(const void *))(a);
}
static uint64_t range_start_ex(const struct cutap_nvtx_attr *a)
{
    if (ascii_message(a))
        return WRAPPER(CUTAP_ID_nvtxRangeStartA, uint64_t (*)(const void *))(a->message);
    return WRAPPER(CUTAP_ID_nvtxRangeStartEx, uint64_t (*)(const void *))(a);
}
static int range_push_ex(const struct cutap_nvtx_attr *a)
{
    if (ascii_message(a))
        return WRAPPER(CUTAP_ID_nvtxRangePushA, int (*)(const void *))(a->message);
    return WRAPPER(CUTAP_ID_nvtxRangePushEx, int (*)(const void *))(a);
}

/* A domain call's ASCII message as a registered string (recorded with its
 * text by the RegisterStringA call): *copy is a then. */
static const struct cutap_nvtx_attr *registered(const void *domain, const struct cutap_nvtx_attr *a,
                                                struct cutap_nvtx_attr *copy)
{
    if (!ascii_message(a))
        return a;
    *copy = *a;
    copy->messageType = CUTAP_NVTX_MESSAGE_TYPE_REGISTERED;
    copy->message = WRAPPER(CUTAP_ID_nvtxDomainRegisterStringA, void *(*)(const void *, const void *))(domain,
                                                                                                    a->message);
    return copy;
}
static void domain_mark_ex(const void *domain, const struct cutap_nvtx_attr *a)
{
    struct cutap_nvtx_attr copy;
    WRAPPER(CUTAP_ID_nvtxDomainMarkEx, void (*)(const void *, const void *))(domain, registered(domain, a, &copy));
}
static uint64_t domain_range_start_ex(const void *domain, const struct cutap_nvtx_attr *a)
{
    struct cutap_nvtx_attr copy;
    return WRAPPER(CUTAP_ID_nvtxDomainRangeStartEx, uint64_t (*)(const void *, const void *))(
        domain, registered(domain, a, &copy));
}
static int domain_range_push_ex(const void *domain, const struct cutap_nvtx_attr *a)
{
    struct cutap_nvtx_attr copy;
    return WRAPPER(CUTAP_ID_nvtxDomainRangePushEx, int (*)(const void *, const void *))(domain,
                                                                                        registered(domain, a, &copy));
}

/* What a table entry points to: the Ex converters above, else the wrapper. */
static cutap_nvtx_fn entry_for(uint32_t id)
{
    switch (id) {
    case CUTAP_ID_nvtxMarkEx: return (cutap_nvtx_fn)mark_ex;
    case CUTAP_ID_nvtxRangeStartEx: return (cutap_nvtx_fn)range_start_ex;
    case CUTAP_ID_nvtxRangePushEx: return (cutap_nvtx_fn)range_push_ex;
    case CUTAP_ID_nvtxDomainMarkEx: return (cutap_nvtx_fn)domain_mark_ex;
    case CUTAP_ID_nvtxDomainRangeStartEx: return (cutap_nvtx_fn)domain_range_start_ex;
    case CUTAP_ID_nvtxDomainRangePushEx: return (cutap_nvtx_fn)domain_range_push_ex;
    default: return (cutap_nvtx_fn)cutap_static_wrapper(id);
    }
}

/* --- installing ------------------------------------------------------------ */

/* Once per process (pthread_once: a second NVTX copy initialising on
 * another thread waits until the layer is ready, so no wrapper is ever
 * called before its real function is there). */
static void install_reals(void)
{
    const struct cutap_layer_desc *d = &cutap_layers[CUTAP_LAYER_NVTX - CUTAP_FIRST_LIB_LAYER];
    static void *reals[CUTAP_STATIC_COUNT - CUTAP_DRIVER_COUNT];
    if (d->count > sizeof reals / sizeof *reals)
        return;
    for (uint32_t i = 0; i < d->count; i++)
        reals[i] = (void *)real_nothing;
#define REAL(name, fn)                                                                                    \
    do {                                                                                                  \
        if (CUTAP_ID_##name >= d->first && CUTAP_ID_##name < d->first + d->count)                         \
            reals[CUTAP_ID_##name - d->first] = (void *)(fn);                                             \
    } while (0)
    REAL(nvtxRangePushA, real_push_msg);
    REAL(nvtxRangePushW, real_push_msg);
    REAL(nvtxRangePushEx, real_push_msg);
    REAL(nvtxRangePop, real_pop);
    REAL(nvtxDomainRangePushEx, real_domain_push);
    REAL(nvtxDomainRangePop, real_domain_pop);
    REAL(nvtxRangeStartA, real_start_msg);
    REAL(nvtxRangeStartW, real_start_msg);
    REAL(nvtxRangeStartEx, real_start_msg);
    REAL(nvtxDomainRangeStartEx, real_domain_start);
    REAL(nvtxDomainCreateA, real_domain_create);
    REAL(nvtxDomainCreateW, real_domain_create);
    REAL(nvtxDomainRegisterStringA, real_register_string);
    REAL(nvtxDomainRegisterStringW, real_register_string);
    REAL(nvtxDomainResourceCreate, real_resource_create);
#undef REAL
    cutap_lib_install(CUTAP_LAYER_NVTX, reals);
}

/* Fills one module's table: entries 1 .. size-1 (0 is unused), each a
 * pointer to that NVTX copy's function pointer. */
static int fill(const struct cutap_nvtx_callbacks *cb, int module, const uint16_t *ids, unsigned nids)
{
    cutap_nvtx_table table = NULL;
    unsigned size = 0;
    if (!cb->GetModuleFunctionTable(module, &table, &size) || !table)
        return 0;
    for (unsigned i = 1; i < size && i < nids; i++)
        if (table[i] && ids[i])
            *table[i] = entry_for(ids[i]);
    return 1;
}

/* The injection entry point NVTX looks up in NVTX_INJECTION64_PATH; called
 * once by each copy of NVTX in the process. Returns 1 when attached (0 makes
 * that copy unload us, which for the preloaded object only drops a
 * reference, and turn its calls into no-ops). */
int InitializeInjectionNvtx2(cutap_nvtx_get_export_table get)
{
    cutap_init();   /* NVTX may be first called from a constructor that runs before ours */
    if (!get)
        return 0;
    const struct cutap_nvtx_callbacks *cb = get(CUTAP_NVTX_ETID_CALLBACKS);
    if (!cb || cb->struct_size < sizeof *cb || !cb->GetModuleFunctionTable)
        return 0;
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install_reals);
    int core = fill(cb, CUTAP_NVTX_CB_MODULE_CORE, core_ids, sizeof core_ids / sizeof *core_ids);
    int core2 = fill(cb, CUTAP_NVTX_CB_MODULE_CORE2, core2_ids, sizeof core2_ids / sizeof *core2_ids);
    const struct cutap_nvtx_versioninfo *vi = get(CUTAP_NVTX_ETID_VERSIONINFO);
    if (vi && vi->struct_size >= sizeof *vi && vi->SetInjectionNvtxVersion)
        vi->SetInjectionNvtxVersion(CUTAP_NVTX_VERSION);
    cutap_log_debug("NVTX attached:%s%s", core ? " CORE" : "", core2 ? " CORE2" : "");
    return core || core2;
}
