/* Internal interfaces of libcutap.so shared by core, resolve and the
 * generated wrappers. Nothing here is exported (-fvisibility=hidden). */
#ifndef CUTAP_INTERNAL_H
#define CUTAP_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "cutap.h"
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

#define CUTAP_EXPORT __attribute__((visibility("default")))
/* Typed slow paths (generated *_wrappers.c), entered from the exported
 * assembly fronts (src/generated/fronts.S). */
#define CUTAP_SLOW __attribute__((visibility("hidden"), used))
#define CUTAP_LIKELY(x) __builtin_expect(!!(x), 1)
#define CUTAP_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* A forked child has one thread: a lock another thread of the parent held
 * at fork would stay locked for good, so each lock is made anew in the
 * child (what it protects is only ever extended, never left half-written
 * in a way the child's next use would trip over). */
#define CUTAP_FORK_SAFE(lock)                                                      \
    static void lock##_child(void) { pthread_mutex_init(&lock, NULL); }           \
    __attribute__((constructor)) static void lock##_atfork(void)                  \
    {                                                                              \
        pthread_atfork(NULL, NULL, lock##_child);                                  \
    }

/* CUresult values cutap itself produces. */
#define CUTAP_CUDA_SUCCESS 0
#define CUTAP_CUDA_ERROR_NOT_FOUND 500

/* Calls a real typed function with the argument words (generated). */
typedef uint64_t (*cutap_thunk_t)(void *fn, uint64_t *args);

/* Fast path of every typed wrapper: the real function while no client wants
 * the id and the driver is resolved; NULL otherwise (then the wrapper takes
 * cutap_dispatch). One load and one test per call. */
extern void *_Atomic cutap_hot[CUTAP_STATIC_COUNT];

uint64_t cutap_dispatch(uint32_t id, uint64_t *args, cutap_thunk_t thunk);

/* Generated metadata (src/generated/driver_table.c). */
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
    int16_t tramp;        /* layers: index into cutap_lib_untyped_ctx, -1 if typed */
    const cutap_arg_info_t *args;
    const uint16_t *sizes; /* bytes of each parameter (structs by value: their size) */
    const struct cutap_capinfo *caps;
};
extern const struct cutap_fninfo cutap_driver_info[CUTAP_DRIVER_COUNT];
/* Address of our wrapper of each export. */
extern void *const cutap_driver_wrapper[CUTAP_DRIVER_COUNT];

/* Runtime and library layers (src/generated/lib_table.c, resolve/libs.c):
 * ids CUTAP_DRIVER_COUNT .. CUTAP_STATIC_COUNT-1, each layer's names sorted. */
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

static inline const struct cutap_fninfo *cutap_fn(uint32_t id)
{
    return id < CUTAP_DRIVER_COUNT ? &cutap_driver_info[id] : &cutap_lib_info[id - CUTAP_DRIVER_COUNT];
}
static inline void *cutap_static_wrapper(uint32_t id)
{
    return id < CUTAP_DRIVER_COUNT ? cutap_driver_wrapper[id] : cutap_lib_wrapper[id - CUTAP_DRIVER_COUNT];
}
/* The typed slow path of a static id (generated tables), NULL if untyped. */
extern void *const cutap_driver_slow[CUTAP_DRIVER_COUNT];
extern void *const cutap_lib_slow[CUTAP_STATIC_COUNT - CUTAP_DRIVER_COUNT];
static inline void *cutap_static_slow(uint32_t id)
{
    return id < CUTAP_DRIVER_COUNT ? cutap_driver_slow[id] : cutap_lib_slow[id - CUTAP_DRIVER_COUNT];
}
/* The trampoline stub of an untyped static id (driver_untyped.S,
 * lib_untyped.S: 16 bytes each, in context order); NULL if typed. */
void *cutap_untyped_stub(uint32_t id);
void *cutap_core_entry(uint32_t id);   /* core/dispatch.c: for the front */

/* cuGetProcAddress table: base name, version, flavour -> exported variant. */
enum { CUTAP_FLAVOUR_PLAIN = 0, CUTAP_FLAVOUR_PTDS = 1, CUTAP_FLAVOUR_PTSZ = 2 };
struct cutap_procaddr {
    const char *base;
    int version;
    uint8_t flavour;
    uint16_t id;
};
extern const struct cutap_procaddr cutap_procaddr_table[];
extern const unsigned cutap_procaddr_count;

/* Generic trampoline (src/arch/x86_64/trampoline.S). The layout is used by
 * the assembly: keep real at 0 and active at 8. */
struct cutap_tramp_ctx {
    void *real;              /* function to run */
    uint8_t active;          /* 1: take the slow path (callbacks or not resolved) */
    uint8_t pad[3];
    uint32_t id;
    uint64_t reserved;       /* dynamic ids: address of their entry stub */
};
_Static_assert(sizeof(struct cutap_tramp_ctx) == 24, "trampoline ctx layout");
extern struct cutap_tramp_ctx cutap_untyped_ctx[];   /* one per undeclared export (generated) */
extern struct cutap_tramp_ctx cutap_lib_untyped_ctx[];   /* likewise, layers (fninfo.tramp) */
extern const unsigned cutap_lib_untyped_count;
extern const uint16_t cutap_untyped_ids[];
extern const unsigned cutap_untyped_count;
void cutap_tramp_common(void);
/* Makes an executable stub that enters the trampoline with ctx. */
void *cutap_tramp_make_stub(struct cutap_tramp_ctx *ctx);

/* --- core/dispatch.c --- */
extern _Atomic uint8_t cutap_mask[CUTAP_MAX_IDS];    /* bit per client */
void cutap_refresh_id(uint32_t id);
/* Post-call fixups of special entry points (resolve/): run after the real
 * call and before post callbacks, so clients see what the caller gets. */
typedef void (*cutap_fixup_fn)(cutap_call_t *call);
extern cutap_fixup_fn cutap_fixup[CUTAP_STATIC_COUNT];

/* Dynamic ids: a client that is not enabled for CUTAP_ID_ALL may still want
 * some of the ids made later (the recorder's -e filter): want() is asked,
 * under cutap's registration lock, for each new id. */
void cutap_dispatch_new_id(uint32_t id, const char *name, int layer);

/* --- core/ids.c: dynamic ids --- */
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

/* --- resolve/driver.c --- */
/* Resolves every export from the driver's own handle, once. Returns 0 when
 * a driver is in use, -1 when none could be found. */
int cutap_driver_ensure(void);
void cutap_forbid_init(void);          /* front/forbid.c: what the process forbade before cutap started */
void cutap_rec_stop_strict(void);      /* record/recorder.c: the process enters seccomp strict mode */
unsigned long long cutap_dl_adds(void);   /* objects loaded so far (resolve/dl.c) */
/* Adopts the object that holds addr as the driver, if none is yet. */
void cutap_driver_adopt_from(void *addr);
extern _Atomic int cutap_driver_state;   /* 0 none yet, 1 ready, -1 none found */
void *cutap_driver_real(uint32_t id);
extern void *cutap_real[CUTAP_STATIC_COUNT];   /* driver ids: valid once cutap_driver_state is 1;
                                                  layer ids: once that layer's state is 1 */
int cutap_driver_is_handle(const void *handle);
int cutap_addr_is_code(const void *p);
void cutap_driver_configure(const char *driver);
/* Maps a pointer the driver handed out to what the caller should get:
 * our wrapper of that export, a trampoline for an export we do not know, or
 * the pointer itself when it is no driver function. */
void *cutap_wrap_pointer(void *p, const char *name_hint);

/* Map of real function addresses (driver exports, layer functions,
 * dynamic ids) to ids. */
void cutap_addr_map_put(void *p, uint32_t id);
uint32_t cutap_addr_map_get(const void *p);

/* --- resolve/libs.c: the runtime and library layers --- */
/* State of each layer (index: layer - CUTAP_FIRST_LIB_LAYER): 0 not yet
 * resolved, 1 resolved, -1 no such library. */
extern _Atomic int cutap_lib_state[CUTAP_LIB_LAYERS];
/* Resolves a layer from its loaded library (or loads it); 0 when ready. */
int cutap_lib_ensure(int layer);
/* A layer with no library to find (NVTX): its real functions are cutap's
 * own, reals[i] for id first + i; the layer becomes ready. */
void cutap_lib_install(int layer, void *const *reals);
/* addr came out of a dlsym of the layer function id: adopt its object as
 * that layer's library if none is yet and the object is one. */
void cutap_lib_adopt_from(uint32_t id, void *addr);
/* The real function of a static id, NULL until its layer is resolved. */
void *cutap_static_real(uint32_t id);
/* A layer bound to an object of another major than the generated headers
 * (libcudart.so.12, libcudnn.so.8): none of its typed signatures can be
 * vouched for, so its typed ids run through the generic trampoline, each
 * with its own context and stub (resolve/libs.c). NULL for every other id. */
struct cutap_tramp_ctx *cutap_lib_route_ctx(uint32_t id);
void *cutap_lib_route_stub(uint32_t id);
/* Whether a layer's typed functions are routed (another major); index:
 * layer - CUTAP_FIRST_LIB_LAYER. */
extern _Atomic uint8_t cutap_lib_routed[CUTAP_LIB_LAYERS];
/* What a call of id returns when its function is missing or its layer has
 * no library: CUDA_ERROR_NOT_FOUND for the driver, the layer's
 * "unavailable" status, 0 for a layer function without a status. */
uint64_t cutap_missing_status(uint32_t id);
/* What a layer is bound to: its soname (NULL before it is adopted) and
 * whether the generated signatures apply (1) or its calls are untyped (0). */
const char *cutap_lib_bound(int layer, int *vouched);
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

/* --- resolve/dl.c --- */
void *cutap_libc_dlsym(void *handle, const char *name);
void *cutap_libc_dlvsym(void *handle, const char *name, const char *version);
/* Address of name in one loaded object's own dynamic symbol table (no
 * dependency, no loader lock): base and dynamic section as dl_iterate_phdr
 * gives them. */
struct dl_phdr_info;
void *cutap_elf_lookup(struct dl_phdr_info *info, const char *name);
const void *cutap_elf_dynamic(struct dl_phdr_info *info);   /* its PT_DYNAMIC, or NULL */

/* --- resolve/exporttable.c --- */
void cutap_exporttable_init(void);
void cutap_exporttable_configure(const char *policy);

/* --- resolve/getprocaddress.c --- */
void cutap_getprocaddress_init(void);

/* --- core/init.c --- */
void cutap_init(void);
extern int cutap_debug;
void cutap_log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cutap_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Built-in clients (core/stat.c, core/log.c). */
void cutap_stat_start(const char *dest);
void cutap_log_start(const char *dest);
/* The recorder (src/record/, recorder_priv.h): CUTAP_TRACE=DIR records every call,
 * CUTAP_COUNT=DIR keeps counters only; CUTAP_FILTER selects the ids. */
/* record/inject.c: fault injection from CUTAP_INJECT (after the recorder started). */
void cutap_inject_start(const char *env);
void cutap_sync_launches_start(const char *filter);   /* CUTAP_SYNC_LAUNCHES */
void cutap_record_start(const char *dir, int counts, const char *filter);
/* The recorder's fused path: taken by typed calls whose only client is the
 * recorder (mask == cutap_fast_mask); same records as its callbacks. */
extern _Atomic uint8_t cutap_fast_mask;
/* Counting mode's fast path (cutap_fast_kind 2) for an untyped call whose
 * result is never an error (an export-table slot, an undeclared export):
 * counts it, untimed,
 * and returns 1 when the countdown does not pick it and its first calls
 * are past, so that the trampoline runs it without a frame; 0: the
 * general path must take it (record/calls.c). */
int cutap_rec_count_untyped(uint32_t id);
/* --runtime=cupti is on (resolve/cupti_rt.c): export-table slot calls keep
 * their frames, since CUPTI's reports come from inside one (see
 * cutap_hook_caller). */
extern int cutap_rt_cupti;
/* When the thread's innermost call is a framed export-table slot call (the
 * driver's tools hook, from inside which CUPTI reports a runtime call):
 * the address that call returns to, in the code that made it; else NULL. */
void *cutap_hook_caller(void);
uint64_t cutap_record_fast(cutap_call_t *call, cutap_thunk_t thunk);
int cutap_open_output(const char *pattern, int append);

/* front/registry.c (in the front: exec notes are made in every process):
 * the trace directory's process registry
 * (src/common/cutap_registry.h), cutap's channel for warnings and losses.
 * attach maps DIR/.cutap-procs (create: make it, and DIR, when missing)
 * and claims this image's slot; 0 or -1. warn appends a line to the slot
 * (-1: no registry). back_range allocates every block of a file range
 * (fallocate, else zeros written); 0 or an errno. */
int cutap_back_range(int fd, long off, long len);
int cutap_reg_attach(const char *dir, int create);
int cutap_reg_dir_from_env(char *dir, size_t size);   /* CUTAP_TRACE or CUTAP_COUNT, absolute */
int cutap_reg_warn(const char *line, size_t n);
void cutap_reg_file(int err);
void cutap_reg_stop(int reason, int err);
void cutap_reg_exit(uint64_t lost_without_file);
/* exec_note reads path and envp: exec.c checks first that they can be read
 * (attached: a registry is mapped, notes can be made). */
int cutap_reg_attached(void);
void *cutap_reg_exec_note(const char *path, char *const envp[]);
void cutap_reg_exec_failed(void *note);
void cutap_reg_exec_spawned(void *note, int child);
void cutap_exec_init(void);   /* front/exec.c: the real exec family, looked up once */
/* Set once the recorder runs (CUTAP_TRACE/CUTAP_COUNT accepted): from then
 * on warnings never go to the program's stderr; they go to the registry,
 * or nowhere (the losses stay in the trace header). */
extern int cutap_warn_quiet;
extern char cutap_rec_dir[];

/* Thread state. Kept tiny and initial-exec: it is touched on every slow-path
 * call, and libcutap.so is preloaded, so static TLS is available. */
/* A thread's recorder state (record/chunks.c, calls.c), kept in cutap_tls. */
struct cutap_rec_call;
struct cutap_counter;
struct rec_thread {
    int32_t tid;
    uint32_t seq_rec, seq_cnt;    /* record runs (chunks and THREAD metas); counter chunks */
    uint32_t countdown;           /* calls until the next sampled one */
    uint64_t rng;                 /* xorshift64 state, never 0 once set */
    struct cutap_rec_call *pos, *end;
    struct cutap_counter **tab;   /* CUTAP_MAX_IDS pointers, mapped on first use */
    uint32_t ring_cur1;           /* ring files: its current ring chunk, index + 1 */
    uint32_t ring_pins1;          /* the first of the others it holds (ring.c) */
    uint8_t gone;                 /* its exit destructor ran: it takes fresh
                                     chunks only and gives nothing away again */
};

/* Everything cutap keeps per thread, in one initial-exec TLS block,
 * defined in the front (front/tls.c: a dlopened core could get static TLS
 * only from glibc's small shared surplus). */
struct rt_stack;
struct shadow_stack;
#define CUTAP_NVTX_DEPTH_SLOTS 64
struct cutap_thread {
    uint32_t depth;
    cutap_call_t *current;
    struct rec_thread rec;
    /* non-zero while cutap's own code opens, maps or closes files (the
     * recorder growing its trace file): the ioctl layer's wrappers, which
     * those calls reach, then only pass through */
    uint32_t internal;
    int driver_adopting, lib_adopting;           /* resolve/driver.c, libs.c */
    struct shadow_stack *shadow;                 /* core/dispatch.c */
    uint64_t missing_status;                     /* core/dispatch.c */
    struct rt_stack *rt_stk;                     /* resolve/cupti_rt.c */
    int32_t nvtx_depth[CUTAP_NVTX_DEPTH_SLOTS];  /* resolve/nvtx.c */
    struct {                                     /* record/capture.c */
        uint8_t armed, pending;
        uint64_t domain;
        int32_t level;
    } nv_push;
    uint8_t nv_start_pending;
};
extern __thread struct cutap_thread cutap_tls __attribute__((tls_model("initial-exec")));

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

/* --- core/objects.c: the loaded objects calls are attributed to ---------- */
/* The object holding addr, as index + 1 in the process's table (0: none,
 * or the table is full); its load address and path. Cached per address,
 * lock-free; dladdr runs outside any lock of cutap's. */
uint32_t cutap_object_of(const void *addr);
const char *cutap_object_path(uint32_t index1, uint64_t *base);
void cutap_external_exit(struct cutap_external *x, uint64_t result);
/* The same for calls cutap makes itself on the caller's behalf (the ioctl
 * layer's libc wrappers): a pre callback may skip them (returns 1; the
 * caller gets x->call.c.result). */
int cutap_native_enter(struct cutap_external *x, uint32_t id, uint64_t *args, uint32_t nargs, void *fn);
void cutap_native_exit(struct cutap_external *x, uint64_t result);
/* --- resolve/integrity.c: the two tables the runtime verifies --- */
int cutap_integrity_table(const void *uuid16);   /* CUDART_INTERFACE or INTEGRITY_CHECK */
int cutap_integrity_copies_ok(void);             /* decided once per process (may call the driver) */
void cutap_integrity_given(const void *uuid16, const void *table, void *slot1);
void *cutap_integrity_slot1_fn(void);            /* what INTEGRITY_CHECK's copied slot 1 runs */
/* --- resolve/ioctl.c: the ioctl layer --- */
void cutap_ioctl_init(void);
/* CUTAP_RUNTIME: "cupti" takes those calls from CUPTI's runtime callbacks
 * (static cudart), "symbols" or unset: our wrappers only. */
void cutap_cupti_rt_configure(const char *mode);
/* A slot of TOOLS_RUNTIME_CALLBACK_HOOKS was wrapped (resolve/exporttable.c):
 * under --runtime=cupti, #1 and #4 are not recorded, #1 keeps its frame. */
void cutap_cupti_hook_slot(uint32_t id, unsigned slot);
int cutap_rec_client(void);   /* record/recorder.c: the recorder's client, -1 if none */
/* Under --runtime=cupti, the object (index + 1) of the libcupti cutap
 * loaded: slot calls it makes are not recorded; 0 otherwise. */
extern _Atomic uint32_t cutap_cupti_object;

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

#endif
