/* What the core (src/core: dispatch, ids, init, objects, the stat and log
 * clients) offers the rest of the library: the layers above it (record,
 * resolve) and the generated wrappers. Nothing here is exported
 * (-fvisibility=hidden).
 *
 * The imports go one way: common <- arch <- front <- core <- record,
 * resolve <- generated (docs/ARCHITECTURE.md). The core includes nothing
 * of the layers above it. What it needs from them is declared here, in the
 * last two sections, with its owner named: the tables the generator
 * writes, and the functions of record and resolve the core calls (its
 * init starts them; its dispatch asks resolve whether a call can be made
 * and hands the recorder's calls to its fused path). The owner's file
 * includes this header, so the compiler checks that both agree. */
#ifndef CUTAP_CORE_INTERNAL_H
#define CUTAP_CORE_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "arch_internal.h"
#include "cutap.h"
#include "cutap_base.h"
#include "front_internal.h"
#include "generated/cutap_ids.h"

/* Inside cutap only (the public header has no numbers that change between
 * builds): upper bound of call ids, static and dynamic together; client
 * slots, built-in clients included. */
#define CUTAP_MAX_IDS 16384
#define CUTAP_MAX_CLIENTS 8

/* A call with the clients' scratch words: what cutap_call_t handed to a
 * callback is the first member of. */
struct cutap_icall {
    cutap_call_t c;
    uint64_t scratch[CUTAP_MAX_CLIENTS];
};

/* Typed slow paths (generated *_wrappers.c), entered from the exported
 * assembly fronts (src/generated/fronts.S). */
#define CUTAP_SLOW __attribute__((visibility("hidden"), used))

/* CUresult values cutap itself produces. */
#define CUTAP_CUDA_SUCCESS 0
#define CUTAP_CUDA_ERROR_NOT_FOUND 500

/* Calls a real typed function with the argument words (generated). */
typedef uint64_t (*cutap_thunk_t)(void *fn, uint64_t *args);

/* --- core/dispatch.c ----------------------------------------------------- */

uint64_t cutap_dispatch(uint32_t id, uint64_t *args, cutap_thunk_t thunk);
extern _Atomic uint8_t cutap_mask[CUTAP_MAX_IDS];    /* bit per client */
/* (core/refresh.c) */
int cutap_refresh_id(uint32_t id);   /* 0 refreshed; 1 left to the lock's holder: this is a signal
                                        handler on the thread that holds it (cutap_refresh_fallback) */
void *cutap_refresh_fallback(uint32_t id);
/* Post-call fixups of special entry points (resolve/): run after the real
 * call and before post callbacks, so clients see what the caller gets. */
typedef void (*cutap_fixup_fn)(cutap_call_t *call);
extern cutap_fixup_fn cutap_fixup[CUTAP_STATIC_COUNT];
/* In a fixup: fn runs with call as the thread's current call, so the calls
 * fn makes nest in it (its time, read after the fixups, includes them). */
void cutap_run_inside(cutap_call_t *call, void (*fn)(void));
/* Dynamic ids: a client that is not enabled for CUTAP_ID_ALL may still want
 * some of the ids made later (the recorder's -e filter): want() is asked,
 * under cutap's registration lock, for each new id. */
void cutap_dispatch_new_id(uint32_t id, const char *name, int layer);
/* The trampoline stub of an untyped static id (driver_untyped.S,
 * lib_untyped.S: 16 bytes each, in context order); NULL if typed. */
void *cutap_untyped_stub(uint32_t id);
void *cutap_core_entry(uint32_t id);   /* for the front (struct cutap_core) */
/* What a call of id returns when its function is missing or its layer has
 * no library: CUDA_ERROR_NOT_FOUND for the driver, the layer's
 * "unavailable" status, 0 for a layer function without a status. */
uint64_t cutap_missing_status(uint32_t id);
/* When the thread's innermost call is a framed export-table slot call (the
 * driver's tools hook, from inside which CUPTI reports a runtime call):
 * the address that call returns to, in the code that made it; else NULL. */
void *cutap_hook_caller(void);
/* The recorder's client (src/record sets it when it registers), -1 while
 * none: the layers that must keep a call out of the trace ask it. */
extern int cutap_recorder_client;

/* Calls cutap learns of at entry and exit but does not make itself
 * (resolve/cupti_rt.c): enter runs the pre callbacks and makes the call the
 * thread's current one, so calls made inside nest under it; exit, with the
 * result, restores and runs the post callbacks. Strictly nested per thread. */
struct cutap_external {
    struct cutap_icall call;
    uint8_t mask;
    uint8_t hook;     /* entered from inside an export-table hook call */
};
/* origin: an address in the code of the copy that reported the call (fn
 * of a CUTAP_CALL_REPORTED call), or NULL. */
void cutap_external_enter(struct cutap_external *x, uint32_t id, uint64_t *args, uint32_t nargs, uint16_t flags,
                          void *origin);
void cutap_external_exit(struct cutap_external *x, uint64_t result);
/* The same for calls cutap makes itself on the caller's behalf (the ioctl
 * layer's libc wrappers): a pre callback may skip them (returns 1; the
 * caller gets x->call.c.result). */
int cutap_native_enter(struct cutap_external *x, uint32_t id, uint64_t *args, uint32_t nargs, void *fn);
void cutap_native_exit(struct cutap_external *x, uint64_t result);

/* The parameter block of an RM control or allocation that the ioctl layer
 * wants recorded with its call (issue #32, CUTAP_IOCTL_PARAMS): pointed to
 * by cutap_tls.ioc_blk around cutap_native_enter/exit of that call. The
 * recorder reserves room for it right after the call's record and copies
 * the bytes itself, without ever faulting (process_vm_readv): before the
 * call in its pre callback, after it in its post callback when `after`
 * is set (the kernel accepted the ioctl). */
struct cutap_ioc_blk {
    const uint64_t *args;   /* the call's argument words: which call it is for */
    uint64_t ptr;           /* the block, in the program */
    uint32_t size, what;    /* paramsSize; the command or class */
    uint8_t kind, after;    /* CUTAP_PARAMS_CONTROL/ALLOC; read it after the call */
    void *rec;              /* the recorder's: the meta record it reserved, or NULL */
};
/* Reads n bytes at src without ever faulting (process_vm_readv on
 * ourselves): 0, or -1 when they are not all readable or the system
 * refuses the call (resolve/ioctl.c). errno is kept. */
int cutap_ioc_safe_read(void *dst, const void *src, size_t n);

/* --- core/ids.c: dynamic ids ----------------------------------------------- */

uint32_t cutap_id_new(const char *name, int layer, struct cutap_tramp_ctx **ctx_out);
/* A dynamic id with a signature of cutap's own (the ioctl layer): args
 * must live as long as the process. CUTAP_DYN_WORDS_AFTER: the callee
 * fills some argument words after the call (decoded from what the kernel
 * accepted), so the recorder copies the words again when the call ends;
 * CUTAP_DYN_STATUS: the result is a status (0 success), counted as an
 * error otherwise. */
enum { CUTAP_DYN_WORDS_AFTER = 1, CUTAP_DYN_STATUS = 2 };
uint32_t cutap_id_new_typed(const char *name, int layer, unsigned nargs, const cutap_arg_info_t *args, unsigned flags);
unsigned cutap_id_flags(uint32_t id);   /* CUTAP_DYN_* of a dynamic id; 0 for the others */
struct cutap_tramp_ctx *cutap_id_ctx(uint32_t id);

/* --- core/init.c, log.c, output.c, stat.c -------------------------------- */

void cutap_init(void);
extern int cutap_debug;
void cutap_log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cutap_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Set once the recorder runs (CUTAP_TRACE/CUTAP_COUNT accepted): from then
 * on warnings never go to the program's stderr; they go to the registry,
 * or nowhere (the losses stay in the trace header). */
extern int cutap_warn_quiet;
/* Built-in clients (core/stat.c, core/log.c) and their output. */
void cutap_stat_start(const char *dest);
void cutap_log_start(const char *dest);
int cutap_open_output(const char *pattern, int append);

/* --- core/objects.c: the loaded objects calls are attributed to ---------- */

/* The object holding addr, as index + 1 in the process's table (0: none,
 * or the table is full); its load address and path. Cached per address,
 * lock-free; dladdr runs outside any lock of cutap's. */
uint32_t cutap_object_of(const void *addr);
const char *cutap_object_path(uint32_t index1, uint64_t *base);

/* --- the generated tables (src/generated/) --------------------------------
 * Written by the generator (gen/), declared here: the core reads them. */

/* What the recorder copies from the traced process for one argument
 * (kind: CUTAP_CAP_*, include/cutap_format.h; size: bytes for the BYTES
 * kinds, 0 for strings). */
struct cutap_capinfo {
    uint8_t arg;
    uint8_t kind;
    uint16_t size;
};
struct cutap_fninfo {
    const char *name;
    uint8_t typed;        /* 0: undeclared export, reached through the trampoline */
    uint8_t nargs;
    uint8_t ncap;         /* captures, in argument order */
    int8_t func_arg;      /* launches: index of the CUfunction argument; -1 otherwise */
    uint8_t layer;        /* cutap_layer_t */
    uint8_t nostatus;     /* the result is no status code (void, pointer, count) */
    uint8_t rkind;        /* CUTAP_RESULT_* (runtime and library layers; the driver's: status) */
    int16_t tramp;        /* layers: index into cutap_lib_untyped_ctx, -1 if typed */
    const cutap_arg_info_t *args;
    const uint16_t *sizes; /* bytes of each parameter (structs by value: their size) */
    const struct cutap_capinfo *caps;
};
/* The driver's exports (driver_table.c) and the address of our wrapper of
 * each. */
extern const struct cutap_fninfo cutap_driver_info[CUTAP_DRIVER_COUNT];
/* A layer's status constants by value (status_names.c): the driver's and
 * each runtime or library layer's status enum; ended by layer -1. */
struct cutap_status_name {
    int64_t value;
    const char *name;
};
struct cutap_status_table {
    int layer;
    unsigned n;
    const struct cutap_status_name *names;   /* sorted by value */
};
extern const struct cutap_status_table cutap_status_tables[];
extern void *const cutap_driver_wrapper[CUTAP_DRIVER_COUNT];
/* Runtime and library layers (lib_table.c): ids CUTAP_DRIVER_COUNT ..
 * CUTAP_STATIC_COUNT-1, each layer's names sorted. */
extern const struct cutap_fninfo cutap_lib_info[CUTAP_STATIC_COUNT - CUTAP_DRIVER_COUNT];
extern void *const cutap_lib_wrapper[CUTAP_STATIC_COUNT - CUTAP_DRIVER_COUNT];
struct cutap_layer_desc {
    const char *name;
    int layer;                    /* cutap_layer_t */
    uint32_t first, count;        /* its ids */
    const char *const *sonames;   /* the object the real functions come from */
    uint32_t unavailable;         /* status of a call when the library is missing */
};
extern const struct cutap_layer_desc cutap_layers[CUTAP_LIB_LAYERS];
#define CUTAP_FIRST_LIB_LAYER CUTAP_LAYER_RUNTIME

/* A layer bound to an older major whose headers declare a function with
 * another signature than the pinned one (issue #28): the variant's
 * description and typed slow path (src/generated/lib_older_variants.c),
 * installed per id when the layer is adopted (resolve/libs.c) and never
 * changed after; group: the index of the older soname it is for
 * (cutap_older_sonames). */
struct cutap_older_variant {
    uint32_t id;
    uint8_t group;
    void *slow;
    uint64_t (*thunk)(void *fn, uint64_t *args);   /* the one its slow path hands cutap_dispatch */
    struct cutap_fninfo info;
};
extern const struct cutap_older_variant cutap_older_variants[];
extern const unsigned cutap_older_variant_count;
extern const char *const cutap_older_sonames[][3];
extern const uint8_t cutap_older_mode[CUTAP_STATIC_COUNT - CUTAP_DRIVER_COUNT];
enum { CUTAP_OLDER_UNTYPED = 0, CUTAP_OLDER_SAME = 1, CUTAP_OLDER_VARIANT = 2 };
/* The runtime callback ids by which an older major's static runtime
 * reports a function, where they are not the pinned headers' newest
 * (sorted by cbid): the function's id, and the variant whose description
 * the report's parameters follow (-1: the pinned one's). */
struct cutap_older_cbid {
    uint16_t cbid;
    int16_t variant;
    uint32_t id;
};
extern const struct cutap_older_cbid cutap_older_cbids[];
extern const unsigned cutap_older_cbid_count;
/* Callback ids 13.0 keeps as its function's newest although an older
 * major reported another signature by them (sorted): recorded untyped. */
extern const uint16_t cutap_older_unsafe_cbids[];
extern const unsigned cutap_older_unsafe_cbid_count;
/* Per layer id: the variant in use, NULL for the pinned signature. */
extern const struct cutap_older_variant *cutap_lib_variant[CUTAP_STATIC_COUNT - CUTAP_DRIVER_COUNT];
/* The variant a static id runs by, NULL: none (the driver's, the pinned
 * signature, a dynamic id). */
static inline const struct cutap_older_variant *cutap_variant_of(uint32_t id)
{
    return id >= CUTAP_DRIVER_COUNT && id < CUTAP_STATIC_COUNT
               ? __atomic_load_n(&cutap_lib_variant[id - CUTAP_DRIVER_COUNT], __ATOMIC_ACQUIRE)
               : NULL;
}

static inline const struct cutap_fninfo *cutap_fn(uint32_t id)
{
    if (id < CUTAP_DRIVER_COUNT)
        return &cutap_driver_info[id];
    /* (static ids only: no bound checked here) */
    const struct cutap_older_variant *v = __atomic_load_n(&cutap_lib_variant[id - CUTAP_DRIVER_COUNT], __ATOMIC_ACQUIRE);
    return v ? &v->info : &cutap_lib_info[id - CUTAP_DRIVER_COUNT];
}
static inline void *cutap_static_wrapper(uint32_t id)
{
    return id < CUTAP_DRIVER_COUNT ? cutap_driver_wrapper[id] : cutap_lib_wrapper[id - CUTAP_DRIVER_COUNT];
}
/* The typed slow path of a static id, NULL if untyped. */
extern void *const cutap_driver_slow[CUTAP_DRIVER_COUNT];
extern void *const cutap_lib_slow[CUTAP_STATIC_COUNT - CUTAP_DRIVER_COUNT];
static inline void *cutap_static_slow(uint32_t id)
{
    if (id < CUTAP_DRIVER_COUNT)
        return cutap_driver_slow[id];
    const struct cutap_older_variant *v = __atomic_load_n(&cutap_lib_variant[id - CUTAP_DRIVER_COUNT], __ATOMIC_ACQUIRE);
    return v ? v->slow : cutap_lib_slow[id - CUTAP_DRIVER_COUNT];
}
/* The trampoline contexts of the undeclared exports and of the layers'
 * untyped functions (fninfo.tramp), in the order of their stubs. */
extern struct cutap_tramp_ctx cutap_untyped_ctx[];
extern struct cutap_tramp_ctx cutap_lib_untyped_ctx[];
extern const unsigned cutap_lib_untyped_count;
extern const uint16_t cutap_untyped_ids[];
extern const unsigned cutap_untyped_count;
/* Their stubs, 16 bytes each in context order (driver_untyped.S,
 * lib_untyped.S). */
extern const unsigned char cutap_untyped_stubs[], cutap_lib_untyped_stubs[];
/* The recorder's generated fast paths (fast_table.c; written for
 * src/record, handed out by cutap_refresh_id): per static id, NULL: none. */
extern void *const cutap_fast_trace[];
extern void *const cutap_fast_count[];
/* The trace fast paths' --gpu variants (the functions that enqueue GPU
 * work), handed out where the recorder and the join's client
 * (cutap_gpu_fast_bit, set by src/record/gpu.c) are the id's clients. */
extern void *const cutap_fast_trace_gpu[];
extern _Atomic uint8_t cutap_gpu_fast_bit;

/* Whether a call failed: a typed function of a static id whose result is
 * a status code other than 0. The result is tested first: most calls
 * succeed, and then no table is read (the counting fast path runs this). */
static inline int cutap_result_is_error(uint32_t id, uint64_t result)
{
    return (uint32_t)result && (id < CUTAP_STATIC_COUNT ? !cutap_fn(id)->nostatus : (cutap_id_flags(id) & CUTAP_DYN_STATUS));
}
static inline int cutap_call_is_error(const cutap_call_t *call)
{
    /* An untyped call of a typed id (a layer of another major) returns
     * the same status type: result types do not change between majors. */
    return (!(call->flags & CUTAP_CALL_UNTYPED) || (call->id < CUTAP_STATIC_COUNT && cutap_fn(call->id)->typed)) &&
           cutap_result_is_error(call->id, call->result);
}

/* Argument word helpers used by generated code. */
static inline uint64_t cutap_f2w(float f) { uint64_t w = 0; memcpy(&w, &f, sizeof f); return w; }
static inline float cutap_w2f(uint64_t w) { float f; memcpy(&f, &w, sizeof f); return f; }
static inline uint64_t cutap_d2w(double d) { uint64_t w; memcpy(&w, &d, sizeof d); return w; }
static inline double cutap_w2d(uint64_t w) { double d; memcpy(&d, &w, sizeof d); return d; }

/* --- what the core calls in src/resolve ------------------------------------
 * Resolution: whether a call can be made, the real functions, what the
 * environment configures. Defined by resolve (file named); its other
 * offerings are in resolve_internal.h. */

/* resolve/driver.c: resolves every export from the driver's own handle,
 * once; 0 when a driver is in use, -1 when none could be found. */
int cutap_driver_ensure(void);
extern _Atomic int cutap_driver_state;   /* 0 none yet, 1 ready, -1 none found */
extern void *cutap_real[CUTAP_STATIC_COUNT];   /* driver ids: valid once cutap_driver_state is 1;
                                                  layer ids: once that layer's state is 1 */
void cutap_driver_configure(const char *driver);
/* resolve/libs.c: state of each layer (index: layer -
 * CUTAP_FIRST_LIB_LAYER): 0 not yet resolved, 1 resolved, -1 no such
 * library; a layer resolved from its loaded library (or loaded); 0 when
 * ready. */
extern _Atomic int cutap_lib_state[CUTAP_LIB_LAYERS];
int cutap_lib_ensure(int layer);
/* The real function of a static id, NULL until its layer is resolved. */
void *cutap_static_real(uint32_t id);
/* A layer bound to an object of another major than the generated headers
 * (libcudart.so.12, libcudnn.so.8): none of its typed signatures can be
 * vouched for, so its typed ids run through the generic trampoline, each
 * with its own context and stub. NULL for every other id. */
struct cutap_tramp_ctx *cutap_lib_route_ctx(uint32_t id);
void *cutap_lib_route_stub(uint32_t id);
/* Whether a layer's typed functions are routed (another major); index:
 * layer - CUTAP_FIRST_LIB_LAYER. */
extern _Atomic uint8_t cutap_lib_routed[CUTAP_LIB_LAYERS];
/* The initial fast-path entry of a typed layer id: its resolver stub
 * (src/generated/lib_resolve.S), NULL for ids that have none. */
void *cutap_lib_resolver(uint32_t id);
static inline int cutap_id_ready(uint32_t id)
{
    if (id < CUTAP_DRIVER_COUNT)
        return atomic_load_explicit(&cutap_driver_state, memory_order_acquire) == 1 || !cutap_driver_ensure();
    int k = cutap_lib_info[id - CUTAP_DRIVER_COUNT].layer - CUTAP_FIRST_LIB_LAYER;
    return atomic_load_explicit(&cutap_lib_state[k], memory_order_acquire) == 1 ||
           !cutap_lib_ensure(k + CUTAP_FIRST_LIB_LAYER);
}
/* resolve/cupti_rt.c: CUTAP_RUNTIME: "cupti" takes runtime calls from
 * CUPTI's runtime callbacks (static cudart), "symbols" or unset: our
 * wrappers only. Under it, export-table slot calls keep their frames,
 * since CUPTI's reports come from inside one (cutap_hook_caller); slot
 * calls the libcupti cutap loaded (object index + 1; 0: none) makes are
 * not recorded. */
void cutap_cupti_rt_configure(const char *mode);
/* resolve/rt_hooks.c: the call sites (return addresses) of export-table
 * slot calls a runtime copy makes only to report its calls to cutap: run
 * without a frame, not recorded. */
extern _Atomic uint32_t cutap_induced_n;
int cutap_induced_site(const void *ret);
extern int cutap_rt_cupti;
extern _Atomic uint32_t cutap_cupti_object;
/* resolve/cupti_rt.c: libcupti opened (RTLD_LOCAL; CUTAP_CUPTI_LIB, else
 * the loader's search, then the toolkit's places) and its path in
 * cutap_cupti_path; NULL with the reason in why. Also for record/gpu.c. */
void *cutap_cupti_open(char *why, size_t size);
extern char cutap_cupti_path[512];
/* record/gpu.c (cutap trace --gpu): whether a runtime copy's report of
 * CUPTI callback id cbid must reach CUPTI inside cutap's record of the call
 * (the call enqueues GPU work and CUPTI records it: cutap's external
 * correlation id must be pushed while CUPTI sees the call). */
int cutap_gpu_inside(uint32_t cbid);
/* resolve/exporttable.c: which export tables are wrapped (CUTAP_HIDDEN). */
void cutap_exporttable_configure(const char *policy);
/* resolve/ioctl.c, dl.c, nvtx.c: the ioctl layer's start, and their sides
 * of what the core hands the front. */
void cutap_ioctl_init(void);
void cutap_ioctl_core(struct cutap_core *c);
void cutap_dl_core(struct cutap_core *c);
/* the NVTX injection entry: get is the NVTX copy's NvtxGetExportTableFunc_t */
int InitializeInjectionNvtx2(const void *(*get)(uint32_t export_table_id));

/* --- what the core calls in src/record -------------------------------------
 * The recorder: CUTAP_TRACE=DIR records every call, CUTAP_COUNT=DIR keeps
 * counters only; CUTAP_FILTER selects the ids. Defined by record (file
 * named); its other offerings are in record_internal.h. */

/* recorder.c: starts it (the init of the core calls it once). */
void cutap_record_start(const char *dir, int counts, const char *filter);
/* calls.c: the recorder's fused path, taken by typed calls whose only
 * client is the recorder (mask == cutap_fast_mask); the same records as
 * its callbacks. Which generated fast paths refresh may hand out
 * (cutap_fast_kind): 0 none, 1 trace, 2 counting. */
uint64_t cutap_record_fast(cutap_call_t *call, cutap_thunk_t thunk);
/* calls.c: the same for a call a runtime copy reported (resolve/cupti_rt.c,
 * the default runtime mode): 0 when the general path must take it, else 1
 * and *rec what the end needs (a record, NULL: lost; or a counter), aux two
 * words of it; its end after call->result is set. */
int cutap_record_report_begin(cutap_call_t *call, uint32_t origin, void **rec, uint64_t *aux);
void cutap_record_report_end(cutap_call_t *call, void *rec, const uint64_t *aux);
/* calls.c: the straight path of a runtime copy's reports (resolve/
 * rt_calls.c, issue #25) writes the records of a typed function as the
 * generated fast paths do, from a template the recorder makes once per
 * function (the layout the id's plan gives: argument words, up to two 4-
 * or 8-byte outputs), while trace mode records (cutap_fast_kind 1) and the
 * recorder is the id's only client. head 0: no template (strings, inputs,
 * other outputs, native stacks): cutap_record_report_begin takes it. */
/* A 4- or 8-byte output of a record (a simple capture). */
struct cutap_rp_out {
    uint16_t off;        /* the capture header's byte offset in the record */
    uint8_t arg, size;   /* its argument, its bytes */
};
struct cutap_rp {
    uint64_t head;       /* the record's first word: kind, flags, slots, id */
    uint32_t dnc;        /* nargs << 16 | ncap << 24 (the depth goes below) */
    uint16_t nslots;
    uint8_t nargs, nsimple;
    uint8_t nostatus;    /* outputs read whatever the result */
    uint8_t func;        /* its kernel handle's argument + 1 (named after the call); 0: none */
    struct cutap_rp_out out[2];
    uint64_t hdr[2];     /* the headers as written before the call */
};
/* id's template (nargs its words); 0 when it has none. */
int cutap_record_rp(uint32_t id, unsigned nargs, struct cutap_rp *rp);
/* The record of a call of id begun (w its words, depth the thread's,
 * origin the copy's object as cutap_record_origin names it): NULL when the
 * fused path must take it (the id not yet named in this file, the chunk
 * full). */
void *cutap_record_rp_begin(const struct cutap_rp *rp, uint32_t id, const uint64_t *w, unsigned depth, uint32_t origin);
/* Its end: result the runtime's (a cudaError_t). */
void cutap_record_rp_end(const struct cutap_rp *rp, void *rec, const uint64_t *w, uint64_t result);
/* calls.c: the object index (+1) a record names for code at fn, the
 * object named in the file first; 0: none. */
uint32_t cutap_record_origin(const void *fn);
/* calls.c: changes when the objects named in the file are forgotten (a
 * forked child's new file): a cache of cutap_record_origin's answers keyed
 * with it stays true. */
extern _Atomic uint32_t cutap_record_epoch;
extern _Atomic uint8_t cutap_fast_mask;
extern int cutap_fast_kind;
/* meta.c: the ids named in this trace file (the first call of each, on
 * the general path, writes its name; then it refreshes the id, since a
 * trace fast path is handed out only to a named id: it does not check) */
extern _Atomic uint8_t cutap_named[];
/* refresh_id after the id was named, never waiting: now (0), or, while
 * another refresh holds the lock (a signal handler's call on the thread
 * that holds it included), by that refresh's holder before and after it
 * lets go (1); -1 not a static id */
int cutap_refresh_id_named(uint32_t id);
/* A forked child (single-threaded), before its file names anything: every
 * trace fast path back to the general path, which names each id again. */
void cutap_fast_trace_forget(void);
/* calls.c: counting mode's fast path for an untyped call whose result is
 * never an error (an export-table slot, an undeclared export): counts it,
 * untimed, and returns 1 when the countdown does not pick it and its
 * first calls are past, so that the trampoline runs it without a frame;
 * 0: the general path must take it. */
int cutap_rec_count_untyped(uint32_t id);
/* inject.c: fault injection from CUTAP_INJECT (after the recorder
 * started); CUTAP_SYNC_LAUNCHES. */
void cutap_inject_start(const char *env);
void cutap_sync_launches_start(const char *filter);
/* recorder.c: the process enters seccomp strict mode; the trace
 * directory (where warnings go once cutap_warn_quiet is set). */
void cutap_rec_stop_strict(void);
extern char cutap_rec_dir[];
/* clock.c: called before the program's call that forbids the time-stamp
 * counter (or enters strict mode), by its thread. */
void cutap_clock_forbid_tsc(void);
/* What an NVIDIA library read from the environment (record/env.c; the
 * front's getenv and secure_getenv call it) */
void rec_env_seen(int secure, const char *name, const char *value, const void *caller);
void cutap_clock_freeze(void);
/* dispatch.c: CUTAP_DIAG_PATHS=DEST, the general path's calls per id. */
void cutap_diag_paths_start(const char *dest);

#endif
