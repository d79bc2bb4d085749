/* NVTX ranges and marks made from the nvtx* calls (trace_read.h;
 * docs/FORMAT.md, "NVTX ranges"). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "read_internal.h"

/* --- NVTX ranges (trace_read.h; docs/FORMAT.md, "NVTX ranges") --------- */

/* What each nvtx* call does to ranges. Known by name, whatever layer
 * number the file gives it. */
enum { NV_PUSH = 1, NV_POP, NV_START, NV_END, NV_MARK, NV_REGISTER };
enum { MSG_NONE, MSG_STR, MSG_ATTR };
struct nvtx_fn {
    const char *name;
    uint8_t op;         /* NV_* */
    int8_t domain_arg;  /* argument holding the domain handle; -1: the default domain */
    int8_t arg;         /* argument with the message (MSG_*), or NV_END's range id */
    uint8_t msg;
};
static const struct nvtx_fn nvtx_fns[] = {
#include "generated/nvtx_roles.inc"   /* from gen/specs/nvtx.py "nvtx_range" */
};
/* nvtxEventAttributes_t (nvtx3/nvToolsExt.h, 48 bytes): messageType (i32)
 * at 32, the message (a pointer or a registered string's handle) at 40. */
#define NVTX_ATTR_SIZE 48
#define NVTX_MESSAGE_TYPE_UNICODE 2
#define NVTX_MESSAGE_TYPE_REGISTERED 3

/* (a, b) -> value, 0 when absent; open addressing, at most half full. */
struct pairmap {
    struct pairslot {
        uint64_t a, b;
        uint32_t v, used;
    } *s;
    size_t cap, n;
};

static size_t pair_hash(uint64_t a, uint64_t b, size_t cap)
{
    return (size_t)((a * 0x9e3779b97f4a7c15ull ^ b * 0xc2b2ae3d27d4eb4full) >> 7) & (cap - 1);
}

static struct pairslot *pair_find(const struct pairmap *m, uint64_t a, uint64_t b)
{
    size_t k = pair_hash(a, b, m->cap);
    while (m->s[k].used && (m->s[k].a != a || m->s[k].b != b))
        k = (k + 1) & (m->cap - 1);
    return &m->s[k];
}

static uint32_t pair_get(const struct pairmap *m, uint64_t a, uint64_t b)
{
    return m->cap ? pair_find(m, a, b)->v : 0;
}

static void pair_put(struct pairmap *m, uint64_t a, uint64_t b, uint32_t v)
{
    if ((m->n + 1) * 2 > m->cap) {
        struct pairmap g = {rd_alloc0(m->cap ? m->cap * 2 : 256, sizeof *g.s), m->cap ? m->cap * 2 : 256, m->n};
        for (size_t i = 0; i < m->cap; i++)
            if (m->s[i].used)
                *pair_find(&g, m->s[i].a, m->s[i].b) = m->s[i];
        free(m->s);
        *m = g;
    }
    struct pairslot *s = pair_find(m, a, b);
    if (!s->used)
        m->n++;
    *s = (struct pairslot){a, b, v, 1};
}

static uint64_t arg_word(const struct tr_call *c, int i)
{
    return i >= 0 && i < c->rec->nargs ? tr_args(c)[i] : 0;
}

/* The capture of an argument, of a kind, that was taken; NULL if none. */
static const struct cutap_capture *capture_of(const struct tr_call *c, int arg, unsigned kind)
{
    for (unsigned i = 0; i < c->rec->ncap; i++) {
        const struct cutap_capture *k = tr_capture(c, i);
        if (k->arg == arg && k->kind == kind && k->state != CUTAP_CAPS_NONE)
            return k;
    }
    return NULL;
}

/* A captured string, NUL-terminated in buf (CUTAP_CAP_STR_MAX + 1 bytes). */
static const char *captured_str(const struct tr_call *c, int arg, char *buf)
{
    const struct cutap_capture *k = capture_of(c, arg, CUTAP_CAP_IN_STR);
    if (!k)
        return NULL;
    size_t n = k->len < CUTAP_CAP_STR_MAX ? k->len : CUTAP_CAP_STR_MAX;
    memcpy(buf, k + 1, n);
    buf[n] = 0;
    return buf;
}

/* The name of a range or mark: its message. A string argument as captured;
 * an attributes struct's registered string (its text from the process's
 * nvtxDomainRegisterStringA: strs, (process, handle) -> name index + 1);
 * else what kind of message it had, in parentheses. */
static uint32_t message_name(struct trace *tr, const struct tr_call *c, const struct nvtx_fn *f, int layer,
                             const struct pairmap *strs)
{
    char buf[CUTAP_CAP_STR_MAX + 1];
    const char *s = "(wide string)";
    if (f->msg == MSG_STR) {
        s = captured_str(c, f->arg, buf);
        if (!s)
            s = "(not captured)";
    } else if (f->msg == MSG_ATTR) {
        const struct cutap_capture *k = capture_of(c, f->arg, CUTAP_CAP_IN_BYTES);
        int32_t type = 0;
        uint64_t v = 0;
        if (k && k->len >= NVTX_ATTR_SIZE) {
            memcpy(&type, (const uint8_t *)(k + 1) + 32, sizeof type);
            memcpy(&v, (const uint8_t *)(k + 1) + 40, sizeof v);
        }
        uint32_t reg = type == NVTX_MESSAGE_TYPE_REGISTERED ? pair_get(strs, tr->threads[c->thread].proc, v) : 0;
        s = !k ? "(not captured)"
            : reg ? tr->names[reg - 1].name
            : type == NVTX_MESSAGE_TYPE_UNICODE ? "(wide string)"
            : type == NVTX_MESSAGE_TYPE_REGISTERED ? "(registered string)"
            : type ? "(not captured)" : "(no message)";
    }
    /* s may be another name's string: a block of its own, which name_index
     * copies; only the array of names may move */
    return rd_name_index(tr, s, layer);
}

/* Makes the ranges and marks (tr->ranges) from the nvtx* calls, in one
 * iteration over the calls alone (parents from depths; it adds names for
 * the messages, so it runs before any command's iteration). Each range
 * keeps what its entry needs; the iterator puts it just before the call it
 * was made from. Memory: one struct tr_range per range and mark.
 *
 * Per thread and domain, a pop ends the latest push not yet ended; a pop
 * with none open ends nothing. RangeEnd ends the range whose RangeStart
 * returned its id in that process (from any thread). A push/pop range
 * nests (acts as a parent) only if its pop has the push's recorded depth
 * and the same parent call, and no range opened inside it is still open
 * at its pop (those cross its end and do not nest: TR_RF_ASYNC). A range
 * never ended has t1 = 0. */
void rd_build_ranges(struct trace *tr)
{
    size_t nnames = tr->nnames;   /* the calls' names (message names are added after) */
    uint8_t *fn_of = rd_alloc0(nnames, 1);   /* nvtx_fns index + 1 per name */
    int any = 0;
    for (size_t i = 0; i < nnames; i++)
        if (!strncmp(tr->names[i].name, "nvtx", 4))
            for (size_t k = 0; k < sizeof nvtx_fns / sizeof *nvtx_fns; k++)
                if (!strcmp(tr->names[i].name, nvtx_fns[k].name)) {
                    fn_of[i] = (uint8_t)(k + 1);
                    any = 1;
                }
    if (!any || !tr->nthreads) {
        free(fn_of);
        return;
    }
    uint64_t *last = rd_alloc0(tr->nthreads, sizeof *last);   /* latest time seen on each thread */
    uint32_t *top = rd_alloc0(tr->nthreads, sizeof *top);     /* open push ranges, innermost first (outer) */
    uint32_t *tail = rd_alloc0(tr->nthreads, sizeof *tail);   /* each thread's latest range (index + 1) */
    struct pairmap stacks = {0};   /* (thread, domain) -> latest open push (range + 1) */
    struct pairmap ids = {0};      /* (process, range id) -> range + 1 */
    struct pairmap strs = {0};     /* (process, string handle) -> name + 1 */
    char buf[CUTAP_CAP_STR_MAX + 1];
    struct tr_iter it;
    rd_iter_start(&it, tr, "reading", 1);
    for (const struct tr_call *c; (c = tr_iter_next(&it));) {
        uint64_t e = c->t1 > c->t0 ? c->t1 : c->t0;
        if (e > last[c->thread])
            last[c->thread] = e;
        uint8_t k = c->name < nnames ? fn_of[c->name] : 0;
        if (!k)
            continue;
        const struct nvtx_fn *f = &nvtx_fns[k - 1];
        uint32_t proc = tr->threads[c->thread].proc, t = c->thread;
        uint64_t dom = arg_word(c, f->domain_arg), end = c->t1 ? c->t1 : c->t0;
        struct tr_range *r;
        uint32_t ri;
        switch (f->op) {
        case NV_REGISTER:
            if (c->t1 && captured_str(c, f->arg, buf))
                pair_put(&strs, proc, tr_result(c), rd_name_index(tr, buf, TR_LAYER_RANGE) + 1);
            break;
        case NV_PUSH:
        case NV_START:
        case NV_MARK: {
            if (tr->nranges >= UINT32_MAX - 1)
                break;
            uint32_t name = message_name(tr, c, f, f->op == NV_MARK ? TR_LAYER_MARK : TR_LAYER_RANGE, &strs);
            tr->ranges = rd_grow(tr->ranges, &tr->cap_ranges, tr->nranges + 1, sizeof *tr->ranges);
            uint32_t nr = (uint32_t)++tr->nranges;   /* this range's index + 1 */
            r = &tr->ranges[nr - 1];
            memset(r, 0, sizeof *r);
            r->kind = f->op == NV_PUSH ? TR_RANGE_PUSH : f->op == NV_START ? TR_RANGE_START : TR_RANGE_MARK;
            r->domain = dom;
            r->depth = c->depth;
            r->thread = t;
            r->t0 = c->t0;
            r->seq = c->seq;
            r->push_parent = c->parent;
            r->in_t1 = c->parent ? it.parent_t1 : 0;
            r->end_seq = UINT64_MAX;
            r->name = name;
            if (tail[t])
                tr->ranges[tail[t] - 1].next_on_thread = nr;
            tail[t] = nr;
            if (f->op == NV_MARK) {
                r->ended = 1;
                r->t1 = c->t0;
            } else if (f->op == NV_START) {
                r->async = 1;
                if (c->t1)   /* its id is its result */
                    pair_put(&ids, proc, tr_result(c), nr);
            } else {
                r->async = c->depth >= MAX_TREE_DEPTH;
                r->below = pair_get(&stacks, t, dom);
                pair_put(&stacks, t, dom, nr);
                r->outer = top[t];
                top[t] = nr;
                r->in_stack = 1;
            }
            break;
        }
        case NV_POP:
            if (!(ri = pair_get(&stacks, t, dom)))
                break;   /* nothing open to end */
            r = &tr->ranges[ri - 1];
            pair_put(&stacks, t, dom, r->below);
            r->ended = 1;
            r->t1 = end;
            r->end_seq = c->seq;
            if (c->depth != r->depth || r->push_parent != c->parent) {
                /* pushed and popped in different calls: no parent of
                 * anything (left in top; taken out by a later pop below) */
                r->async = 1;
                break;
            }
            if (r->in_stack) {
                /* ranges opened inside r and still open cross its end */
                while (top[t] && top[t] != ri) {
                    struct tr_range *x = &tr->ranges[top[t] - 1];
                    x->async = 1;
                    x->in_stack = 0;
                    top[t] = x->outer;
                }
                if (top[t] == ri)
                    top[t] = r->outer;
                r->in_stack = 0;
            }
            break;
        case NV_END:
            if (!(ri = pair_get(&ids, proc, arg_word(c, f->arg))) || tr->ranges[ri - 1].ended)
                break;
            r = &tr->ranges[ri - 1];
            r->ended = 1;
            r->t1 = end;
            break;
        }
    }
    tr_iter_free(&it);
    for (size_t k = 0; k < tr->nranges; k++) {
        struct tr_range *r = &tr->ranges[k];
        if (r->ended) {
            if (r->t1 < r->t0)
                r->t1 = r->t0;   /* an end on another thread, or a damaged file */
            r->draw_t1 = r->t1;
        } else {
            /* never ended: drawn to the end of the call it was pushed in, else its thread's last call */
            r->draw_t1 = r->kind == TR_RANGE_PUSH && r->in_t1 ? r->in_t1 : last[r->thread];
            if (r->draw_t1 < r->t0)
                r->draw_t1 = r->t0;
        }
    }
    tr->ncalls += tr->nranges;
    free(fn_of);
    free(last);
    free(top);
    free(tail);
    free(stacks.s);
    free(ids.s);
    free(strs.s);
}
