/* The recorder's calls (writer_internal.h): trace mode (a record per
 * call) and the fused path that serves it and counting mode (count.c,
 * count_internal.h) without the callbacks. The hot path: this file and
 * count_internal.h's inline functions, so that the compiler sees it
 * whole. */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include "count_internal.h"

/* --- trace mode ----------------------------------------------------- */

/* What a call of an id needs, worked out on its first call (the same for
 * every call; two threads working it out at once write the same values):
 * slots when it has no string argument, and flags for the paths it takes.
 * A fresh record's bytes are zero (the file region is new and never
 * reused), so the writer stores only what is not zero. */
static struct plan plans[CUTAP_MAX_IDS];

static const size_t first_room = sizeof(struct cutap_rec_call) - offsetof(struct cutap_rec_call, words);

static inline unsigned slots_for(size_t bytes)
{
    return bytes <= first_room ? 1 : 1 + (unsigned)((bytes - first_room + CUTAP_SLOT - 1) / CUTAP_SLOT);
}

static inline size_t cap_room(const struct cutap_capinfo *c, uint64_t arg)
{
    switch (c->kind) {
    case CUTAP_CAP_IN_BYTES:
    case CUTAP_CAP_OUT_BYTES:
        return (c->size + 7u) & ~7u;
    case CUTAP_CAP_IN_STR:
        return arg ? (strnlen((const char *)(uintptr_t)arg, CUTAP_CAP_STR_MAX) + 8) & ~(size_t)7 : 0;
    default:
        return CUTAP_CAP_OUTSTR_ROOM;
    }
}

/* The plan of a call of id described by fi (a static id's: cutap_fn's, or
 * the description it had when its call began). */
static struct plan make_plan(uint32_t id, const struct cutap_fninfo *fi, unsigned nargs, int untyped)
{
    struct plan p;
    memset(&p, 0, sizeof p);
    p.flags = PLAN_READY;
    size_t bytes = (size_t)nargs * 8;
    /* Static ids: typed calls only (rec_begin_raw records the untyped
     * ones); dynamic ids: untyped, argument words only. */
    if (id < CUTAP_STATIC_COUNT && !untyped) {
        if (fi->nostatus)
            p.flags |= PLAN_NOSTATUS;
        int simple = fi->ncap > 0 && fi->ncap <= 2;
        for (unsigned k = 0; k < fi->ncap; k++) {
            const struct cutap_capinfo *c = &fi->caps[k];
            p.flags |= c->kind == CUTAP_CAP_IN_STR ? PLAN_INSTR : c->kind == CUTAP_CAP_IN_BYTES ? PLAN_IN : PLAN_OUT;
            if (c->kind == CUTAP_CAP_OUT_BYTES && (c->size == 4 || c->size == 8) && simple) {
                struct cutap_capture h = {0, 8, c->arg, c->kind, CUTAP_CAPS_NONE, 0};
                p.out[k].off = (uint16_t)(offsetof(struct cutap_rec_call, words) + bytes);
                p.out[k].arg = c->arg;
                p.out[k].size = (uint8_t)c->size;
                memcpy(&p.hdr[k], &h, sizeof h);
            } else {
                simple = 0;
            }
            if (c->kind != CUTAP_CAP_IN_STR)
                bytes += sizeof(struct cutap_capture) + cap_room(c, 0);
        }
        if (simple) {
            p.flags |= PLAN_SIMPLE;
            p.nsimple = fi->ncap;
        }
        if (fi->func_arg >= 0 && !cutap_no_kernel_names)
            p.flags |= PLAN_FUNC;
    } else if (id >= CUTAP_STATIC_COUNT && !untyped && (cutap_id_flags(id) & CUTAP_DYN_WORDS_AFTER)) {
        p.flags |= PLAN_WORDS;   /* words the callee fills after the call (ioctl layer) */
    }
    p.nslots = (uint16_t)slots_for(bytes);
    return p;
}

struct plan rec_make_plan(uint32_t id, unsigned nargs, int untyped)
{
    return make_plan(id, id < CUTAP_STATIC_COUNT ? cutap_fn(id) : NULL, nargs, untyped);
}

/* The plans of the variants of older CUDA majors (cutap_older_variants'
 * order, issue #28): an id whose layer is bound to such a major is
 * described by its variant from then on, and plans[id] may hold the plan
 * of a call made before (13.0's description). */
#define MAX_VARIANT_PLANS 256
static struct plan vplans[MAX_VARIANT_PLANS];

/* The plan of a typed call of static id made with nargs words, and the
 * description it follows (*fio); NULL when the call does not follow the
 * id's description now (taken with 13.0's signature while no library was
 * loaded, its layer since bound to an older major's variant): recorded
 * as raw words, no capture read. */
static inline struct plan *plan_for(uint32_t id, unsigned nargs, const struct cutap_fninfo **fio)
{
    const struct cutap_older_variant *v = cutap_variant_of(id);
    const struct cutap_fninfo *fi = v ? &v->info : id < CUTAP_DRIVER_COUNT ? &cutap_driver_info[id]
                                                                           : &cutap_lib_info[id - CUTAP_DRIVER_COUNT];
    *fio = fi;
    if (CUTAP_UNLIKELY(nargs != fi->nargs))
        return NULL;
    if (CUTAP_LIKELY(!v))
        return &plans[id];
    size_t k = (size_t)(v - cutap_older_variants);
    return k < MAX_VARIANT_PLANS ? &vplans[k] : NULL;
}

/* Capture headers (and IN bytes/strings) of a typed call with captures. */
/* Fill a capture: bytes, or a string of at most max bytes (the byte after
 * the copy is the string's next byte or its NUL, so truncation shows). */
static void cap_bytes(struct cutap_capture *h, const void *p, size_t len)
{
    memcpy(h + 1, p, len);
    h->len = (uint16_t)len;
    h->state = CUTAP_CAPS_OK;
}

static void cap_string(struct cutap_capture *h, const char *s, size_t max)
{
    size_t len = strnlen(s, max);
    memcpy(h + 1, s, len);
    h->len = (uint16_t)len;
    h->state = s[len] ? CUTAP_CAPS_TRUNCATED : CUTAP_CAPS_OK;
}

static void write_captures(const struct cutap_fninfo *fi, const uint64_t *args, struct cutap_rec_call *r,
                           const size_t *instr_room)
{
    uint64_t *w = r->words + fi->nargs;
    unsigned si = 0;
    for (unsigned k = 0; k < fi->ncap; k++) {
        const struct cutap_capinfo *c = &fi->caps[k];
        struct cutap_capture *h = (struct cutap_capture *)w;
        const void *p = (const void *)(uintptr_t)args[c->arg];
        size_t room = c->kind == CUTAP_CAP_IN_STR ? instr_room[si++] : cap_room(c, 0);
        h->reserved = (uint16_t)room;
        h->arg = c->arg;
        h->kind = c->kind;
        if (p && c->kind == CUTAP_CAP_IN_BYTES)
            cap_bytes(h, p, c->size);
        else if (p && c->kind == CUTAP_CAP_IN_STR && room)
            cap_string(h, p, room - 1 < CUTAP_CAP_STR_MAX ? room - 1 : CUTAP_CAP_STR_MAX);
        w += 1 + room / 8;
    }
}

/* The first call of an id in this file names it and publishes its plan:
 * every field first, flags (non-zero) last, so a thread that sees flags
 * sees the rest. Two threads may do this at once; they store the same
 * values. */
static __attribute__((noinline)) void publish_plan(struct plan *pl, uint32_t id, const struct cutap_fninfo *fi,
                                                   unsigned nargs, int untyped)
{
    rec_name_id(id);
    /* The layer may have been adopted after the id was named (a call made
     * before the library was loaded): said before its first typed record */
    int layer = cutap_call_layer(id);
    if (layer >= 0 && layer < CUTAP_LAYER_COUNT && !atomic_load_explicit(&rec_layer_noted[layer], memory_order_relaxed))
        rec_note_layer(layer);
    struct plan p = make_plan(id, fi, nargs, untyped);
    pl->nslots = p.nslots;
    pl->nsimple = p.nsimple;
    memcpy(pl->out, p.out, sizeof p.out);
    memcpy(pl->hdr, p.hdr, sizeof p.hdr);
    __atomic_store_n(&pl->flags, p.flags, __ATOMIC_RELEASE);
}

/* A call with captures other than SIMPLE ones: sized per call (strings),
 * headers and input bytes written by walking the capture table. */
static __attribute__((noinline)) struct cutap_rec_call *rec_begin_caps(const struct cutap_fninfo *fi,
                                                                        const uint64_t *args, unsigned nargs,
                                                                        unsigned *nslots)
{
    size_t instr_room[8] = {0};
    size_t bytes = (size_t)nargs * 8;
    unsigned si = 0;
    for (unsigned k = 0; k < fi->ncap; k++) {
        size_t room = cap_room(&fi->caps[k], args[fi->caps[k].arg]);
        if (fi->caps[k].kind == CUTAP_CAP_IN_STR && si < 8)
            instr_room[si++] = room;
        bytes += sizeof(struct cutap_capture) + room;
    }
    unsigned n = slots_for(bytes);
    if (n > MAX_REC_SLOTS)
        return rec_lost_call();
    struct cutap_rec_call *r = rec_reserve(n);
    if (!r)
        return rec_lost_call();
    for (unsigned i = 0; i < nargs; i++)
        r->words[i] = args[i];
    write_captures(fi, args, r, instr_room);
    *nslots = n;
    return r;
}

/* An untyped call of a static id (a layer of another major, a call not
 * made, a CUPTI report of an older callback id): its argument words only.
 * Never the id's plan, which is its typed calls' (captures read behind
 * the generated signature's pointers): one id may have calls of both
 * kinds in one process (a typed call made before the library of another
 * major was loaded). */
static __attribute__((noinline)) struct cutap_rec_call *rec_begin_raw(uint32_t id, const uint64_t *args,
                                                                       unsigned nargs, unsigned depth)
{
    rec_name_id(id);
    /* The layer may have been adopted after the id was named (its first
     * call made before the library was loaded). */
    int layer = cutap_call_layer(id);
    if (layer >= 0 && layer < CUTAP_LAYER_COUNT && !atomic_load_explicit(&rec_layer_noted[layer], memory_order_relaxed))
        rec_note_layer(layer);
    unsigned n = slots_for((size_t)nargs * 8);
    struct cutap_rec_call *r = rec_reserve(n);
    if (!r)
        return rec_lost_call();
    for (unsigned i = 0; i < nargs; i++)
        r->words[i] = args[i];
    uint32_t dnc = (uint32_t)(uint16_t)depth | nargs << 16;
    memcpy(&r->depth, &dnc, sizeof dnc);
    r->t0 = cutap_rec_clock();
    unsigned rf = CUTAP_RF_UNTYPED | (cutap_fn(id)->typed && cutap_fn(id)->nostatus ? CUTAP_RF_NOSTATUS : 0);
    uint64_t head = CUTAP_REC_CALL | (uint64_t)rf << 8 | (uint64_t)n << 16 | (uint64_t)id << 32;
    __atomic_store_n((uint64_t *)r, head, __ATOMIC_RELEASE);
    return r;
}

/* Writes the start of a call record; NULL when it cannot be recorded. */
/* extra: slots to reserve behind the record (a dynamic id's call only,
 * for its parameter block: params.c), set to 0 where none were. */
static inline __attribute__((always_inline)) struct cutap_rec_call *rec_begin(uint32_t id, const uint64_t *args, unsigned nargs, unsigned depth,
                                               int untyped, unsigned *extra)
{
    if (CUTAP_UNLIKELY(untyped) && id < CUTAP_STATIC_COUNT)
        return rec_begin_raw(id, args, nargs, depth);
    const struct cutap_fninfo *fi = NULL;
    struct plan *pl = id < CUTAP_STATIC_COUNT ? plan_for(id, nargs, &fi) : &plans[id];
    if (CUTAP_UNLIKELY(!pl))
        return rec_begin_raw(id, args, nargs, depth);
    if (CUTAP_UNLIKELY(!__atomic_load_n(&pl->flags, __ATOMIC_ACQUIRE)))
        publish_plan(pl, id, fi, nargs, untyped);
    else
        rec_name_id(id);   /* (a name its first call could not write: rec_name_id_slow) */
    unsigned n = pl->nslots, ncap = 0;
    struct cutap_rec_call *r;
    if (CUTAP_LIKELY(!(pl->flags & (PLAN_INSTR | PLAN_IN | PLAN_OUT)) || (pl->flags & PLAN_SIMPLE))) {
        if (CUTAP_UNLIKELY(!(r = rec_reserve(n + *extra)))) {
            *extra = 0;
            return rec_lost_call();
        }
        for (unsigned i = 0; i < nargs; i++)
            r->words[i] = args[i];
        for (unsigned k = 0; k < pl->nsimple; k++)
            *(uint64_t *)((char *)r + pl->out[k].off) = pl->hdr[k];
        ncap = pl->nsimple;
    } else {
        *extra = 0;
        if (!(r = rec_begin_caps(fi, args, nargs, &n)))
            return NULL;
        ncap = fi->ncap;
    }
    /* depth, nargs and ncap: one store */
    uint32_t dnc = (uint32_t)(uint16_t)depth | nargs << 16 | ncap << 24;
    memcpy(&r->depth, &dnc, sizeof dnc);
    r->t0 = cutap_rec_clock();
    /* kind, flags, nslots and id in one store, last: a reader sees the
     * record whole or not at all. */
    unsigned rf = (untyped ? CUTAP_RF_UNTYPED : 0) | (pl->flags & PLAN_NOSTATUS ? CUTAP_RF_NOSTATUS : 0);
    uint64_t head = CUTAP_REC_CALL | (uint64_t)rf << 8 | (uint64_t)n << 16 |
                    (uint64_t)id << 32;
    __atomic_store_n((uint64_t *)r, head, __ATOMIC_RELEASE);
    return r;
}

static __attribute__((noinline)) void capture_out(struct cutap_capture *h, const struct cutap_capinfo *c,
                                                   uint64_t arg)
{
    const void *p = (const void *)(uintptr_t)arg;
    if (!p)
        return;
    if (c->kind == CUTAP_CAP_OUT_BYTES) {
        cap_bytes(h, p, c->size);
        return;
    }
    const char *s = c->kind == CUTAP_CAP_OUT_STRPTR ? *(const char *const *)p : (const char *)p;
    if (s && h->reserved)
        cap_string(h, s, h->reserved - 1u);
}

/* Outputs: only after success, when the driver has written them (a failed
 * call may have left a bad pointer untouched). */
static void write_outputs(const struct cutap_fninfo *fi, const uint64_t *args, struct cutap_rec_call *r)
{
    uint64_t *w = r->words + r->nargs;
    for (unsigned k = 0; k < r->ncap; k++) {
        struct cutap_capture *h = (struct cutap_capture *)w;
        if (fi->caps[k].kind != CUTAP_CAP_IN_BYTES && fi->caps[k].kind != CUTAP_CAP_IN_STR)
            capture_out(h, &fi->caps[k], args[fi->caps[k].arg]);
        w += 1 + h->reserved / 8;
    }
}

static inline __attribute__((always_inline)) void rec_end(struct cutap_rec_call *r, uint32_t id, const uint64_t *args, uint64_t result, int skipped,
                           uint64_t t1)
{
    r->t1 = t1;
    r->result = result;
    /* skipped: the CUTAP_RF_SKIPPED and CUTAP_RF_INJECTED bits to set */
    uint8_t fl = r->flags | CUTAP_RF_DONE | (uint8_t)skipped;
    if (CUTAP_UNLIKELY(fl & CUTAP_RF_UNTYPED) && id < CUTAP_STATIC_COUNT) {
        __atomic_store_n(&r->flags, fl, __ATOMIC_RELEASE);   /* rec_begin_raw's: no outputs */
        return;
    }
    const struct cutap_fninfo *fi = NULL;
    const struct plan *pl = id < CUTAP_STATIC_COUNT ? plan_for(id, r->nargs, &fi) : &plans[id];
    if (CUTAP_UNLIKELY(!pl || (fi && fi->ncap != r->ncap && (pl->flags & (PLAN_OUT | PLAN_SIMPLE))))) {
        /* the id's description changed while the call ran (its layer
         * bound to an older major's variant meanwhile): no output read */
        __atomic_store_n(&r->flags, fl, __ATOMIC_RELEASE);
        return;
    }
    uint8_t pf = pl->flags;
    if (CUTAP_UNLIKELY(pf & PLAN_WORDS))
        memcpy(r->words, args, (size_t)r->nargs * 8);
    /* a skipped call: the driver wrote nothing */
    int ok = !skipped && ((pf & PLAN_NOSTATUS) || (uint32_t)result == CUTAP_CUDA_SUCCESS);
    if ((pf & PLAN_SIMPLE) && ok) {
        rec_take_simple(r, args, pl->out, pl->nsimple);
    } else if ((pf & PLAN_OUT) && ok) {
        write_outputs(fi, args, r);
    }
    __atomic_store_n(&r->flags, fl, __ATOMIC_RELEASE);
    if (CUTAP_UNLIKELY(pf & PLAN_FUNC) && ok)
        rec_name_function(args[fi->func_arg]);
}

/* Objects that runtime calls reported through CUPTI came from (issue #14):
 * named in the file (CUTAP_META_OBJECT) before the first record of one. */
#define MAX_NOTED_OBJECTS 1024
static _Atomic uint8_t object_noted[MAX_NOTED_OBJECTS];

__attribute__((noinline)) uint32_t rec_origin_of(const void *fn)
{
    uint32_t o = cutap_object_of(fn);
    if (!o || o > MAX_NOTED_OBJECTS)
        return 0;
    if (!atomic_load_explicit(&object_noted[o - 1], memory_order_acquire) &&
        !atomic_exchange(&object_noted[o - 1], 1)) {
        uint64_t base = 0;
        const char *path = cutap_object_path(o, &base);
        if (rec_write_meta_n(CUTAP_META_OBJECT, o - 1, base, path ? path : "?", strlen(path ? path : "?")) > 0)
            atomic_store(&object_noted[o - 1], 0);   /* not written: by the object's next record */
    }
    return o;
}

/* trace_pre's scratch for a call counted (outside a capture), not recorded:
 * never a record's address (user space), never a start time */
#define SCRATCH_COUNTED (1ull << 62)

static int trace_pre(cutap_call_t *call, void *ctx, uint64_t *scratch)
{
    if (CUTAP_UNLIKELY(!atomic_load_explicit(&rec_cap_on, memory_order_relaxed))) {
        rec_count_pre(call, ctx, scratch);
        *scratch |= SCRATCH_COUNTED;
        return CUTAP_PROCEED;
    }
    (void)ctx;
    uint32_t origin = CUTAP_UNLIKELY((call->flags & CUTAP_CALL_REPORTED) && call->fn) ? rec_origin_of(call->fn) : 0;
    /* an RM call's parameter block (--ioctl-params): room behind the record */
    struct cutap_ioc_blk *blk = cutap_tls.ioc_blk;
    unsigned extra = 0;
    if (CUTAP_UNLIKELY(blk != NULL) && blk->args == call->args && call->id >= CUTAP_STATIC_COUNT &&
        call->id < CUTAP_MAX_IDS && !(call->flags & CUTAP_CALL_UNTYPED))
        extra = rec_blk_slots(blk, slots_for((size_t)call->nargs * 8));   /* a dynamic id's plan */
    struct cutap_rec_call *r = rec_begin(call->id, call->args, call->nargs, call->depth,
                                         !!(call->flags & CUTAP_CALL_UNTYPED), &extra);
    if (CUTAP_UNLIKELY(extra) && r)
        rec_blk_begin(r, blk, extra);
    if (r && origin)
        r->origin = origin;
    if (CUTAP_UNLIKELY(rec_stack_on) && r && call->id < CUTAP_MAX_IDS && rec_stack_ids[call->id])
        rec_write_stack(r, call->id);
    *scratch = (uintptr_t)r;
    return CUTAP_PROCEED;
}

static void trace_post(cutap_call_t *call, void *ctx, uint64_t *scratch)
{
    if (CUTAP_UNLIKELY(*scratch & SCRATCH_COUNTED)) {
        *scratch &= ~SCRATCH_COUNTED;
        rec_count_post(call, ctx, scratch);
        return;
    }
    (void)ctx;
    uint64_t t1 = cutap_rec_clock();
    struct cutap_rec_call *r = (struct cutap_rec_call *)(uintptr_t)*scratch;
    struct cutap_ioc_blk *blk = cutap_tls.ioc_blk;
    if (CUTAP_UNLIKELY(blk != NULL) && blk->rec && blk->args == call->args && r)
        rec_blk_end(blk);   /* before the call's DONE: a reader that sees it done sees the block */
    if (r)
        rec_end(r, call->id, call->args, call->result,
                (call->flags & CUTAP_CALL_SKIPPED ? CUTAP_RF_SKIPPED : 0) |
                    (call->flags & CUTAP_CALL_INJECTED ? CUTAP_RF_INJECTED : 0), t1);
    if (CUTAP_UNLIKELY(rec_stack_errors) && r && !(call->id < CUTAP_MAX_IDS && rec_stack_ids[call->id]) &&
        cutap_call_is_error(call))
        rec_write_stack(r, call->id);
}

/* --- fused path ------------------------------------------------------ */

/* When the recorder is the only client that wants a typed call, dispatch
 * comes here instead of running the callbacks: the same records, without
 * the callback machinery (the budget of issue #3 is 25 ns per call; the
 * callbacks alone cost more). tests/run.sh fused_path_same_records checks
 * that both paths write the same records and the same counters. */
_Atomic uint8_t cutap_fast_mask;
/* The join's client's bit under `trace --gpu` (record/gpu.c sets it before
 * it asks for the enqueuing functions): refresh hands their trace fast
 * paths' --gpu variants out where it and the recorder are the clients. */
_Atomic uint8_t cutap_gpu_fast_bit;

/* Counting mode, a timed call (how: count_is_timed's answer), or one that
 * cannot be counted (c NULL). */
static __attribute__((noinline)) uint64_t count_fast_timed(cutap_call_t *call, cutap_thunk_t thunk,
                                                            struct rec_thread *r, struct cutap_counter *c,
                                                            unsigned how)
{
    struct cutap_thread *t = &cutap_tls;
    uint64_t t0 = 0;
    if (c) {
        rec_count_timed_begin(r, call->id);
        t0 = cutap_rec_clock();
    }
    t->depth++;
    t->current = call;
    uint64_t result = thunk(call->fn, call->args);
    uint64_t t1 = c ? cutap_rec_clock() : 0;
    t->depth--;
    t->current = call->parent;
    if (c) {
        count_timed_end(c, t1 - t0, how);
        count_call(c, cutap_result_is_error(call->id, result));
        count_retag(r, call->id, c);
    } else
        rec_lost_call();
    return result;
}

static __attribute__((noinline)) uint64_t trace_fast(cutap_call_t *call, cutap_thunk_t thunk)
{
    struct cutap_thread *t = &cutap_tls;
    uint32_t id = call->id;
    unsigned none = 0;
    struct cutap_rec_call *r = rec_begin(id, call->args, call->nargs, call->depth, 0, &none);
    t->depth++;
    t->current = call;
    uint64_t result = thunk(call->fn, call->args);
    uint64_t t1 = cutap_rec_clock();
    t->depth--;
    t->current = call->parent;
    if (r)
        rec_end(r, id, call->args, result, 0, t1);
    return result;
}

/* Counting mode. An untimed call: counter, countdown, calls and errors;
 * no clock, no name, no division. */
static __attribute__((noinline)) uint64_t count_fast(cutap_call_t *call, cutap_thunk_t thunk)
{
    struct cutap_thread *t = &cutap_tls;
    struct rec_thread *r = &cutap_rt;
    struct cutap_counter *c = counter_of(r, call->id);
    unsigned how;
    if (CUTAP_UNLIKELY(!c || (how = count_is_timed(r, c))))
        return count_fast_timed(call, thunk, r, c, c ? how : 0);
    t->depth++;
    t->current = call;
    uint64_t result = thunk(call->fn, call->args);
    t->depth--;
    t->current = call->parent;
    count_call(c, cutap_result_is_error(call->id, result));
    return result;
}

uint64_t cutap_record_fast(cutap_call_t *call, cutap_thunk_t thunk)
{
    return rec_file.counts || CUTAP_UNLIKELY(!atomic_load_explicit(&rec_cap_on, memory_order_relaxed)) ? count_fast(call, thunk)
                                                                                          : trace_fast(call, thunk);
}

/* The object index (+1) a record names for code at fn (0: none). */
uint32_t cutap_record_origin(const void *fn)
{
    return fn ? rec_origin_of(fn) : 0;
}

/* A call a runtime copy reported (resolve/rt_calls.c, from
 * resolve/rt_hooks.c), or an untyped call of the generic trampoline (an
 * export-table slot, an undeclared export: core/dispatch.c), while the
 * recorder traces and is the call's only client: trace_pre's and
 * trace_post's records, without the callback machinery (counting mode,
 * or trace mode outside a capture: counted as count_fast does, aux its
 * two words); origin: cutap_record_origin of
 * call->fn. 0: the general path must take it; 1: taken, *out the record
 * begun (NULL: lost, counted), or the counter (tagged). */
int cutap_record_report_begin(cutap_call_t *call, uint32_t origin, void **out, uint64_t *aux)
{
    uint32_t id = call->id;
    uint8_t fm = atomic_load_explicit(&cutap_fast_mask, memory_order_relaxed);
    if (CUTAP_UNLIKELY(!fm || id >= CUTAP_MAX_IDS || atomic_load_explicit(&cutap_mask[id], memory_order_relaxed) != fm))
        return 0;
    if (rec_file.counts || CUTAP_UNLIKELY(!atomic_load_explicit(&rec_cap_on, memory_order_relaxed))) {
        /* counted, as count_fast and count_fast_timed count: *out the
         * counter, tagged (bit 0); aux: how it is timed, and the start */
        struct rec_thread *t = &cutap_rt;
        struct cutap_counter *c = counter_of(t, id);
        if (!c)
            return 0;   /* the general path counts the loss */
        unsigned how = count_is_timed(t, c);
        aux[0] = how;
        if (how) {
            rec_count_timed_begin(t, id);
            aux[1] = cutap_rec_clock();
        }
        *out = (void *)((uintptr_t)c | 1);
        return 1;
    }
    if (CUTAP_UNLIKELY(rec_stack_on && rec_stack_ids[id]))
        return 0;
    unsigned none = 0;
    struct cutap_rec_call *r = rec_begin(id, call->args, call->nargs, call->depth,
                                         !!(call->flags & CUTAP_CALL_UNTYPED), &none);
    if (r && origin)
        r->origin = origin;
    *out = r;
    return 1;
}

void cutap_record_report_end(cutap_call_t *call, void *rec, const uint64_t *aux)
{
    if ((uintptr_t)rec & 1) {
        struct cutap_counter *c = (struct cutap_counter *)((uintptr_t)rec & ~(uintptr_t)1);
        unsigned how = (unsigned)aux[0];
        if (how)
            count_timed_end(c, cutap_rec_clock() - aux[1], how);
        count_call(c, cutap_call_is_error(call));   /* (an untyped call's result is no status) */
        if (how)
            count_retag(&cutap_rt, call->id, c);
        return;
    }
    uint64_t t1 = cutap_rec_clock();
    if (rec)
        rec_end(rec, call->id, call->args, call->result, 0, t1);
}

/* Which fast paths refresh may hand out: 0 none, 1 trace, 2 counting
 * (record_internal.h). */
int cutap_fast_kind;

int rec_register(int counts)
{
    return counts ? cutap_register("count", rec_count_pre, rec_count_post, NULL)
                  : cutap_register("trace", trace_pre, trace_post, NULL);
}

/* The forking thread's plans and entries are the parent's. */
_Atomic uint32_t cutap_record_epoch;
void rec_calls_after_fork(void)
{
    atomic_fetch_add(&cutap_record_epoch, 1);   /* cached origins name objects the new file has not */
    for (unsigned i = 0; i < MAX_NOTED_OBJECTS; i++)
        atomic_store_explicit(&object_noted[i], 0, memory_order_relaxed);
    rec_count_after_fork();
    memset(plans, 0, sizeof plans);
}
