/* cutap report --tree: the calls aggregated by call path. A call's path is
 * the names of the calls it ran inside (tr_call.parent, from the nesting
 * depth on its thread) and its own; every process and thread adds to the
 * same paths. Per path: calls, total time, self time (total minus the time
 * of the calls made inside), unfinished calls. Children are listed under
 * their parent, by total time. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ioctl_decode.h"

struct node {
    uint32_t parent;            /* node index; 0 = the root (no call) */
    uint32_t name;              /* index into tr->names */
    int32_t object;             /* tr_call.object: the runtime copy that reported it, -1: none */
    uint32_t depth;
    uint64_t calls, unfinished, total_ns, child_ns;
};

struct tree {
    struct node *n;             /* n[0] is the root */
    size_t count, cap;
    uint32_t *slot;             /* hash of (parent, name, object) -> node index; 0 empty */
    size_t nslots;
    uint32_t *kids;             /* children of each node, contiguous: kid_at[i] .. kid_at[i+1] */
    uint32_t *kid_at;
};

static uint64_t node_hash(uint32_t parent, uint32_t name, int32_t object)
{
    return ((uint64_t)parent * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)name * 0xc2b2ae3d27d4eb4full) ^
           ((uint64_t)(uint32_t)object * 0x165667b19e3779f9ull);
}

static void grow_nodes(struct tree *t)
{
    if (t->count == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 1024;
        t->n = realloc(t->n, t->cap * sizeof *t->n);
        if (!t->n) {
            fprintf(stderr, "cutap: out of memory\n");
            exit(1);
        }
    }
    if (2 * (t->count + 1) > t->nslots) {   /* the hash at most half full */
        free(t->slot);
        t->nslots = t->nslots ? t->nslots * 2 : 1024;
        t->slot = xcalloc(t->nslots, sizeof *t->slot);
        for (uint32_t k = 1; k < t->count; k++) {
            uint64_t h = node_hash(t->n[k].parent, t->n[k].name, t->n[k].object);
            size_t i = (size_t)(h >> 17) & (t->nslots - 1);
            while (t->slot[i])
                i = (i + 1) & (t->nslots - 1);
            t->slot[i] = k;
        }
    }
}

static uint32_t node_for(struct tree *t, uint32_t parent, uint32_t name, int32_t object)
{
    grow_nodes(t);   /* room for one more node first: the hash may be rebuilt */
    uint64_t h = node_hash(parent, name, object);
    for (size_t i = (size_t)(h >> 17) & (t->nslots - 1);; i = (i + 1) & (t->nslots - 1)) {
        uint32_t k = t->slot[i];
        if (!k) {
            k = t->slot[i] = (uint32_t)t->count++;
            t->n[k] = (struct node){.parent = parent, .name = name, .object = object, .depth = t->n[parent].depth + 1};
            return k;
        }
        if (t->n[k].parent == parent && t->n[k].name == name && t->n[k].object == object)
            return k;
    }
}

static const struct trace *sort_tr;
static const struct node *sort_nodes;
static int by_total(const void *a, const void *b)
{
    const struct node *x = &sort_nodes[*(const uint32_t *)a], *y = &sort_nodes[*(const uint32_t *)b];
    if (x->total_ns != y->total_ns)
        return x->total_ns > y->total_ns ? -1 : 1;
    if (x->calls != y->calls)
        return x->calls > y->calls ? -1 : 1;
    int d = strcmp(sort_tr->names[x->name].name, sort_tr->names[y->name].name);
    return d ? d : (x->object > y->object) - (x->object < y->object);
}

/* One pass over the calls in time order: each call's node is found from
 * its caller's (kept with the caller by the iterator, tr_iter_set_user):
 * memory follows the paths, not the calls. Returns the number of calls
 * (not counting NVTX ranges and marks). */
static size_t build(struct tree *t, const struct trace *tr)
{
    t->count = 1;
    t->cap = 1024;
    t->n = xcalloc(t->cap, sizeof *t->n);
    t->nslots = 2048;
    t->slot = xcalloc(t->nslots, sizeof *t->slot);
    size_t calls = 0;
    struct tr_iter it;
    tr_iter_init(&it, tr, "report");
    for (const struct tr_call *c; (c = tr_iter_next(&it));) {
        calls += !(c->rflags & TR_RF_RANGE);
        /* A parent always comes first (it started earlier, or at the same
         * time and was recorded first): its node is the one kept with it. */
        uint32_t p = c->parent ? (uint32_t)tr_iter_parent_user(&it) : 0;
        /* an ioctl request by its command or class: "RM_ALLOC(NV01_MEMORY_LOCAL_USER)" */
        uint32_t name = ioctl_request_name((struct trace *)tr, c);
        uint32_t k = node_for(t, p, name, c->object);
        tr_iter_set_user(&it, k);
        struct node *n = &t->n[k];
        n->calls++;
        if (!c->t1) {
            n->unfinished++;
            continue;
        }
        uint64_t d = c->t1 >= c->t0 ? c->t1 - c->t0 : 0;
        n->total_ns += d;
        if (p)
            t->n[p].child_ns += d;
    }
    tr_iter_free(&it);
    /* Children lists, each sorted by total time. */
    t->kid_at = xcalloc(t->count + 1, sizeof *t->kid_at);
    t->kids = xcalloc(t->count, sizeof *t->kids);
    for (size_t k = 1; k < t->count; k++)
        t->kid_at[t->n[k].parent + 1]++;
    for (size_t k = 0; k < t->count; k++)
        t->kid_at[k + 1] += t->kid_at[k];
    uint32_t *fill = xcalloc(t->count, sizeof *fill);
    for (size_t k = 1; k < t->count; k++) {
        uint32_t p = t->n[k].parent;
        t->kids[t->kid_at[p] + fill[p]++] = (uint32_t)k;
    }
    free(fill);
    sort_tr = tr;
    sort_nodes = t->n;
    for (size_t k = 0; k < t->count; k++)
        qsort(t->kids + t->kid_at[k], t->kid_at[k + 1] - t->kid_at[k], sizeof *t->kids, by_total);
    return calls;
}

static uint64_t self_ns(const struct node *n)
{
    return n->total_ns > n->child_ns ? n->total_ns - n->child_ns : 0;
}

/* A runtime copy's object by its file name (tr_call.object). */
static const char *object_base(const struct trace *tr, int32_t object)
{
    const char *o = tr->names[object].name, *b = strrchr(o, '/');
    return b ? b + 1 : o;
}

static void path_csv(FILE *f, const struct trace *tr, const struct tree *t, uint32_t k)
{
    /* The names from the outermost call down, joined by " > ". */
    uint32_t chain[256 + 2];
    unsigned n = 0;
    for (uint32_t i = k; i && n < sizeof chain / sizeof *chain; i = t->n[i].parent)
        chain[n++] = i;
    size_t len = 0;
    for (unsigned j = n; j-- > 0;)
        len += strlen(tr->names[t->n[chain[j]].name].name) + 3 +
               (t->n[chain[j]].object >= 0 ? strlen(object_base(tr, t->n[chain[j]].object)) + 3 : 0);
    char *s = xcalloc(len + 1, 1), *w = s;
    for (unsigned j = n; j-- > 0;) {
        const struct node *e = &t->n[chain[j]];
        w += sprintf(w, "%s%s", j + 1 == n ? "" : " > ", tr->names[e->name].name);
        if (e->object >= 0)
            w += sprintf(w, " [%s]", object_base(tr, e->object));
    }
    csv_str(f, s);
    free(s);
}

/* Depth first, children by total time; explicit stack (paths can be as
 * deep as the trace says). */
static void walk(FILE *f, const struct trace *tr, const struct tree *t, int format)
{
    uint32_t *stack = xcalloc(t->count, sizeof *stack);
    size_t top = 0, first = 1;
    for (uint32_t j = t->kid_at[1]; j-- > t->kid_at[0];)
        stack[top++] = t->kids[j];
    while (top) {
        uint32_t k = stack[--top];
        const struct node *n = &t->n[k];
        const char *layer = layer_str(tr->names[n->name].layer), *name = tr->names[n->name].name;
        if (format == FMT_TEXT) {
            fprintf(f, "%10llu %14llu %14llu %6s%*s  ", (unsigned long long)n->calls,
                    (unsigned long long)n->total_ns, (unsigned long long)self_ns(n), layer,
                    (int)(2 * (n->depth - 1)), "");
            text_str(f, name);
            if (n->object >= 0) {
                fputs(" [", f);
                text_str(f, object_base(tr, n->object));
                fputc(']', f);
            }
            if (n->unfinished)
                fprintf(f, " (%llu unfinished)", (unsigned long long)n->unfinished);
            fputc('\n', f);
        } else if (format == FMT_CSV) {
            path_csv(f, tr, t, k);
            fprintf(f, ",%s,", layer);
            csv_str(f, name);
            fprintf(f, ",%u,%llu,%llu,%llu,%llu\n", n->depth - 1, (unsigned long long)n->calls,
                    (unsigned long long)n->total_ns, (unsigned long long)self_ns(n),
                    (unsigned long long)n->unfinished);
        } else {
            fprintf(f, "%s\n{\"layer\":\"%s\",\"name\":", first ? "" : ",", layer);
            json_str(f, name);
            fprintf(f, ",\"depth\":%u,\"calls\":%llu,\"total_ns\":%llu,\"self_ns\":%llu,\"unfinished\":%llu,"
                    "\"parent\":", n->depth - 1, (unsigned long long)n->calls, (unsigned long long)n->total_ns,
                    (unsigned long long)self_ns(n), (unsigned long long)n->unfinished);
            if (n->parent)
                fprintf(f, "%u", n->parent);
            else
                fputs("null", f);
            if (n->object >= 0) {
                fputs(",\"object\":", f);
                json_str(f, tr->names[n->object].name);
            }
            fprintf(f, ",\"id\":%u}", k);
        }
        first = 0;
        for (uint32_t j = t->kid_at[k + 1]; j-- > t->kid_at[k];)
            stack[top++] = t->kids[j];
    }
    free(stack);
}

int report_tree(const struct trace *tr, FILE *f, int format)
{
    struct tree t = {0};
    size_t calls = build(&t, tr);   /* not the NVTX ranges and marks (trace_read.h) */
    tr_progress_done(tr);
    if (format == FMT_TEXT) {
        fprintf(f, "cutap: %zu process%s, %zu calls, by call path: self = time not spent in the calls "
                "made inside\n", tr->nprocs, tr->nprocs == 1 ? "" : "es", calls);
        fprintf(f, "%10s %14s %14s %6s  %s\n", "Calls", "Total(ns)", "Self(ns)", "Layer", "Name");
    } else if (format == FMT_CSV) {
        fputs("path,layer,name,depth,calls,total_ns,self_ns,unfinished\n", f);
    } else {
        fputs("[", f);
    }
    walk(f, tr, &t, format);
    if (format == FMT_JSON)
        fputs("\n]\n", f);
    free(t.n);
    free(t.slot);
    free(t.kids);
    free(t.kid_at);
    return 0;
}
