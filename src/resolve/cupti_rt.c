/* Runtime-API calls of a statically linked cudart, through CUPTI
 * (CUTAP_RUNTIME=cupti, `cutap trace --runtime=cupti`).
 *
 * nvcc links cudart statically by default: cudaMalloc & co. are then
 * functions inside the program, called directly, and no symbol of ours can
 * stand in for them. The runtime does report each of its API calls to a
 * CUPTI subscriber of the runtime callback domain (entry and exit, with the
 * function's name and its parameters), so in this mode cutap subscribes to
 * CUPTI and turns each report into a call of layer "runtime" with the same
 * id, argument words and result as our symbol wrapper would record
 * (cutap_external_enter/exit): driver calls the runtime makes inside it
 * nest under it, as they do under a wrapped call.
 *
 * libcupti is opened at run time and never linked, and cupti.h is not
 * included: building cutap needs no CUDA toolkit. The few CUPTI types used
 * are declared below, pinned to the CUDA 13.0 headers.
 *
 * When: CUPTI needs a working driver, and the driver is first usable when
 * cuInit has succeeded. We subscribe in a post-call fixup of cuInit (see
 * cutap_fixup, core/dispatch.c), once per process: that is the moment the
 * driver itself loads CUPTI-based tools given by CUDA_INJECTION64_PATH, so
 * CUPTI is known to work from there; it costs nothing on any other call
 * (a lazy check at "the first driver call after cuInit" would put a test on
 * every call). The fixup runs after the real cuInit returned and after
 * cutap restored the thread's nesting, with no cutap lock held, so the
 * driver calls libcupti itself makes while it starts are recorded as
 * ordinary top-level calls of the process. Runtime calls made before that
 * subscription (those that run before the runtime's first cuInit returns,
 * usually the entry of the first runtime call) are not seen.
 *
 * One call, one record. A shared libcudart adopted as the runtime layer
 * (resolve/libs.c) reports its calls to CUPTI too, and they already reach
 * our wrappers; copies of the runtime linked statically into the program
 * or into libraries (cuDNN, cuBLAS, NCCL, PyTorch's, XLA's) reach no
 * wrapper. The runtime reports a call from inside a call it makes to the
 * driver's TOOLS_RUNTIME_CALLBACK_HOOKS slot 1 (docs/HIDDEN_API.md), which
 * cutap wraps: that frame's return address lies in the copy that made the
 * call. A report from the shared libcudart is dropped; one from any other
 * object is recorded. Without such a frame (the table not wrapped, or
 * `-e` leaving out layer hidden) the copy is not known, and every report
 * is dropped once a shared libcudart is in use, as none may count twice. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resolve_internal.h"

/* --- CUPTI ABI (cupti_result.h, cupti_callbacks.h of CUDA 13.0) -------- */
typedef int cutap_cupti_result;                /* CUptiResult (an enum) */
#define CUTAP_CUPTI_SUCCESS 0
#define CUTAP_CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED 39
#define CUTAP_CUPTI_CB_DOMAIN_RUNTIME_API 2
#define CUTAP_CUPTI_API_ENTER 0
#define CUTAP_CUPTI_API_EXIT 1
typedef void *cutap_cupti_subscriber;          /* CUpti_SubscriberHandle */
/* CUpti_CallbackFunc(userdata, CUpti_CallbackDomain, CUpti_CallbackId, cbdata) */
typedef void (*cutap_cupti_callback)(void *userdata, int domain, uint32_t cbid, const void *cbdata);

/* CUpti_CallbackData, field for field as in cupti_callbacks.h (CUDA 13.0,
 * CUPTI_API_VERSION 130001); the offsets below are those gcc gives the
 * header's own struct. */
struct cutap_cupti_cbdata {
    int callbackSite;                /* CUpti_ApiCallbackSite: CUPTI_API_ENTER / _EXIT */
    const char *functionName;        /* "cudaMalloc": a global constant */
    const void *functionParams;      /* <name>_v<ver>_params: the parameters as a struct */
    void *functionReturnValue;       /* runtime: cudaError_t *, valid at exit */
    const char *symbolName;
    void *context;                   /* CUcontext */
    uint32_t contextUid;
    uint64_t *correlationData;       /* shared by the entry and exit of one call */
    uint32_t correlationId;
};
_Static_assert(offsetof(struct cutap_cupti_cbdata, functionName) == 8 &&
                   offsetof(struct cutap_cupti_cbdata, functionParams) == 16 &&
                   offsetof(struct cutap_cupti_cbdata, functionReturnValue) == 24 &&
                   offsetof(struct cutap_cupti_cbdata, contextUid) == 48 &&
                   offsetof(struct cutap_cupti_cbdata, correlationData) == 56 &&
                   offsetof(struct cutap_cupti_cbdata, correlationId) == 64 &&
                   sizeof(struct cutap_cupti_cbdata) == 72,
               "CUpti_CallbackData layout of cupti_callbacks.h (CUDA 13.0)");

typedef cutap_cupti_result (*subscribe_fn)(cutap_cupti_subscriber *, cutap_cupti_callback, void *);
typedef cutap_cupti_result (*enable_domain_fn)(uint32_t, cutap_cupti_subscriber, int);
typedef cutap_cupti_result (*unsubscribe_fn)(cutap_cupti_subscriber);
typedef cutap_cupti_result (*result_string_fn)(cutap_cupti_result, const char **);
static subscribe_fn p_subscribe;
static enable_domain_fn p_enable_domain;
static unsubscribe_fn p_unsubscribe;
static result_string_fn p_result_string;

/* --- per-thread stack of the runtime calls in progress ---------------- */
/* Deep enough for any real nesting of runtime calls (they rarely nest at
 * all); past it calls are not recorded, and entry and exit stay balanced. */
#define RT_DEPTH 64
#define RT_MAXARGS 16   /* the runtime API has at most 10 parameters */
struct rt_frame {
    struct cutap_external x;
    uint64_t words[RT_MAXARGS];   /* x.call.c.args points here until the exit */
    const void *key;              /* the runtime's record (default mode), else NULL */
    void *rec;                    /* fused: what the recorder's end needs */
    uint64_t aux[2];
    int fused;                    /* recorded by the recorder's fused path */
    int status;                   /* its result is a cudaError_t (recorded), not a string or struct */
};
struct rt_stack {
    unsigned top;
    const void *last_origin;   /* the copy of the thread's last report, */
    uint32_t last_index;       /* its object (cutap_record_origin), */
    uint32_t last_epoch;       /* and cutap_record_epoch then */
    unsigned lost;    /* entries not pushed (too deep) whose exit is to come,
                         for CUPTI reports without correlationData */
    struct rt_frame f[RT_DEPTH];
};
#define rt_stk (cutap_tls.rt_stk)
static pthread_key_t rt_key;
static pthread_once_t rt_once = PTHREAD_ONCE_INIT;

static void rt_free(void *p)
{
    struct rt_stack *s = p;
    /* calls left open (an exit never reported): the thread's current call
     * must not stay inside the frames freed here */
    if (s && s->top) {
        cutap_tls.current = s->f[0].x.call.c.parent;
        cutap_tls.depth = s->f[0].x.call.c.depth;
    }
    rt_stk = NULL;   /* runs on the exiting thread: a later report allocates anew */
    free(p);
}
static void rt_key_init(void) { pthread_key_create(&rt_key, rt_free); }

static struct rt_stack *rt_get(void)
{
    if (!rt_stk && (rt_stk = calloc(1, sizeof *rt_stk))) {
        pthread_once(&rt_once, rt_key_init);
        pthread_setspecific(rt_key, rt_stk);
    }
    return rt_stk;
}

/* What the entry callback left in *correlationData for the exit callback
 * of the same call: whether it pushed a frame. With any other value (an
 * entry made before the subscription) the exit pops the top frame only if
 * it is of the same function. */
#define TAG_PUSHED 0xc07a9e5100000001ull
#define TAG_NONE 0xc07a9e5100000002ull   /* nothing recorded for this call */
#define TAG_LOST 0xc07a9e5100000003ull   /* too deep: not recorded */

/* --- CUPTI function name -> cutap id ---------------------------------- */
/* CUPTI names the function ("cudaMalloc"); its callback ids carry a
 * version ("cudaMalloc_v3020"), which is stripped should a name carry one.
 * The answer is kept per callback id: id + 1, or NOT_OURS. */
#define CBID_CACHE 4096
#define NOT_OURS 0xffffffffu
static _Atomic uint32_t cbid_cache[CBID_CACHE];

/* "cudaMalloc_v3020" -> "cudaMalloc", in place. */
static void strip_version(char *buf)
{
    size_t n = strlen(buf), d = n;
    while (d > 0 && buf[d - 1] >= '0' && buf[d - 1] <= '9')
        d--;
    if (d < n && d >= 2 && buf[d - 1] == 'v' && buf[d - 2] == '_')
        buf[d - 2] = 0;
}

static uint32_t id_of_name(const char *name)
{
    if (!name)
        return CUTAP_ID_ALL;
    char buf[160];
    size_t n = strnlen(name, sizeof buf);
    if (n >= sizeof buf)
        return CUTAP_ID_ALL;
    memcpy(buf, name, n + 1);
    strip_version(buf);
    uint32_t id = cutap_lookup(buf);
    if (id < CUTAP_DRIVER_COUNT || id >= CUTAP_STATIC_COUNT || cutap_fn(id)->layer != CUTAP_LAYER_RUNTIME)
        return CUTAP_ID_ALL;
    return id;
}

/* Callback ids whose parameters are those of the pinned headers
 * (src/generated/cupti_rt_cbid.c). A runtime of another version than the
 * headers (an nvcc 12 program's static cudart) reports a function whose
 * signature changed under an older id: cudaStreamGetCaptureInfo_v10010
 * (3 parameters) rather than _v12030 (13.0's 7). Such a report is recorded
 * under an id of its own, made once per callback id: same name and layer,
 * untyped, no argument words, its parameter struct never read (13.0's
 * layout would read past it and take integers for output pointers). */
static _Atomic uint32_t static_of[CUTAP_MAX_IDS - CUTAP_STATIC_COUNT];   /* dynamic id -> its static id + 1 */

/* A function the runtime reports that cutap's runtime layer does not have
 * (one removed from the headers since: textures, surfaces, the D3D and GL
 * interop a CUDA 11 copy still has; one newer than them): recorded all the
 * same, in layer runtime, untyped, under an id of its own named as the
 * report names it (a version suffix stripped). A name that is not a
 * plain C identifier of at most 127 characters is not recorded. */
static uint32_t unknown_id(const char *name)
{
    char buf[128];
    size_t n = 0;
    if (!name)
        return CUTAP_ID_ALL;
    for (; n < sizeof buf - 1 && name[n]; n++) {
        char c = name[n];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (n && c >= '0' && c <= '9')))
            return CUTAP_ID_ALL;
        buf[n] = c;
    }
    if (!n || name[n])
        return CUTAP_ID_ALL;
    buf[n] = 0;
    strip_version(buf);
    struct cutap_tramp_ctx *ctx;
    return cutap_id_new(buf, CUTAP_LAYER_RUNTIME, &ctx);
}

static int cbid_current(uint32_t cbid)
{
    return cbid < cutap_rt_cbid_count && (cutap_rt_cbid_current[cbid / 8] >> (cbid % 8) & 1);
}

static uint32_t id_of(uint32_t cbid, const char *name)
{
    if (cbid >= CBID_CACHE)
        return CUTAP_ID_ALL;   /* none so high in any CUPTI: not ours */
    uint32_t v = atomic_load_explicit(&cbid_cache[cbid], memory_order_relaxed);
    if (v)
        return v == NOT_OURS ? CUTAP_ID_ALL : v - 1;
    uint32_t id = id_of_name(name);
    if (id == CUTAP_ID_ALL)
        id = unknown_id(name);
    else if (!cbid_current(cbid)) {
        struct cutap_tramp_ctx *ctx;
        uint32_t st = id;
        id = cutap_id_new(cutap_fn(st)->name, CUTAP_LAYER_RUNTIME, &ctx);
        if (id != CUTAP_ID_ALL)
            atomic_store(&static_of[id - CUTAP_STATIC_COUNT], st + 1);
    }
    /* Two threads may get here at once for one callback id: the second
     * store wins, the first id is used for the calls already made. */
    atomic_store_explicit(&cbid_cache[cbid], id == CUTAP_ID_ALL ? NOT_OURS : id + 1, memory_order_relaxed);
    return id;
}

/* The static id of a function (a callback id of another signature has an
 * id of its own, see above); CUTAP_ID_ALL for a function cutap's runtime
 * layer does not have (unknown_id). */
static uint32_t static_id(uint32_t id)
{
    if (id < CUTAP_STATIC_COUNT)
        return id;
    uint32_t v = atomic_load(&static_of[id - CUTAP_STATIC_COUNT]);
    return v ? v - 1 : CUTAP_ID_ALL;
}

/* --- parameters -> argument words ---------------------------------------- */
/* Alignment of a parameter in CUPTI's <name>_params struct: the structs
 * lay the parameters out in order, as C does. Scalars are aligned to their
 * size. The metadata gives a struct passed by value its size only: those
 * of 8-byte fields (cudaExtent, cudaPitchedPtr, cudaEglFrame) and of
 * 4-byte ones (dim3) follow from it, the two exceptions are named.
 * Checked against every struct of CUDA 13.0's
 * generated_cuda_runtime_api_meta.h (371 structs, 1273 parameters: same
 * offsets and sizes). */
static size_t param_align(const cutap_arg_info_t *a, unsigned size)
{
    if (a && a->kind == CUTAP_ARG_STRUCT) {
        const char *t = a->type ? a->type : "";
        if (strstr(t, "cudaMemLocation"))
            return 4;   /* two ints: cudaMemAdvise puts it at 20, after an enum */
        if (strstr(t, "IpcEventHandle") || strstr(t, "IpcMemHandle"))
            return 1;   /* char reserved[64] */
        return size % 8 == 0 ? 8 : size % 4 == 0 ? 4 : 1;
    }
    return size == 1 || size == 2 || size == 4 ? size : 8;
}

/* A scalar of size bytes at q, widened as the wrapper's casts widen it:
 * signed integers sign-extended, the rest (unsigned, enums, pointers, a
 * float's bits) zero-extended. Sizes other than 1, 2, 4, 8: 0. */
static uint64_t widen(const unsigned char *q, unsigned size, int is_signed)
{
    uint8_t b;
    uint16_t h;
    uint32_t w;
    uint64_t d = 0;
    switch (size) {
    case 1: memcpy(&b, q, 1); return is_signed ? (uint64_t)(int64_t)(int8_t)b : b;
    case 2: memcpy(&h, q, 2); return is_signed ? (uint64_t)(int64_t)(int16_t)h : h;
    case 4: memcpy(&w, q, 4); return is_signed ? (uint64_t)(int64_t)(int32_t)w : w;
    case 8: memcpy(&d, q, 8); return d;
    default: return 0;
    }
}

/* --- per callback id: the id and where each argument word comes from ---- */
/* Made once per callback id (the first report of it), so that a report
 * costs a table load and a copy per argument (the default mode, where
 * every runtime call of a static copy is a report). how: 0 zero-extend,
 * 1 sign-extend, 2 the address (a struct passed by value). */
struct rt_plan {
    uint32_t id;   /* CUTAP_ID_ALL: not a function of our runtime layer */
    uint8_t nargs, typed, toomany, status;
    uint16_t off[RT_MAXARGS];
    uint8_t size[RT_MAXARGS], how[RT_MAXARGS];
};
/* Where each parameter lies in the params struct (p->nargs of fi's). */
static void plan_layout(struct rt_plan *p, const struct cutap_fninfo *fi)
{
    size_t off = 0;
    for (unsigned i = 0; i < p->nargs; i++) {
        unsigned size = fi->sizes ? fi->sizes[i] : 8;
        const cutap_arg_info_t *a = fi->args ? &fi->args[i] : NULL;
        int kind = a ? a->kind : CUTAP_ARG_PTR;
        size_t al = param_align(a, size);
        off = (off + al - 1) / al * al;
        p->off[i] = (uint16_t)off;
        p->size[i] = (uint8_t)size;
        p->how[i] = kind == CUTAP_ARG_STRUCT ? 2 : kind == CUTAP_ARG_INT;
        off += size;
    }
}

/* The words our wrapper would have made of the same call: integers widened
 * as the wrapper's casts do, a float's bits in the low half, and a struct
 * passed by value as its address (inside the params struct, valid until
 * the exit callback returns). No params: all zero. */
static inline void plan_words(const struct rt_plan *pl, const unsigned char *p, uint64_t *w)
{
    for (unsigned i = 0; i < pl->nargs; i++)
        w[i] = !p ? 0 : pl->how[i] == 2 ? (uint64_t)(uintptr_t)(p + pl->off[i]) : widen(p + pl->off[i], pl->size[i], pl->how[i]);
}

/* The same for a call without a plan (at most RT_MAXARGS parameters). */
static void params_to_words(const struct cutap_fninfo *fi, const unsigned char *p, uint64_t *w)
{
    struct rt_plan pl = {.nargs = (uint8_t)fi->nargs};
    plan_layout(&pl, fi);
    plan_words(&pl, p, w);
}

static struct rt_plan *_Atomic rt_plans[CBID_CACHE];
static struct rt_plan not_ours = {.id = CUTAP_ID_ALL};

static __attribute__((noinline)) const struct rt_plan *plan_make(uint32_t cbid, const char *name)
{
    struct rt_plan *p;
    uint32_t id = id_of(cbid, name);
    if (id == CUTAP_ID_ALL)
        p = &not_ours;
    else if (!(p = calloc(1, sizeof *p)))
        return NULL;   /* the general way, this time */
    else if (static_id(id) == CUTAP_ID_ALL) {
        p->id = id;   /* a function cutap's layer has not: untyped */
        p->status = 1;
    } else {
        const struct cutap_fninfo *fi = cutap_fn(static_id(id));
        p->id = id;
        p->typed = id < CUTAP_STATIC_COUNT;
        p->nargs = (uint8_t)(p->typed && fi->nargs <= RT_MAXARGS ? fi->nargs : 0);
        p->toomany = fi->nargs > RT_MAXARGS;
        p->status = !fi->nostatus;
        plan_layout(p, fi);
    }
    struct rt_plan *expected = NULL;
    if (!atomic_compare_exchange_strong(&rt_plans[cbid], &expected, p)) {
        if (p != &not_ours)
            free(p);
        p = expected;
    }
    return p;
}

static inline __attribute__((always_inline)) const struct rt_plan *plan_of(uint32_t cbid, const char *name)
{
    if (cbid >= CBID_CACHE)
        return &not_ours;
    const struct rt_plan *p = atomic_load_explicit(&rt_plans[cbid], memory_order_acquire);
    return CUTAP_LIKELY(p != NULL) ? p : plan_make(cbid, name);
}


/* --- which runtime copy reported ------------------------------------------ */
int cutap_rt_cupti;
/* Which copy reported the call: the object of origin, the hook call's
 * return address (core/objects.c). The shared libcudart's is found once,
 * from one of its functions. Returns whether the report is the shared
 * libcudart's, or its copy is not known (NULL origin): counted as the
 * shared one, so that no call counts twice. */
static _Atomic uint32_t shared_object;   /* index + 1 */

/* The adopted shared libcudart's object (index + 1), from any of its
 * resolved functions; 0 while none is known. */
static uint32_t shared_runtime_object(void)
{
    uint32_t so = atomic_load_explicit(&shared_object, memory_order_acquire);
    if (so)
        return so;
    const struct cutap_layer_desc *d = &cutap_layers[CUTAP_LAYER_RUNTIME - CUTAP_FIRST_LIB_LAYER];
    for (uint32_t i = 0; i < d->count && !so; i++) {
        void *r = __atomic_load_n(&cutap_real[d->first + i], __ATOMIC_ACQUIRE);
        if (r)
            so = cutap_object_of(r);
    }
    if (so)
        atomic_store_explicit(&shared_object, so, memory_order_release);
    return so;
}

static int from_shared_runtime(const void *ret)
{
    uint32_t so = ret ? shared_runtime_object() : 0;
    if (!so)
        return 1;
    uint32_t o = cutap_object_of(ret);
    return !o || o == so;   /* in no object: as unknown */
}

/* --- the callback -------------------------------------------------------- */
/* Ends the thread's innermost frame with result. */
static inline __attribute__((always_inline)) void rt_close_top(struct rt_stack *s, uint64_t result)
{
    struct rt_frame *f = &s->f[s->top - 1];
    if (f->fused) {
        struct cutap_thread *t = &cutap_tls;
        cutap_call_t *c = &f->x.call.c;
        t->depth--;
        t->current = c->parent;
        c->result = result;
        cutap_record_report_end(c, f->rec, f->aux);
        s->top--;
        return;
    }
    cutap_external_exit(&f->x, result);
    s->top--;   /* after the post callbacks: a call they make pushes above */
}

/* The entry of a reported call: params is the runtime's parameter struct,
 * corr the call's correlation word (NULL: none), origin an address in the
 * copy that reported it (NULL: not known). */
static inline __attribute__((always_inline)) void rt_enter(uint32_t id, const void *params, uint64_t *corr,
                                                         void *origin, const struct rt_plan *plan, const void *key)
{
    const struct cutap_fninfo *fi = NULL;
    int typed;
    unsigned nargs;
    if (plan) {
        typed = plan->typed;
        nargs = plan->nargs;
    } else {
        uint32_t sid = static_id(id);
        fi = sid == CUTAP_ID_ALL ? NULL : cutap_fn(sid);
        typed = id < CUTAP_STATIC_COUNT;
        nargs = fi ? fi->nargs : 0;
    }
    /* The shared libcudart is in use: our wrapper records this call (a
     * function it has no wrapper for is recorded from the report). */
    int shared = atomic_load_explicit(&cutap_lib_state[CUTAP_LAYER_RUNTIME - CUTAP_FIRST_LIB_LAYER],
                                      memory_order_acquire) == 1;
    if ((shared && static_id(id) != CUTAP_ID_ALL && from_shared_runtime(origin)) ||
        nargs > RT_MAXARGS || (plan && plan->toomany)) {
        if (corr)
            *corr = TAG_NONE;
        return;
    }
    struct rt_stack *s = rt_get();
    if (key && s) {
        /* A record at the address of a call still open: that call is over
         * (the runtime keeps a call's record in its frame; a new call at
         * the same address means the old frame is gone), its exit was not
         * reported: it ends here, with whatever is open above it. */
        unsigned k = s->top;
        while (k && s->f[k - 1].key != key)
            k--;
        while (k && s->top >= k)
            rt_close_top(s, 0);
    }
    if (!s || s->top >= RT_DEPTH) {
        if (corr)
            *corr = TAG_LOST;
        else if (s && !key)
            s->lost++;   /* (with a key, the exit finds no frame of its own) */
        return;
    }
    unsigned k = s->top++;
    struct rt_frame *f = &s->f[k];
    f->key = key;
    /* Runtime calls return cudaError_t; the few that return something
     * else (a string, a struct) are recorded with 0 rather than a guess. */
    f->status = plan ? plan->status : !fi || !fi->nostatus;
    if (plan)
        plan_words(plan, params, f->words);
    else if (typed)
        params_to_words(fi, params, f->words);
    if (corr)
        *corr = TAG_PUSHED;
    f->fused = 0;
    if (plan) {
        /* the recorder alone: its records, without the callbacks; the
         * copy's object from the thread's last report when it is the same */
        struct cutap_thread *t = &cutap_tls;
        cutap_call_t *c = &f->x.call.c;
        uint32_t epoch = atomic_load_explicit(&cutap_record_epoch, memory_order_relaxed);
        if (origin != s->last_origin || epoch != s->last_epoch) {
            s->last_index = cutap_record_origin(origin);
            s->last_origin = origin;
            s->last_epoch = epoch;
        }
        c->id = id;
        c->layer = CUTAP_LAYER_RUNTIME;
        c->flags = (typed ? 0 : CUTAP_CALL_UNTYPED) | CUTAP_CALL_REPORTED;
        c->nargs = typed ? nargs : 0;
        c->depth = t->depth;
        c->args = f->words;
        c->result = 0;
        c->fn = origin;
        c->parent = t->current;
        if (cutap_record_report_begin(c, s->last_index, &f->rec, f->aux)) {
            f->fused = 1;
            t->depth++;
            t->current = c;
            return;
        }
    }
    cutap_external_enter(&f->x, id, f->words, typed ? nargs : 0, typed ? 0 : CUTAP_CALL_UNTYPED, origin);
}

/* Its exit: ret points to the runtime's result (NULL: none); key: the
 * runtime's record of the call (its entry and exit hand the same one: the
 * default mode), or NULL (CUPTI's reports). */
static inline __attribute__((always_inline)) void rt_exit(uint32_t id, const void *ret, uint64_t *corr,
                                                        const void *key)
{
    struct rt_stack *s = rt_stk;
    uint64_t tag = corr ? *corr : 0;
    if (tag == TAG_NONE || tag == TAG_LOST)
        return;
    if (!s)
        return;   /* no entry was ever pushed on this thread */
    if (!corr && !key && s->lost) {
        s->lost--;   /* strictly nested: the deepest entries are the lost ones */
        return;
    }
    if (key) {
        /* The frame this exit ends is the one its record began; frames
         * above it whose exit was never reported end here too (so that one
         * missed exit does not leave every later call nested under it). */
        unsigned k = s->top;
        while (k && s->f[k - 1].key != key)
            k--;
        if (!k)
            return;   /* its entry was not seen (or not recorded) */
        while (s->top > k)
            rt_close_top(s, 0);
    } else if (!s->top || s->f[s->top - 1].x.call.c.id != id)
        return;   /* pop only our own frame: an exit whose entry we missed (made before
                     the subscription) finds another call, or none, on top */
    uint64_t result = 0;
    if (ret && s->f[s->top - 1].status) {
        int32_t r;
        memcpy(&r, ret, sizeof r);
        result = (uint32_t)r;
    }
    rt_close_top(s, result);
}

static void rt_callback(void *userdata, int domain, uint32_t cbid, const void *data)
{
    (void)userdata;
    const struct cutap_cupti_cbdata *cb = data;
    if (domain != CUTAP_CUPTI_CB_DOMAIN_RUNTIME_API || !cb)
        return;
    uint32_t id = id_of(cbid, cb->functionName);
    if (id == CUTAP_ID_ALL)
        return;   /* not a function of our runtime layer: its driver calls stay top-level */
    if (cb->callbackSite == CUTAP_CUPTI_API_ENTER)
        rt_enter(id, cb->functionParams, cb->correlationData, cutap_hook_caller(), NULL, NULL);
    else if (cb->callbackSite == CUTAP_CUPTI_API_EXIT)
        rt_exit(id, cb->functionReturnValue, cb->correlationData, NULL);
}

/* The same from the runtime's own report (resolve/rt_hooks.c): no CUPTI,
 * no correlation word of ours (it is the CUPTI subscriber's, if any). */
void cutap_rt_report(int site, uint32_t cbid, const char *name, const void *params, const void *ret, void *origin,
                     const void *key)
{
    if (site == CUTAP_CUPTI_API_EXIT && key) {
        rt_exit(0, ret, NULL, key);   /* the frame its entry pushed, found by its record */
        return;
    }
    const struct rt_plan *pl = plan_of(cbid, name);
    uint32_t id = pl ? pl->id : id_of(cbid, name);
    if (id == CUTAP_ID_ALL)
        return;
    if (site == CUTAP_CUPTI_API_ENTER)
        rt_enter(id, params, NULL, origin, pl, key);
    else if (site == CUTAP_CUPTI_API_EXIT)
        rt_exit(id, ret, NULL, key);
}

/* Whether origin lies in the shared libcudart our wrappers record. */
int cutap_rt_origin_is_shared(const void *origin)
{
    if (atomic_load_explicit(&cutap_lib_state[CUTAP_LAYER_RUNTIME - CUTAP_FIRST_LIB_LAYER], memory_order_acquire) != 1)
        return 0;
    uint32_t so = shared_runtime_object();
    return so && cutap_object_of(origin) == so;
}

/* --- finding libcupti and subscribing ----------------------------------- */
static char cupti_path[512];

/* CUTAP_CUPTI_LIB, when set, is the one library tried: an explicit choice
 * that fails is reported, not replaced by another CUPTI found elsewhere.
 * Otherwise the loader's search (LD_LIBRARY_PATH, the cache), then the
 * toolkit's usual places. */
static void *open_cupti(char *why, size_t size)
{
    const char *env = getenv("CUTAP_CUPTI_LIB");
    why[0] = 0;
    if (env && *env) {
        void *h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        if (h)
            snprintf(cupti_path, sizeof cupti_path, "%s", env);
        else
            snprintf(why, size, "CUTAP_CUPTI_LIB=%s: %s", env, dlerror());
        return h;
    }
    const char *home = getenv("CUDA_HOME");
    const char *dirs[] = {NULL, home && *home ? home : NULL, "/usr/local/cuda", "/usr/local/cuda"};
    const char *subs[] = {"", "/extras/CUPTI/lib64", "/extras/CUPTI/lib64", "/lib64"};
    static const char *const names[] = {"libcupti.so.13", "libcupti.so"};
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        if (d && !dirs[d])
            continue;
        for (size_t n = 0; n < 2; n++) {
            char p[512];
            if (d)
                snprintf(p, sizeof p, "%s%s/%s", dirs[d], subs[d], names[n]);
            else
                snprintf(p, sizeof p, "%s", names[n]);
            void *h = dlopen(p, RTLD_NOW | RTLD_LOCAL);
            if (h) {
                snprintf(cupti_path, sizeof cupti_path, "%s", p);
                return h;
            }
            if (!why[0])
                snprintf(why, size, "%s", dlerror());
        }
    }
    return NULL;
}

static const char *result_name(cutap_cupti_result r)
{
    const char *s = NULL;
    if (p_result_string && p_result_string(r, &s) != CUTAP_CUPTI_SUCCESS)
        s = NULL;
    return s ? s : "unknown CUPTI error";
}

static void subscribe(void)
{
    char why[600];
    void *h = open_cupti(why, sizeof why);
    if (!h) {
        cutap_warn("--runtime=cupti: libcupti not found (%s); runtime calls are not recorded", why);
        return;
    }
    p_subscribe = (subscribe_fn)cutap_libc_dlsym(h, "cuptiSubscribe");
    p_enable_domain = (enable_domain_fn)cutap_libc_dlsym(h, "cuptiEnableDomain");
    p_unsubscribe = (unsubscribe_fn)cutap_libc_dlsym(h, "cuptiUnsubscribe");
    p_result_string = (result_string_fn)cutap_libc_dlsym(h, "cuptiGetResultString");
    /* CUPTI's own calls through the export tables are the instrument's,
     * not the program's (docs/HIDDEN_API.md: a subscriber makes dozens per
     * runtime call): slot calls made from libcupti pass through unrecorded. */
    if (p_subscribe)
        atomic_store(&cutap_cupti_object, cutap_object_of((const void *)p_subscribe));
    if (!p_subscribe || !p_enable_domain || !p_unsubscribe) {
        cutap_warn("--runtime=cupti: %s lacks cuptiSubscribe/cuptiEnableDomain/cuptiUnsubscribe; runtime calls are "
                   "not recorded", cupti_path);
        return;   /* kept open: unloading a library that may have started threads is not safe */
    }
    cutap_cupti_subscriber sub = NULL;
    cutap_cupti_result r = p_subscribe(&sub, rt_callback, NULL);
    if (r == CUTAP_CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        cutap_warn("--runtime=cupti: CUPTI is already in use by another tool (%s); runtime calls are not recorded",
                   result_name(r));
        return;
    }
    if (r != CUTAP_CUPTI_SUCCESS) {
        cutap_warn("--runtime=cupti: cuptiSubscribe failed (%s, %d); runtime calls are not recorded",
                   result_name(r), r);
        return;
    }
    r = p_enable_domain(1, sub, CUTAP_CUPTI_CB_DOMAIN_RUNTIME_API);
    if (r != CUTAP_CUPTI_SUCCESS) {
        cutap_warn("--runtime=cupti: cuptiEnableDomain(runtime) failed (%s, %d); runtime calls are not recorded",
                   result_name(r), r);
        p_unsubscribe(sub);   /* leave CUPTI free for another tool */
        return;
    }
    /* Never unsubscribed: a call in progress on another thread at exit
     * would otherwise lose its exit report. */
    cutap_log_debug("runtime calls from CUPTI (%s)", cupti_path);
}

static _Atomic int subscribed;   /* 1 once tried (successful or not) */

static void after_cuinit(cutap_call_t *call)
{
    if (call->result != CUTAP_CUDA_SUCCESS || atomic_load_explicit(&subscribed, memory_order_relaxed))
        return;
    if (atomic_exchange(&subscribed, 1))
        return;   /* another thread's cuInit got there first */
    subscribe();
}

/* The runtime reports each call from inside two calls it makes through
 * TOOLS_RUNTIME_CALLBACK_HOOKS at its entry and again at its exit (#4,
 * then #1, CUPTI calling back from inside #1: docs/HIDDEN_API.md). Four
 * slot calls per runtime call: recorded, they cost about 1 us a runtime
 * call on the H100 (bench/gpu/rtcall.sh), more than CUPTI itself. In this
 * mode they are not recorded (CUTAP_HOOK_CALLS=1 records them), but #1
 * keeps its trampoline frame, through a client of cutap's own with no
 * callback: that frame is how a report is told to come from a copy in a
 * library or from the shared libcudart (cutap_hook_caller). */
static int hook_client = -1, record_hooks;
_Atomic uint32_t cutap_cupti_object;

void cutap_cupti_hook_slot(uint32_t id, unsigned slot)
{
    if (!cutap_rt_cupti || (slot != 1 && slot != 4) || record_hooks)
        return;
    int rec = cutap_recorder_client;
    if (rec >= 0)
        cutap_enable(rec, id, 0);
    if (slot == 1 && hook_client >= 0)
        cutap_enable(hook_client, id, 1);
}

void cutap_cupti_rt_configure(const char *mode)
{
    /* unset, "all" or "hooks": the runtime copies' own reports
     * (resolve/rt_hooks.c) */
    if (!mode || !*mode || !strcmp(mode, "all") || !strcmp(mode, "hooks")) {
        cutap_rt_hooks = 1;
        return;
    }
    /* "floor", for bench/gpu/rtcall.sh only: the copies are asked for
     * their reports, which cutap then ignores (what the runtime's own
     * reporting costs, cutap's work left out); nothing is recorded */
    if (!strcmp(mode, "floor")) {
        cutap_rt_hooks = 2;
        return;
    }
    if (!strcmp(mode, "symbols"))
        return;
    if (strcmp(mode, "cupti")) {
        cutap_warn("CUTAP_RUNTIME=%s: takes all, symbols or cupti; runtime calls are taken from symbols only", mode);
        return;
    }
    cutap_rt_cupti = 1;
    const char *hc = getenv("CUTAP_HOOK_CALLS");
    record_hooks = hc && !strcmp(hc, "1");
    if (!record_hooks)
        hook_client = cutap_register("cupti-hook-frames", NULL, NULL, NULL);
    cutap_fixup[CUTAP_ID_cuInit] = after_cuinit;
    cutap_refresh_id(CUTAP_ID_cuInit);   /* cuInit must leave its fast path now */
}
