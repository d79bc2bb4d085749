/* Runtime calls from the runtime's own reports (issues #14 and #25): a
 * report (a call's entry or exit, with its callback id, name, parameter
 * struct and result) becomes a call of layer "runtime" with the id,
 * argument words and result our symbol wrapper would record, nested over
 * the driver calls made inside it. Reports come from the runtime copies'
 * own hooks (the default, resolve/rt_hooks.c) or from CUPTI
 * (--runtime=cupti, resolve/cupti_rt.c).
 *
 * Per thread, a stack of the calls in progress; per callback id, a plan
 * (the id, where each argument word lies in the parameter struct), made
 * at its first report. Which copy made a report is the object of its
 * origin (the hook call's return address): a report of the shared
 * libcudart, whose calls our symbol wrappers record, is dropped. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "resolve_internal.h"

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
    const struct rt_plan *plan;   /* fused 2: its template */
    int fused;                    /* recorded by the recorder's fused path (1), in place (2) */
    int status;                   /* its result is a cudaError_t (recorded), not a string or struct */
};
struct rt_stack {
    unsigned top;
    const void *last_origin;   /* the copy of the thread's last report, */
    uint32_t last_index;       /* its object (cutap_record_origin), */
    uint32_t last_epoch;       /* cutap_record_epoch, */
    int last_state;            /* the runtime layer's state (cutap_lib_state) then (-1: ask again), */
    int last_own;              /* and whether its reports are all recorded from them (not the
                                  shared libcudart's while our wrappers record that) */
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

/* "cudaMalloc_v3020" -> "cudaMalloc", in place. CUPTI's versions have 4
 * or 5 digits (3020, 10010, 12030); "_v2" and "_v3" are the functions' own
 * names (cudaStreamGetCaptureInfo_v2 takes 6 parameters, the plain one 3,
 * 13.0's 7: read with another's layout, an output pointer would be taken
 * from the wrong place). */
static void strip_version(char *buf)
{
    size_t n = strlen(buf), d = n;
    while (d > 0 && buf[d - 1] >= '0' && buf[d - 1] <= '9')
        d--;
    if (n - d >= 4 && d >= 2 && buf[d - 1] == 'v' && buf[d - 2] == '_')
        buf[d - 2] = 0;
}

/* A static id's description as the pinned headers (or, for a function 13.0
 * dropped, the older major's that declares it) give it: what a report's
 * parameter struct holds, whatever the shared runtime bound in this
 * process has (a variant of an older major, cutap_fn's answer then). */
static const struct cutap_fninfo *report_fn(uint32_t sid)
{
    if (sid < CUTAP_DRIVER_COUNT || sid >= CUTAP_STATIC_COUNT)
        return &cutap_driver_info[0];   /* never (runtime ids only): a description, not a wild pointer */
    return &cutap_lib_info[sid - CUTAP_DRIVER_COUNT];
}

/* Whether a report of static id sid must be recorded untyped: the shared
 * runtime bound in this process is of an older major that declares the
 * function otherwise (issue #28), so the id's records and its description
 * in the trace are that major's, not the report's. */
static inline int report_untyped(uint32_t sid)
{
    return cutap_variant_of(sid) != NULL;
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

static int cbid_unsafe(uint32_t cbid)
{
    for (unsigned i = 0; i < cutap_older_unsafe_cbid_count; i++)
        if (cutap_older_unsafe_cbids[i] == cbid)
            return 1;
    return 0;
}

/* Whether a callback id's parameters are the pinned headers': the newest
 * of its function in 13.0's cupti_runtime_cbid.h, and not one an older
 * major reported another signature by (cutap_older_unsafe_cbids: only the
 * words as a whole could tell which; issue #28). */
static int cbid_current(uint32_t cbid)
{
    return cbid < cutap_rt_cbid_count && (cutap_rt_cbid_current[cbid / 8] >> (cbid % 8) & 1) && !cbid_unsafe(cbid);
}

/* Per dynamic id made for an older callback id of known signature: that
 * description (a variant of an older major's, or the pinned one where the
 * signature is the same), NULL for the others. */
static const struct cutap_fninfo *_Atomic older_info[CUTAP_MAX_IDS - CUTAP_STATIC_COUNT];

static const struct cutap_fninfo *older_info_of(uint32_t id)
{
    return id >= CUTAP_STATIC_COUNT && id < CUTAP_MAX_IDS
               ? atomic_load_explicit(&older_info[id - CUTAP_STATIC_COUNT], memory_order_acquire)
               : NULL;
}

/* The description of an older callback id of static id st
 * (cutap_older_cbids, sorted), NULL: none known. */
static const struct cutap_fninfo *older_cbid_info(uint32_t cbid, uint32_t st)
{
    unsigned lo = 0, hi = cutap_older_cbid_count;
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        if (cutap_older_cbids[mid].cbid < cbid)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == cutap_older_cbid_count || cutap_older_cbids[lo].cbid != cbid || cutap_older_cbids[lo].id != st)
        return NULL;   /* (a name that is not the function's: not trusted) */
    int v = cutap_older_cbids[lo].variant;
    return v < 0 ? report_fn(st) : &cutap_older_variants[v].info;
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
        /* An older version of the function (a static runtime of another
         * major): typed where the generators know its signature from that
         * major's headers (issue #28), under an id of its own that the
         * trace describes with those parameters; else untyped. */
        struct cutap_tramp_ctx *ctx;
        uint32_t st = id;
        const struct cutap_fninfo *oi = older_cbid_info(cbid, st);
        if (oi && oi->nargs <= RT_MAXARGS)
            id = cutap_id_new_typed(report_fn(st)->name, CUTAP_LAYER_RUNTIME, oi->nargs, oi->args,
                                    oi->nostatus ? 0 : CUTAP_DYN_STATUS);
        else
            id = cutap_id_new(report_fn(st)->name, CUTAP_LAYER_RUNTIME, &ctx);
        if (id != CUTAP_ID_ALL) {
            if (oi && oi->nargs <= RT_MAXARGS)
                atomic_store_explicit(&older_info[id - CUTAP_STATIC_COUNT], oi, memory_order_release);
            atomic_store(&static_of[id - CUTAP_STATIC_COUNT], st + 1);
        }
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
    uint8_t fast;     /* recorded by cutap_rt_hook_enter's straight path (id known, not too many words) */
    uint8_t natural;  /* every parameter a word at 8 * its index (pointers, sizes): copied as words */
    uint32_t flags;   /* the call's CUTAP_CALL_* flags */
    struct cutap_rp rp;   /* the recorder's template: its records written in place (head 0: none) */
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
    if (pl->natural && p) {
        for (unsigned i = 0; i < pl->nargs; i++)
            memcpy(&w[i], p + 8 * i, 8);
        return;
    }
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
        const struct cutap_fninfo *oi = older_info_of(id);
        const struct cutap_fninfo *fi = oi ? oi : report_fn(static_id(id));
        p->id = id;
        p->typed = oi || (id < CUTAP_STATIC_COUNT && !report_untyped(id));
        p->nargs = (uint8_t)(p->typed && fi->nargs <= RT_MAXARGS ? fi->nargs : 0);
        p->toomany = fi->nargs > RT_MAXARGS;
        p->status = !fi->nostatus;
        plan_layout(p, fi);
        if (p->typed && !p->toomany)
            cutap_record_rp(id, p->nargs, &p->rp);
    }
    if (p != &not_ours) {
        p->fast = !p->toomany;
        p->natural = 1;
        for (unsigned i = 0; i < p->nargs; i++)
            p->natural &= p->size[i] == 8 && p->how[i] != 2 && p->off[i] == 8 * i;   /* (8 bytes: no widening) */
        p->flags = (p->typed ? 0 : CUTAP_CALL_UNTYPED) | CUTAP_CALL_REPORTED;
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
/* The thread's cache of its last report's copy: its object as the records
 * name it, and whether every report it makes is recorded from the report
 * (no shared libcudart in use, or the copy is not it): what lets the next
 * report of the same copy take the straight path. */
static __attribute__((noinline)) void origin_cache(struct rt_stack *s, const void *origin, uint32_t epoch, int shared)
{
    s->last_index = cutap_record_origin(origin);
    s->last_origin = origin;
    s->last_epoch = epoch;
    s->last_state = shared;
    if (!shared)
        s->last_own = 1;
    else {
        uint32_t so = shared_runtime_object(), o = origin ? cutap_object_of(origin) : 0;
        s->last_own = so && o && o != so;
        if (!so)
            s->last_state = -1;   /* the shared libcudart's object not known yet: asked again next time */
    }
}

/* Ends the thread's innermost frame with result; missed: its exit was
 * never reported (recorded as 0, and ended with its words zero: no output
 * is read through its pointers, which may be gone, and the post callbacks
 * see none). */
static inline __attribute__((always_inline)) void rt_close_frame(struct rt_stack *s, uint64_t result, int missed)
{
    struct rt_frame *f = &s->f[s->top - 1];
    if (missed)
        memset(f->words, 0, sizeof f->words);   /* its words (the call's args) no longer point anywhere */
    if (f->fused) {
        struct cutap_thread *t = &cutap_tls;
        cutap_call_t *c = &f->x.call.c;
        t->depth--;
        t->current = c->parent;
        if (CUTAP_LIKELY(f->fused == 2)) {
            cutap_record_rp_end(&f->plan->rp, f->rec, c->args, result);
        } else {
            c->result = result;
            cutap_record_report_end(c, f->rec, f->aux);
        }
        s->top--;
        return;
    }
    cutap_external_exit(&f->x, result);
    s->top--;   /* after the post callbacks: a call they make pushes above */
}
static inline __attribute__((always_inline)) void rt_close_top(struct rt_stack *s, uint64_t result)
{
    rt_close_frame(s, result, 0);
}
static inline __attribute__((always_inline)) void rt_close_missed(struct rt_stack *s)
{
    rt_close_frame(s, 0, 1);
}

/* A reported call of a plan begun by the recorder alone, its words in
 * f->words and its copy in the thread's origin cache: 1 (the thread's
 * current call now), or 0 (the general way). */
static inline __attribute__((always_inline)) int fused_begin(struct rt_stack *s, struct rt_frame *f,
                                                           const struct rt_plan *pl, void *origin)
{
    struct cutap_thread *t = &cutap_tls;
    cutap_call_t *c = &f->x.call.c;
    c->id = pl->id;
    c->layer = CUTAP_LAYER_RUNTIME;
    c->flags = pl->flags;
    c->nargs = pl->nargs;   /* 0 when untyped */
    c->depth = t->depth;
    c->args = f->words;
    c->result = 0;
    c->fn = origin;
    c->parent = t->current;
    c->t0 = c->t1 = 0;
    if (!cutap_record_report_begin(c, s->last_index, &f->rec, f->aux))
        return 0;
    f->fused = 1;
    t->depth++;
    t->current = c;
    return 1;
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
        const struct cutap_fninfo *oi = older_info_of(id);
        fi = oi ? oi : sid == CUTAP_ID_ALL ? NULL : report_fn(sid);
        typed = oi || id < CUTAP_STATIC_COUNT;
        nargs = fi ? fi->nargs : 0;
    }
    if (typed && report_untyped(id)) {
        /* (a plan made before the older runtime was adopted) */
        plan = NULL;
        typed = 0;
        nargs = 0;
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
            rt_close_missed(s);
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
        uint32_t epoch = atomic_load_explicit(&cutap_record_epoch, memory_order_relaxed);
        if (origin != s->last_origin || epoch != s->last_epoch || (int)shared != s->last_state)
            origin_cache(s, origin, epoch, shared);
        if (fused_begin(s, f, plan, origin))
            return;
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
            rt_close_missed(s);
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

/* A CUPTI subscriber's report (resolve/cupti_rt.c): corr is the call's
 * correlation word, origin the copy's code (NULL: not known). */
void cutap_rt_cupti_report(int site, uint32_t cbid, const char *name, const void *params, const void *ret,
                           uint64_t *corr, void *origin)
{
    uint32_t id = id_of(cbid, name);
    if (id == CUTAP_ID_ALL)
        return;   /* not a function of our runtime layer: its driver calls stay top-level */
    if (site == 0)
        rt_enter(id, params, corr, origin, NULL, NULL);
    else if (site == 1)
        rt_exit(id, ret, corr, NULL);
}

/* The same from the runtime's own report (resolve/rt_hooks.c): no CUPTI,
 * no correlation word of ours (it is the CUPTI subscriber's, if any). */
void cutap_rt_report(int site, uint32_t cbid, const char *name, const void *params, const void *ret, void *origin,
                     const void *key)
{
    if (site == 1 && key) {
        rt_exit(0, ret, NULL, key);   /* the frame its entry pushed, found by its record */
        return;
    }
    const struct rt_plan *pl = plan_of(cbid, name);
    uint32_t id = pl ? pl->id : id_of(cbid, name);
    if (id == CUTAP_ID_ALL)
        return;
    if (site == 0)
        rt_enter(id, params, NULL, origin, pl, key);
    else if (site == 1)
        rt_exit(id, ret, NULL, key);
}

/* The default mode's reports, straight through: a report of the thread's
 * last copy, of a function whose plan is made, recorded by the recorder
 * alone (cutap_record_report_begin), with no older call of the same record
 * open; anything else takes cutap_rt_report's way. The same records, the
 * same nesting; the entry and the exit each one small function, the rest
 * out of line (issue #25: the cost per reported call). */
static __attribute__((noinline)) uint64_t hook_enter_general(const struct rt_record *r, void *origin)
{
    cutap_rt_report(0, r->cbid, r->name, r->params, NULL, origin, r);
    return 0;
}

uint64_t cutap_rt_hook_enter(const struct rt_record *r, void *origin)
{
    struct rt_stack *s = rt_stk;
    uint32_t cbid = r->cbid;
    const struct rt_plan *pl;
    if (CUTAP_LIKELY(cbid < CBID_CACHE && (pl = atomic_load_explicit(&rt_plans[cbid], memory_order_acquire)) &&
                     pl->fast && !(pl->typed && report_untyped(pl->id)) && s && origin == s->last_origin &&
                     s->last_own && s->top < RT_DEPTH &&
                     s->last_state == (atomic_load_explicit(&cutap_lib_state[CUTAP_LAYER_RUNTIME - CUTAP_FIRST_LIB_LAYER],
                                                            memory_order_acquire) == 1) &&
                     s->last_epoch == atomic_load_explicit(&cutap_record_epoch, memory_order_relaxed))) {
        unsigned k = s->top;
        while (k && s->f[k - 1].key != r)
            k--;
        if (CUTAP_LIKELY(!k)) {
            /* the frame is the thread's before it is filled (as rt_enter
             * does): a report made meanwhile by a signal handler on this
             * thread takes the next one */
            struct rt_frame *f = &s->f[s->top++];
            f->key = r;
            f->status = pl->status;
            f->fused = 0;
            plan_words(pl, r->params, f->words);
            uint8_t fm;
            void *rec;
            if (CUTAP_LIKELY(pl->rp.head && __atomic_load_n(&cutap_fast_kind, __ATOMIC_ACQUIRE) == 1 &&
                             (fm = atomic_load_explicit(&cutap_fast_mask, memory_order_relaxed)) &&
                             atomic_load_explicit(&cutap_mask[pl->id], memory_order_relaxed) == fm)) {
                /* the record written in place from the recorder's template */
                struct cutap_thread *t = &cutap_tls;
                unsigned depth = t->depth;
                if (CUTAP_LIKELY((rec = cutap_record_rp_begin(&pl->rp, pl->id, f->words, depth, s->last_index)) != NULL)) {
                    cutap_call_t *c = &f->x.call.c;
                    c->id = pl->id;
                    c->layer = CUTAP_LAYER_RUNTIME;
                    c->flags = pl->flags;
                    c->nargs = pl->nargs;
                    c->depth = depth;
                    c->args = f->words;
                    c->result = 0;
                    c->fn = origin;
                    c->parent = t->current;
                    c->t0 = c->t1 = 0;
                    f->rec = rec;
                    f->plan = pl;
                    f->fused = 2;
                    t->depth = depth + 1;
                    t->current = c;
                    return 0;
                }
            }
            if (fused_begin(s, f, pl, origin))
                return 0;
            s->top--;   /* not begun: the general way, from the same place */
        }
    }
    return hook_enter_general(r, origin);
}

static __attribute__((noinline)) uint64_t hook_exit_general(const struct rt_record *r)
{
    rt_exit(0, r->result, NULL, r);
    return 0;
}

uint64_t cutap_rt_hook_exit(const struct rt_record *r)
{
    struct rt_stack *s = rt_stk;
    unsigned top;
    struct rt_frame *f;
    if (CUTAP_LIKELY(s && (top = s->top) && (f = &s->f[top - 1])->key == r && f->fused)) {
        /* the frame its entry pushed, on top */
        uint64_t result = 0;
        if (r->result && f->status) {
            int32_t v;
            memcpy(&v, r->result, sizeof v);
            result = (uint32_t)v;
        }
        rt_close_top(s, result);
        return 0;
    }
    return hook_exit_general(r);
}

/* Whether origin lies in the shared libcudart our wrappers record. */
int cutap_rt_origin_is_shared(const void *origin)
{
    if (atomic_load_explicit(&cutap_lib_state[CUTAP_LAYER_RUNTIME - CUTAP_FIRST_LIB_LAYER], memory_order_acquire) != 1)
        return 0;
    uint32_t so = shared_runtime_object();
    return so && cutap_object_of(origin) == so;
}

