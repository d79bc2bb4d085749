/* The calls in time order (trace_read.h, tr_iter): a merge of the
 * threads' record streams, parents and depths on the way. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "read_internal.h"

/* --- the calls in time order (trace_read.h, tr_iter) -------------------- */

/* Parents, from the nesting depth: on a thread, calls come in start order
 * (its records in run order), and a call at depth d ran inside the latest
 * call at depth d-1 before it, if that one had not returned when this one
 * started (else, a damaged file: none known).
 *
 * With NVTX ranges: a push/pop range open on the thread at the call's
 * recorded depth, and opened after that call (inside it), is the parent
 * instead; ranges close after their pop (by record order on the thread).
 * Depths are then made to count the ranges: a call's depth is its
 * recorded depth plus the number of ranges among its ancestors.
 *
 * Selection (tr_select): an entry left out is still a parent for the
 * stack; a returned entry's parent is its nearest returned caller, and its
 * depth drops by the callers left out. Calls deeper than MAX_TREE_DEPTH
 * (read_internal.h) get no parent. */

/* An entry as a parent: a call open at its depth on its thread, or a range. */
struct tr_slot {
    uint64_t raw1;             /* entry number + 1 (order of the merge, selected or not); 0: empty */
    uint64_t t1;               /* a call's end (0: unfinished) */
    uint64_t user;             /* user word of the nearest returned entry among it and its callers */
    uint64_t up;               /* index + 1 of that entry (0: none) */
    uint32_t shift;            /* ranges among its callers */
    uint16_t gone;             /* callers not returned */
    uint8_t kept, is_range;
};

struct tr_rstate {             /* a range during an iteration */
    struct tr_slot slot;
    uint32_t below, outer;     /* the open range it hid at its depth; the next outer open range (index + 1) */
};

struct tr_cursor {             /* a thread's records, read in run order */
    const struct tr_proc *p;
    size_t off, end;           /* next slot of the current run, end of its chunk */
    uint32_t rk, left;         /* next run (index in the thread's run_order slice), calls left in this one */
    uint32_t pk, pleft;        /* load order numbers: the places of the thread's runs in file order */
    uint64_t pseq;
    int has_head;
    struct tr_call head;       /* the thread's next call */
    uint32_t next_range;       /* its next range not yet returned (index + 1) */
    struct tr_slot *open;      /* latest call at each depth */
    uint32_t nopen;
    uint32_t *range_at;        /* innermost open push/pop range at each recorded depth (index + 1) */
    uint32_t nrange_at;
    uint32_t top;              /* innermost open push/pop range of the thread (index + 1) */
    const struct tr_proc *id_p;   /* the last record's file and id, and that id's name index: */
    uint32_t id, id_name;         /* a thread's calls are mostly of few ids (rd_id_lookup a call
                                     was a sixth of the reading) */
};

/* Room for index d (< MAX_TREE_DEPTH) in one of a thread's per-depth
 * arrays (arr, of *n elements of size bytes, grown by doubling, zeroed);
 * returns the array, maybe moved. */
static void *need_depth(void *arr, uint32_t *n, uint32_t d, size_t size)
{
    if (d < *n)
        return arr;
    uint32_t m = *n ? *n : 8;
    while (m <= d)
        m *= 2;
    if (m > MAX_TREE_DEPTH)
        m = MAX_TREE_DEPTH;
    arr = rd_xrealloc0(arr, *n, m, size);
    *n = m;
    return arr;
}

/* The cursor's next call as its head; 0 when the thread has no more. */
static int cursor_load(const struct trace *tr, struct tr_cursor *c, uint32_t t)
{
    const struct tr_thread *th = &tr->threads[t];
    for (;;) {
        if (!c->left) {
            if (c->rk >= th->nrun)
                return c->has_head = 0;
            const struct tr_run *r = &tr->runs[tr->run_order[th->run0 + c->rk++]];
            c->p = &tr->procs[r->proc];
            c->off = r->off;
            c->end = r->end;
            c->left = r->count;
            continue;
        }
        const struct cutap_rec_call *rec = rd_next_call_record(c->p, &c->off, c->end);
        if (!rec) {
            c->left = 0;   /* the run ends early: its file changed since the scan */
            continue;
        }
        c->left--;
        if (!c->pleft && c->pk < th->nrun) {
            const struct tr_run *q = &tr->runs[tr->place_order[th->run0 + c->pk++]];
            c->pseq = q->seq0;
            c->pleft = q->count;
        }
        if (c->pleft)
            c->pleft--;
        if (c->id_p != c->p || c->id != rec->id) {   /* (a loaded trace's names do not change) */
            c->id_p = c->p;
            c->id = rec->id;
            c->id_name = rd_id_lookup(tr, c->p, rec->id);
        }
        rd_fill_call_named(c->p, rec, t, c->pseq++, c->id_name, &c->head);
        return c->has_head = 1;
    }
}

static int head_before(const struct tr_iter *it, uint32_t a, uint32_t b)
{
    const struct tr_call *x = &it->cur[a].head, *y = &it->cur[b].head;
    if (x->t0 != y->t0)
        return x->t0 < y->t0;
    if (x->seq != y->seq)
        return x->seq < y->seq;
    return a < b;
}

static void heap_down(struct tr_iter *it, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < it->nheap && head_before(it, it->heap[l], it->heap[m]))
            m = l;
        if (l + 1 < it->nheap && head_before(it, it->heap[l + 1], it->heap[m]))
            m = l + 1;
        if (m == i)
            return;
        uint32_t x = it->heap[i];
        it->heap[i] = it->heap[m];
        it->heap[m] = x;
        i = m;
    }
}

/* proc: only that process's threads (SIZE_MAX: every thread) */
static void iter_start(struct tr_iter *it, const struct trace *tr, const char *what, int mode, size_t proc)
{
    memset(it, 0, sizeof *it);
    it->tr = tr;
    it->what = what;
    it->mode = mode;
    it->cur = rd_alloc0(tr->nthreads, sizeof *it->cur);
    it->heap = rd_alloc0(tr->nthreads, sizeof *it->heap);
    if (mode == 0 && tr->nranges) {
        it->rs = rd_alloc0(tr->nranges, sizeof *it->rs);
        for (size_t k = tr->nranges; k-- > 0;)
            if (tr->ranges[k].thread < tr->nthreads)
                it->cur[tr->ranges[k].thread].next_range = (uint32_t)k + 1;
    }
    for (uint32_t t = 0; t < tr->nthreads; t++)
        if (tr->threads[t].nrun && (proc == SIZE_MAX || tr->threads[t].proc == proc) && cursor_load(tr, &it->cur[t], t))
            it->heap[it->nheap++] = t;
    for (size_t i = it->nheap / 2; i-- > 0;)
        heap_down(it, i);
}

void rd_iter_start(struct tr_iter *it, const struct trace *tr, const char *what, int mode)
{
    iter_start(it, tr, what, mode, SIZE_MAX);
}

void tr_iter_init(struct tr_iter *it, const struct trace *tr, const char *what)
{
    iter_start(it, tr, what, 0, SIZE_MAX);
}

void tr_iter_init_proc(struct tr_iter *it, const struct trace *tr, const char *what, size_t proc)
{
    iter_start(it, tr, what, 0, proc);
}

void tr_iter_free(struct tr_iter *it)
{
    for (size_t t = 0; it->cur && t < it->tr->nthreads; t++) {
        free(it->cur[t].open);
        free(it->cur[t].range_at);
    }
    free(it->cur);
    free(it->heap);
    free(it->rs);
    memset(it, 0, sizeof *it);
}

void tr_iter_set_user(struct tr_iter *it, uint64_t v)
{
    if (it->out_slot)
        ((struct tr_slot *)it->out_slot)->user = v;
}

static int selected(const struct trace *tr, const struct tr_call *e)
{
    if (e->t0 < tr->sel_from || e->t0 > tr->sel_to)
        return 0;
    return !tr->name_keep || (e->rflags & TR_RF_RANGE) || tr->name_keep[e->name];
}

/* Parent, depth and selection of entry e of thread cursor c (r: its range,
 * ri its index, for a range entry); whether it is returned. */
static int place(struct tr_iter *it, struct tr_cursor *c, struct tr_call *e, const struct tr_range *r, size_t ri)
{
    const struct trace *tr = it->tr;
    uint32_t depth = r ? r->depth : e->depth;
    while (c->top) {   /* ranges whose pop came before this entry are closed */
        const struct tr_range *o = &tr->ranges[c->top - 1];
        if (o->end_seq >= e->seq)
            break;   /* its pop is this call or later */
        const struct tr_rstate *os = &it->rs[c->top - 1];
        c->top = os->outer;
        if (o->depth < c->nrange_at)
            c->range_at[o->depth] = os->below;
    }
    const struct tr_slot *ps = NULL;
    if (depth < MAX_TREE_DEPTH) {
        if (depth && depth - 1 < c->nopen) {
            const struct tr_slot *s = &c->open[depth - 1];
            if (s->raw1 && (!s->t1 || s->t1 >= e->t0))
                ps = s;
        }
        if (depth < c->nrange_at && c->range_at[depth]) {
            const struct tr_slot *s = &it->rs[c->range_at[depth] - 1].slot;
            if (!ps || s->raw1 > ps->raw1)
                ps = s;
        }
    }
    struct tr_slot me = {.raw1 = it->raw, .t1 = r ? 0 : e->t1, .is_range = !!r};
    me.kept = (uint8_t)selected(tr, e);
    if (depth < MAX_TREE_DEPTH) {
        me.shift = ps ? ps->shift + ps->is_range : 0;
        e->depth = depth + me.shift > UINT16_MAX ? UINT16_MAX : (uint16_t)(depth + me.shift);
    }
    me.gone = ps ? (uint16_t)(ps->gone + !ps->kept) : 0;
    e->parent = ps ? ps->up : 0;
    e->depth = e->depth >= me.gone ? (uint16_t)(e->depth - me.gone) : 0;
    me.up = me.kept ? (uint64_t)it->kept + 1 : ps ? ps->up : 0;
    me.user = ps ? ps->user : 0;
    it->parent_user = me.user;
    if (me.kept)
        me.user = 0;   /* its own, set by tr_iter_set_user */
    it->out_slot = NULL;
    if (!r) {
        if (depth < MAX_TREE_DEPTH) {
            c->open = need_depth(c->open, &c->nopen, depth, sizeof *c->open);
            c->open[depth] = me;
            it->out_slot = &c->open[depth];
        }
    } else {
        struct tr_rstate *rs = &it->rs[ri];
        rs->slot = me;
        it->out_slot = &rs->slot;
        if (r->kind == TR_RANGE_PUSH && !r->async && depth < MAX_TREE_DEPTH) {
            c->range_at = need_depth(c->range_at, &c->nrange_at, depth, sizeof *c->range_at);
            rs->below = c->range_at[depth];
            c->range_at[depth] = (uint32_t)ri + 1;
            rs->outer = c->top;
            c->top = (uint32_t)ri + 1;
        }
    }
    return me.kept;
}

/* Mode 1 (loading NVTX ranges): calls only, parents from depths alone;
 * parent = entry number + 1, it->parent_t1 its end. */
static void place_calls_only(struct tr_iter *it, struct tr_cursor *c, struct tr_call *e)
{
    uint32_t depth = e->depth;
    const struct tr_slot *ps = NULL;
    if (depth < MAX_TREE_DEPTH && depth && depth - 1 < c->nopen) {
        const struct tr_slot *s = &c->open[depth - 1];
        if (s->raw1 && (!s->t1 || s->t1 >= e->t0))
            ps = s;
    }
    e->parent = ps ? ps->raw1 : 0;
    it->parent_t1 = ps ? ps->t1 : 0;
    if (depth < MAX_TREE_DEPTH) {
        c->open = need_depth(c->open, &c->nopen, depth, sizeof *c->open);
        c->open[depth] = (struct tr_slot){.raw1 = it->raw, .t1 = e->t1};
    }
}

static const struct cutap_rec_call empty_rec = {.kind = CUTAP_REC_CALL, .nslots = 1};

const struct tr_call *tr_iter_next(struct tr_iter *it)
{
    return tr_iter_next_into(it, &it->out);
}

const struct tr_call *tr_iter_next_into(struct tr_iter *it, struct tr_call *e)
{
    const struct trace *tr = it->tr;
    while (it->nheap) {
        uint32_t t = it->heap[0];
        struct tr_cursor *c = &it->cur[t];
        /* the entry is made where it is returned (a local copied there
         * whole was written a field at a time and read back 16 bytes at a
         * time: a store-forwarding stall a field, a third of the
         * iterator's time), in the caller's place where it gives one (the
         * formatting pool's block: one copy of 72 bytes a call fewer) */
        const struct tr_range *r = NULL;
        size_t ri = 0;
        /* a range comes just before the push or start it was made from
         * (ranges whose call is gone, a file changed under us, are dropped) */
        while (c->next_range && tr->ranges[c->next_range - 1].seq < c->head.seq)
            c->next_range = tr->ranges[c->next_range - 1].next_on_thread;
        if (c->next_range && tr->ranges[c->next_range - 1].seq == c->head.seq) {
            ri = c->next_range - 1;
            r = &tr->ranges[ri];
            c->next_range = r->next_on_thread;
            *e = (struct tr_call){.t0 = r->t0,
                                 .t1 = r->ended ? r->t1 : 0,
                                 .seq = r->seq,
                                 .name = r->name,
                                 .thread = r->thread,
                                 .depth = r->depth,
                                 .flags = r->ended ? CUTAP_RF_DONE : 0,
                                 .rflags = (uint8_t)(TR_RF_RANGE | (r->async ? TR_RF_ASYNC : 0)),
                                 .rec = &empty_rec,
                                 .range = r,
                                 .object = -1};
        } else {
            *e = c->head;
            if (!cursor_load(tr, c, t))
                it->heap[0] = it->heap[--it->nheap];
            if (it->nheap > 1)
                heap_down(it, 0);
        }
        it->raw++;
        if (!(it->raw & ((1u << 18) - 1)))
            tr_progress(tr, it->raw, it->what);
        if (it->mode == 1) {
            place_calls_only(it, c, e);
        } else if (!place(it, c, e, r, ri))
            continue;
        it->index = it->kept++;
        return e;
    }
    tr_progress_done(tr);
    return NULL;
}
