/* `cutap report`: per layer and entry point, the calls, errors, total,
 * average, median, min and max time, self time (the total less the calls
 * made inside) and its share, sorted by self time (like `strace -c`,
 * `perf report` and `nsys stats -r cuda_api_sum`), or by --sort's key;
 * groups by process, thread, rank, object or layer on request. Reads call records (trace mode)
 * and counters (counting mode, no median) alike.
 *
 * Counting mode times only some calls (src/record/calls.c): the reader
 * then estimates each thread's total from its timed calls, before the
 * threads are added up (a thread whose calls are slow and all timed must
 * not lend its mean to another thread's cheap ones); avg is total / calls,
 * min and max are over the timed calls. The text format marks estimated
 * totals with '~' and says how many calls were timed; CSV and JSON give
 * `timed`. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ioctl_decode.h"
#include "cutap.h"
#include "generated/cutap_ids.h"

struct row {
    int64_t group;
    uint32_t name;
    int has_med;
    int estimated;   /* total estimated from some of the calls (timed < calls) */
    uint64_t calls, errors, total, min, max, med, unfinished;
    uint64_t child;            /* time of the calls made directly inside this row's calls: self = total - child */
    uint64_t injected;         /* calls fault injection chose (--inject): their errors not in errors */
    uint64_t timed;  /* calls whose time is in min, max and (before any estimate) total */
    uint64_t gkey;   /* --by layer: the group's self time (groups largest first); else 0 */
};

/* A row's own time: its total less the time of the calls made inside its
 * calls (counters, which have no nesting: their total). */
static uint64_t row_self(const struct row *r)
{
    return r->total > r->child ? r->total - r->child : 0;
}

/* report --sort: the key rows are ordered by, largest first (name:
 * alphabetical); ties by total, calls, then name */
enum { SORT_SELF, SORT_TOTAL, SORT_CALLS, SORT_AVG, SORT_MAX, SORT_MED, SORT_ERRORS, SORT_NAME };
static const char *const sort_names[] = {"self", "total", "calls", "avg", "max", "med", "errors", "name", NULL};
static int sort_key = SORT_SELF;
static const struct trace *sort_tr;   /* for SORT_NAME */

static uint64_t row_key(const struct row *r)
{
    switch (sort_key) {
    case SORT_SELF: return row_self(r);
    case SORT_CALLS: return r->calls;
    case SORT_AVG: return r->calls ? r->total / r->calls : 0;
    case SORT_MAX: return r->max;
    case SORT_MED: return r->has_med ? r->med : 0;
    case SORT_ERRORS: return r->errors;
    default: return r->total;
    }
}

static int cmp_row(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    if (x->gkey != y->gkey)
        return x->gkey > y->gkey ? -1 : 1;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    if (sort_key == SORT_NAME) {
        int c = strcmp(sort_tr->names[x->name].name, sort_tr->names[y->name].name);
        if (c)
            return c;
    } else {
        uint64_t kx = row_key(x), ky = row_key(y);
        if (kx != ky)
            return kx > ky ? -1 : 1;
    }
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    if (x->calls != y->calls)
        return x->calls > y->calls ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

/* object: the name index of the object whose runtime copy reported the
 * call through CUPTI, -1 for the others (and counters) */
static int64_t group_of(const struct trace *tr, uint32_t thread, int32_t object, int by)
{
    const struct tr_thread *t = &tr->threads[thread];
    switch (by) {
    case BY_PROCESS: return t->proc;
    case BY_THREAD: return thread;
    case BY_RANK: return tr->procs[t->proc].h.rank;
    case BY_OBJECT: return object;
    default: return 0;   /* BY_LAYER: set from the name by the caller */
    }
}

/* (group, name) -> row: a hash over the rows, rebuilt as they grow (a
 * damaged counting trace can hold a million distinct counters). */
struct row_index {
    size_t *slot;   /* row index + 1 */
    size_t cap;
};

static size_t row_hash(int64_t group, uint32_t name)
{
    return ((uint64_t)group * 0x9e3779b97f4a7c15u) ^ ((uint64_t)name * 0xc2b2ae3d27d4eb4fu);
}

/* Makes room for one more row: n rows are in use. */
static void index_rows(struct row_index *ix, const struct row *rows, size_t n)
{
    if ((n + 1) * 2 < ix->cap)
        return;
    size_t cap = ix->cap ? ix->cap : 1024;
    while ((n + 1) * 2 >= cap)
        cap *= 2;
    free(ix->slot);
    ix->slot = xcalloc(cap, sizeof *ix->slot);
    ix->cap = cap;
    for (size_t i = 0; i < n; i++) {
        size_t k = row_hash(rows[i].group, rows[i].name) & (cap - 1);
        while (ix->slot[k])
            k = (k + 1) & (cap - 1);
        ix->slot[k] = i + 1;
    }
}

/* The row of (group, name), or where to record a new one (*hole). */
static struct row *find_row(const struct row_index *ix, struct row *rows, int64_t group, uint32_t name, size_t *hole)
{
    size_t k = row_hash(group, name) & (ix->cap - 1);
    for (; ix->slot[k]; k = (k + 1) & (ix->cap - 1)) {
        struct row *r = &rows[ix->slot[k] - 1];
        if (r->group == group && r->name == name)
            return r;
    }
    *hole = k;
    return NULL;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a + b < a ? UINT64_MAX : a + b;
}

/* Builds the rows; returns their number. */
/* The median of a row in bounded memory: exact (the durations kept and
 * sorted) up to MED_EXACT calls, then a log-linear histogram: durations
 * below 256 ns counted exactly, longer ones in 128 bins per power of two,
 * the median taken as the middle of its bin (clamped to min..max): within
 * 1/256 (0.4 %) of the true value. A row holds at most MED_EXACT * 8
 * bytes of durations, or 256 + 128 counts per power of two its durations
 * span. */
#define MED_EXACT 4096
struct med {
    uint64_t *v;          /* durations while n <= MED_EXACT, else NULL */
    uint64_t *bins[57];   /* [0]: 256 counts of 0..255 ns; [k]: 128 bins of [2^(k+7), 2^(k+8)) */
    size_t n, cap;
};

static void med_bin(struct med *m, uint64_t d)
{
    unsigned k = 0, i = (unsigned)d;
    if (d >= 256) {
        unsigned e = 63u - (unsigned)__builtin_clzll(d);   /* 8..63 */
        k = e - 7;
        i = (unsigned)(d >> (e - 7)) & 127u;
    }
    if (!m->bins[k])
        m->bins[k] = xcalloc(k ? 128 : 256, sizeof **m->bins);
    m->bins[k][i]++;
}

static void med_add(struct med *m, uint64_t d)
{
    if (m->n < MED_EXACT) {
        if (m->n == m->cap) {
            m->cap = m->cap ? m->cap * 4 : 4;
            m->v = realloc(m->v, m->cap * sizeof *m->v);
            if (!m->v) {
                fprintf(stderr, "cutap: out of memory\n");
                exit(1);
            }
        }
        m->v[m->n++] = d;
        return;
    }
    if (m->v) {   /* past MED_EXACT: to the histogram */
        for (size_t i = 0; i < m->n; i++)
            med_bin(m, m->v[i]);
        free(m->v);
        m->v = NULL;
    }
    med_bin(m, d);
    m->n++;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t med_get(struct med *m, uint64_t min, uint64_t max)
{
    if (m->v) {
        qsort(m->v, m->n, sizeof *m->v, cmp_u64);
        return m->n % 2 ? m->v[m->n / 2] : (m->v[m->n / 2 - 1] + m->v[m->n / 2]) / 2;
    }
    size_t rank = (m->n - 1) / 2, seen = 0;   /* the lower middle */
    for (unsigned k = 0; k < 57; k++) {
        if (!m->bins[k])
            continue;
        for (unsigned i = 0; i < (k ? 128u : 256u); i++) {
            seen += m->bins[k][i];
            if (seen > rank) {
                if (!k)
                    return i;
                unsigned sh = k;   /* bin width 2^(e-7) = 2^k */
                uint64_t lo = (uint64_t)(128 + i) << sh, mid = lo + ((uint64_t)1 << sh) / 2;
                return mid < min ? min : mid > max ? max : mid;
            }
        }
    }
    return max;
}

static void med_free(struct med *m)
{
    free(m->v);
    for (unsigned k = 0; k < 57; k++)
        free(m->bins[k]);
}

/* One pass over the calls, a row per (group, name) found by hash: memory
 * follows the rows, not the calls. */
/* report --requests: the ioctl layer's requests one row per control
 * command or class (cli/ioctl_decode.c) */
static int split_requests;
/* report --failed: failing calls only */
static int failed_only;

static size_t build_rows(const struct trace *tr, int by, struct row **out)
{
    sort_tr = tr;   /* cmp_row's, for --sort name */
    size_t cap = 64, nr = 0;
    struct row *rows = xcalloc(cap, sizeof *rows);
    struct med *meds = xcalloc(cap, sizeof *meds);
    struct row_index ix = {NULL, 0};
    struct tr_iter it;
    tr_iter_init(&it, tr, "report");
    for (const struct tr_call *c; (c = tr_iter_next(&it));) {
        if (c->rflags & TR_RF_RANGE) {
            /* an NVTX range or mark, not a call (report --tree, dump and the
             * exports show them): the calls inside it count as its caller's */
            tr_iter_set_user(&it, tr_iter_parent_user(&it));
            continue;
        }
        if (failed_only && (!c->t1 || (c->flags & CUTAP_RF_INJECTED) || !call_is_error(tr, c)))
            continue;
        uint32_t name = split_requests ? ioctl_request_name((struct trace *)tr, c) : c->name;
        int64_t g = by == BY_LAYER ? tr->names[name].layer : group_of(tr, c->thread, c->object, by);
        index_rows(&ix, rows, nr);
        size_t hole = 0;
        struct row *r = find_row(&ix, rows, g, name, &hole);
        if (!r) {
            if (nr == cap) {
                rows = realloc(rows, cap * 2 * sizeof *rows);
                meds = realloc(meds, cap * 2 * sizeof *meds);
                if (!rows || !meds)
                    exit(1);
                memset(meds + cap, 0, cap * sizeof *meds);
                cap *= 2;
            }
            ix.slot[hole] = nr + 1;
            r = &rows[nr++];
            memset(r, 0, sizeof *r);
            r->group = g;
            r->name = name;
        }
        if (!c->t1) {
            r->unfinished++;
            continue;
        }
        uint64_t d = c->t1 - c->t0;
        /* self time: this call's time is its parent's children's; its own
         * calls inside it find its row (rows move: an index) */
        uint64_t pu = tr_iter_parent_user(&it);
        if (pu && pu <= nr)
            rows[pu - 1].child += d;
        tr_iter_set_user(&it, (uint64_t)(r - rows) + 1);
        if (c->flags & CUTAP_RF_INJECTED)
            r->injected++;
        else
            r->errors += (uint64_t)call_is_error(tr, c);
        r->total += d;
        if (!r->calls || d < r->min)
            r->min = d;
        if (d > r->max)
            r->max = d;
        r->calls++;
        med_add(&meds[r - rows], d);
    }
    tr_iter_free(&it);
    for (size_t i = 0; i < nr; i++) {
        struct row *r = &rows[i];
        r->timed = r->calls;
        if (r->calls) {
            r->med = med_get(&meds[i], r->min, r->max);
            r->has_med = 1;
        }
        med_free(&meds[i]);
    }
    free(meds);
    for (size_t i = 0; i < tr->ncounters; i++) {
        const struct tr_counter *c = &tr->counters[i];
        int64_t g = by == BY_LAYER ? tr->names[c->name].layer : group_of(tr, c->thread, -1, by);
        index_rows(&ix, rows, nr);
        size_t hole = 0;
        struct row *r = find_row(&ix, rows, g, c->name, &hole);
        if (!r) {
            if (nr == cap) {
                rows = realloc(rows, (cap *= 2) * sizeof *rows);
                if (!rows)
                    exit(1);
            }
            ix.slot[hole] = nr + 1;
            r = &rows[nr++];
            memset(r, 0, sizeof *r);
            r->group = g;
            r->name = c->name;
        }
        r->has_med = 0;   /* counters keep no distribution */
        r->calls += c->calls;
        r->errors += c->errors;
        r->total = sat_add(r->total, c->total_ns);   /* estimated per thread by the reader */
        r->estimated |= c->timed < c->calls;
        if (c->timed) {
            if (!r->timed || c->min_ns < r->min)
                r->min = c->min_ns;
            if (c->max_ns > r->max)
                r->max = c->max_ns;
            r->timed += c->timed;
        }
    }
    free(ix.slot);
    if (by == BY_LAYER) {
        /* the layers by their self time, largest first: the rows sorted
         * by group, each group's sum given to its rows, sorted again */
        qsort(rows, nr, sizeof *rows, cmp_row);
        for (size_t i = 0, j; i < nr; i = j) {
            uint64_t sum = 0;
            for (j = i; j < nr && rows[j].group == rows[i].group; j++)
                sum = sat_add(sum, row_self(&rows[j]));
            for (size_t k = i; k < j; k++)
                rows[k].gkey = sum;
        }
    }
    qsort(rows, nr, sizeof *rows, cmp_row);
    *out = rows;
    return nr;
}

static const char *exe_base(const struct tr_proc *p)
{
    const char *s = strrchr(p->h.exe, '/');
    return s ? s + 1 : p->h.exe;
}

static void group_label(const struct trace *tr, int by, int64_t g, char *buf, size_t size)
{
    if (by == BY_PROCESS) {
        const struct tr_proc *p = &tr->procs[g];
        char host[4 * sizeof p->h.host], exe[4 * sizeof p->h.exe];
        tr_escape(host, sizeof host, p->h.host);
        tr_escape(exe, sizeof exe, exe_base(p));
        int n = snprintf(buf, size, "process %d on %s (%s)", p->h.pid, host, exe);
        if (p->h.rank >= 0 && n > 0 && (size_t)n < size)
            snprintf(buf + n, size - (size_t)n, " rank %d", p->h.rank);
    } else if (by == BY_THREAD) {
        const struct tr_thread *t = &tr->threads[g];
        const struct tr_proc *p = &tr->procs[t->proc];
        char host[4 * sizeof p->h.host], name[4 * sizeof t->name];
        tr_escape(host, sizeof host, p->h.host);
        tr_escape(name, sizeof name, t->name);
        snprintf(buf, size, "thread %d (%s) of process %d on %s", t->tid, name, p->h.pid, host);
    } else if (by == BY_RANK) {
        if (g >= 0)
            snprintf(buf, size, "rank %lld", (long long)g);
        else
            snprintf(buf, size, "no rank");
    } else if (by == BY_OBJECT) {
        if (g >= 0) {
            char o[1024];
            tr_escape(o, sizeof o, tr->names[g].name);
            snprintf(buf, size, "runtime copy in %s (reported through CUPTI)", o);
        } else
            snprintf(buf, size, "calls cutap intercepts");
    } else if (by == BY_LAYER) {
        snprintf(buf, size, "layer %s", layer_str((int)g));
    } else {
        buf[0] = 0;
    }
}

static void csv_group(FILE *f, const struct trace *tr, int by, int64_t g)
{
    if (by == BY_PROCESS) {
        fputc(',', f);
        csv_str(f, tr->procs[g].h.host);
        fprintf(f, ",%d", tr->procs[g].h.pid);
    } else if (by == BY_THREAD) {
        const struct tr_proc *p = &tr->procs[tr->threads[g].proc];
        fputc(',', f);
        csv_str(f, p->h.host);
        fprintf(f, ",%d,%d", p->h.pid, tr->threads[g].tid);
    } else if (by == BY_RANK) {
        if (g >= 0)
            fprintf(f, ",%lld", (long long)g);
        else
            fputs(",", f);
    } else if (by == BY_OBJECT) {
        fputc(',', f);
        if (g >= 0)
            csv_str(f, tr->names[g].name);
    }
}

static void json_group(FILE *f, const struct trace *tr, int by, int64_t g)
{
    if (by == BY_PROCESS) {
        const struct tr_proc *p = &tr->procs[g];
        fputs(",\"host\":", f);
        json_str(f, p->h.host);
        fprintf(f, ",\"pid\":%d", p->h.pid);
        char loss[256];
        if (tr_loss_text(p, loss, sizeof loss)) {   /* only when it lost something */
            fprintf(f, ",\"stopped\":%s,\"lost_calls\":%llu,\"lost_names\":%llu,\"loss\":",
                    p->h.flags & CUTAP_FILE_STOPPED ? "true" : "false", (unsigned long long)p->h.lost_calls,
                    (unsigned long long)p->h.lost_names);
            json_str(f, loss);
        }
    } else if (by == BY_THREAD) {
        const struct tr_proc *p = &tr->procs[tr->threads[g].proc];
        fputs(",\"host\":", f);
        json_str(f, p->h.host);
        fprintf(f, ",\"pid\":%d,\"tid\":%d", p->h.pid, tr->threads[g].tid);
    } else if (by == BY_RANK) {
        if (g >= 0)
            fprintf(f, ",\"rank\":%lld", (long long)g);
        else
            fputs(",\"rank\":null", f);
    } else if (by == BY_OBJECT) {
        fputs(",\"object\":", f);
        if (g >= 0)
            json_str(f, tr->names[g].name);
        else
            fputs("null", f);
    }
}

/* report --top N: the first N rows of each table (0: all) */
static size_t top_n;

int report_print(const struct trace *tr, FILE *f, int format, int by)
{
    struct row *rows;
    size_t nr = build_rows(tr, by, &rows);
    static const char *const by_names[] = {"none", "process", "thread", "rank", "object", "layer"};
    uint64_t calls = 0, unfinished = 0, est_calls = 0, est_timed = 0;
    size_t hosts = 0;
    for (size_t i = 0; i < nr; i++) {
        calls += rows[i].calls;
        unfinished += rows[i].unfinished;
        if (rows[i].estimated) {
            est_calls += rows[i].calls;
            est_timed += rows[i].timed;
        }
    }
    for (size_t i = 0; i < tr->nprocs; i++) {
        size_t j = 0;
        while (j < i && strcmp(tr->procs[j].h.host, tr->procs[i].h.host))
            j++;
        hosts += j == i;
    }
    if (format == FMT_CSV) {
        static const char *const extra[] = {"", ",host,pid", ",host,pid,tid", ",rank", ",object", ""};
        /* the columns scripts read by number and by last place: unchanged
         * (self time: the text and JSON reports) */
        fprintf(f, "layer,name,calls,errors,total_ns,avg_ns,min_ns,max_ns,med_ns,time_pct,unfinished,timed%s\n",
                extra[by]);
    } else if (format == FMT_JSON) {
        fprintf(f, "{\"processes\":%zu,\"hosts\":%zu,\"calls\":%llu,\"unfinished\":%llu,\"by\":", tr->nprocs, hosts,
                (unsigned long long)calls, (unsigned long long)unfinished);
        if (by == BY_NONE)
            fputs("null", f);
        else
            json_str(f, by_names[by]);
        fputs(",\"rows\":[", f);
    } else {
        fprintf(f, "cutap: %zu process%s on %zu host%s, %llu calls", tr->nprocs, tr->nprocs == 1 ? "" : "es", hosts,
                hosts == 1 ? "" : "s", (unsigned long long)calls);
        if (sort_key != SORT_SELF)
            fprintf(f, ", sorted by %s", sort_names[sort_key]);
        if (unfinished)
            fprintf(f, " (+%llu unfinished)", (unsigned long long)unfinished);
        fputc('\n', f);
    }
    uint64_t all_self = 0;
    for (size_t i = 0; i < nr; i++)
        all_self = sat_add(all_self, row_self(&rows[i]));
    size_t nout = 0;   /* rows written (JSON: the separator) */
    for (size_t i = 0; i < nr;) {
        size_t j = i;
        uint64_t gself = 0;   /* the shares are of self time: they add up to 100 */
        while (j < nr && rows[j].group == rows[i].group)
            gself += row_self(&rows[j++]);
        size_t shown = top_n && j - i > top_n ? i + top_n : j;   /* --top */
        if (format == FMT_TEXT) {
            char label[2048];
            group_label(tr, by, rows[i].group, label, sizeof label);
            if (by == BY_LAYER)
                fprintf(f, "\n== %s: self %llu ns, %.2f %% ==\n", label, (unsigned long long)gself,
                        all_self ? 100.0 * (double)gself / (double)all_self : 0.0);
            else if (by != BY_NONE)
                fprintf(f, "\n== %s ==\n", label);
            fprintf(f, "%8s %14s %10s %7s %11s %11s %11s %11s %14s  %-9s %s\n", "Self(%)", "Total(ns)", "Calls",
                    "Errors", "Avg(ns)", "Med(ns)", "Min(ns)", "Max(ns)", "Self(ns)", "Layer", "Name");
        }
        for (size_t k = i; k < shown; k++) {
            const struct row *r = &rows[k];
            const struct tr_name *n = &tr->names[r->name];
            uint64_t self = row_self(r);
            double pct = gself ? 100.0 * (double)self / (double)gself : 0.0;
            unsigned long long avg = r->calls ? r->total / r->calls : 0;
            unsigned long long mn = r->timed ? r->min : 0, mx = r->max, med = r->med;
            if (format == FMT_CSV) {
                fprintf(f, "%s,", layer_str(n->layer));
                csv_str(f, n->name);
                fprintf(f, ",%llu,%llu,%llu,%llu,%llu,%llu,", (unsigned long long)r->calls,
                        (unsigned long long)r->errors, (unsigned long long)r->total, avg, mn, mx);
                if (r->has_med)
                    fprintf(f, "%llu", med);
                fprintf(f, ",%.2f,%llu,%llu", pct, (unsigned long long)r->unfinished, (unsigned long long)r->timed);
                csv_group(f, tr, by, r->group);
                fputc('\n', f);
            } else if (format == FMT_JSON) {
                fprintf(f, "%s{\"layer\":\"%s\",\"name\":", nout++ ? "," : "", layer_str(n->layer));
                json_str(f, n->name);
                fprintf(f, ",\"calls\":%llu,\"errors\":%llu,\"total_ns\":%llu,\"self_ns\":%llu,\"avg_ns\":%llu,"
                           "\"min_ns\":%llu,\"max_ns\":%llu,\"med_ns\":",
                        (unsigned long long)r->calls, (unsigned long long)r->errors, (unsigned long long)r->total,
                        (unsigned long long)self, avg, mn, mx);
                if (r->has_med)
                    fprintf(f, "%llu", med);
                else
                    fputs("null", f);
                fprintf(f, ",\"time_pct\":%.2f,\"unfinished\":%llu,\"timed\":%llu,\"injected\":%llu", pct,
                        (unsigned long long)r->unfinished, (unsigned long long)r->timed,
                        (unsigned long long)r->injected);
                json_group(f, tr, by, r->group);
                fputc('}', f);
            } else {
                char medbuf[24] = "-", totbuf[24], selfbuf[24];
                if (r->has_med)
                    snprintf(medbuf, sizeof medbuf, "%llu", med);
                snprintf(totbuf, sizeof totbuf, "%s%llu", r->estimated ? "~" : "", (unsigned long long)r->total);
                snprintf(selfbuf, sizeof selfbuf, "%s%llu", r->estimated ? "~" : "", (unsigned long long)self);
                fprintf(f, "%8.2f %14s %10llu %7llu %11llu %11s %11llu %11llu %14s  %-9s ", pct, totbuf,
                        (unsigned long long)r->calls, (unsigned long long)r->errors, avg, medbuf, mn, mx, selfbuf,
                        layer_str(n->layer));
                text_str(f, n->name);
                if (r->unfinished)
                    fprintf(f, " (%llu unfinished)", (unsigned long long)r->unfinished);
                if (r->injected)
                    fprintf(f, " (%llu injected)", (unsigned long long)r->injected);
                fputc('\n', f);
            }
        }
        if (format == FMT_TEXT && shown < j) {
            uint64_t rest = 0, rest_calls = 0;
            for (size_t k = shown; k < j; k++) {
                rest = sat_add(rest, row_self(&rows[k]));
                rest_calls += rows[k].calls;
            }
            fprintf(f, "%8.2f %14s %10llu %7s %11s %11s %11s %11s %14llu  (%zu more rows, --top %zu)\n",
                    gself ? 100.0 * (double)rest / (double)gself : 0.0, "", (unsigned long long)rest_calls, "", "", "",
                    "", "", (unsigned long long)rest, j - shown, top_n);
        }
        i = j;
    }
    if (format == FMT_JSON)
        fputs("]}\n", f);
    else if (format == FMT_TEXT && est_calls)
        fprintf(f, "~ estimated from %llu of %llu calls timed\n", (unsigned long long)est_timed,
                (unsigned long long)est_calls);
    free(rows);
    return 0;
}

/* Processes that made driver calls but no runtime call was recorded for:
 * either they call the driver only, or (traced with --runtime=symbols)
 * their cudart is linked statically (nvcc's default), which no preloaded
 * symbol can interpose. Says so on f, naming a few of the processes. */
static void runtime_note(const struct trace *tr, FILE *f)
{
    /* bit 0: driver call, bit 1: runtime call; what the files hold (the
     * reader notes it while loading), whatever -e selects */
    unsigned char *seen = xcalloc(tr->nprocs, 1);
    for (size_t i = 0; i < tr->nprocs; i++)
        seen[i] = tr->procs[i].call_layers;
    for (size_t i = 0; i < tr->ncounters; i++) {
        int layer = tr->names[tr->counters[i].name].layer;
        seen[tr->threads[tr->counters[i].thread].proc] |= layer == CUTAP_LAYER_DRIVER ? 1 : layer == CUTAP_LAYER_RUNTIME ? 2 : 0;
    }
    size_t n = 0, shown = 0;
    for (size_t i = 0; i < tr->nprocs; i++)
        n += seen[i] == 1;
    if (n) {
        fprintf(f, "note: process%s", n == 1 ? "" : "es");
        for (size_t i = 0; i < tr->nprocs && shown < 8; i++)
            if (seen[i] == 1)
                fprintf(f, "%s %d", shown++ ? "," : "", tr->procs[i].h.pid);
        if (n > shown)
            fprintf(f, " and %zu more", n - shown);
        fprintf(f, " made CUDA driver calls but no runtime (cudart) call was recorded: either it calls the driver "
                   "only, or it was traced with --runtime=symbols, which cannot see a statically linked cudart "
                   "(nvcc's default)\n");
    }
    free(seen);
}

static const char usage[] =
    "usage: cutap report [--format text|csv|json] [--by process|thread|rank|object|layer | --tree]\n"
    "                    [--sort KEY] [--top N] [--failed] [--errors] [--requests] [--gpu] [--env] [-e FILTER]\n"
    "                    [--from S] [--to S] DIR\n"
    "Per layer and function: calls, errors, total/avg/median/min/max time and self time (the total\n"
    "less the calls made inside; the Self(%) column adds up to 100), largest self time first.\n"
    "  --format F          text (default), csv or json\n"
    "  --by G              one table per process, thread or rank (RANK, OMPI_COMM_WORLD_RANK, ...),\n"
    "                      per layer (largest self time first, with each layer's share), or object:\n"
    "                      the runtime calls each library's own runtime copy made (--runtime=cupti)\n"
    "  --sort KEY          order rows by self (default), total, calls, avg, max, med, errors or name\n"
    "  --top N             only the first N rows of each table (text: the rest summed in one line)\n"
    "  --tree              the call tree: each call under the call it was made in, with self time\n"
    "  --failed            the same table of the failing calls only (an error status)\n"
    "  --errors            where errors began: per process and thread the first failing call of each\n"
    "                      function (arguments, result, INJECTED), the first sticky error (illegal\n"
    "                      address, launch failure...) and what failed after it, and the kernel\n"
    "                      launches since the last successful synchronisation before it\n"
    "  --gpu               what ran on the GPU (cutap trace --gpu): per kernel name, then per copy\n"
    "                      direction and memset, count and GPU time (total, avg, median, min, max,\n"
    "                      stddev), largest first; and what was not recorded\n"
    "  --env               what the NVIDIA libraries read from the environment, per process: each\n"
    "                      name, the value it got or unset, the library that asked, how often, when\n"
    "  --requests          the ioctl layer's requests one row per RM control command or class\n"
    "                      (RM_CONTROL(NV2080_CTRL_CMD_GPU_GET_INFO_V2)), not one per escape, and\n"
    "                      device mappings by what they map (mmap(HOPPER_USERMODE_A), mmap_over(...))\n"
    CLI_SELECT_HELP
    "examples:\n"
    "  cutap report run1\n"
    "  cutap report --tree -e 'layer=runtime,layer=driver' run1\n"
    "  cutap report --by layer --top 5 run1\n"
    "  cutap report --sort calls --top 20 --failed run1\n"
    "  cutap report --by thread --format csv --from 10 --to 12.5 run1\n";

int cmd_report(int argc, char **argv)
{
    int format = FMT_TEXT, by = BY_NONE, tree = 0, errors = 0, sorted = 0, gpu = 0, env = 0, c;
    optind = 1;
    while ((c = cli_getopt(argc, argv, "report", "")) != -1) {
        if (c == 'e' || c == CLI_OPT_FROM || c == CLI_OPT_TO) {
            if (cli_select_opt(c, optarg, "report"))
                return 2;
        } else if (c == 'f') {
            if (!strcmp(optarg, "text"))
                format = FMT_TEXT;
            else if (!strcmp(optarg, "csv"))
                format = FMT_CSV;
            else if (!strcmp(optarg, "json"))
                format = FMT_JSON;
            else {
                fprintf(stderr, "cutap report: unknown format '%s' (text, csv, json)\n", optarg);
                return 2;
            }
        } else if (c == 'b') {
            if (!strcmp(optarg, "process"))
                by = BY_PROCESS;
            else if (!strcmp(optarg, "thread"))
                by = BY_THREAD;
            else if (!strcmp(optarg, "rank"))
                by = BY_RANK;
            else if (!strcmp(optarg, "object"))
                by = BY_OBJECT;
            else if (!strcmp(optarg, "layer"))
                by = BY_LAYER;
            else {
                fprintf(stderr, "cutap report: unknown grouping '%s' (process, thread, rank, object, layer)\n",
                        optarg);
                return 2;
            }
        } else if (c == 'Q') {
            int k = 0;
            while (sort_names[k] && strcmp(sort_names[k], optarg))
                k++;
            if (!sort_names[k]) {
                fprintf(stderr, "cutap report: unknown sort key '%s' (self, total, calls, avg, max, med, errors, "
                                "name)\n", optarg);
                return 2;
            }
            sort_key = k;
            sorted = 1;
        } else if (c == 'n') {
            char *end;
            errno = 0;
            unsigned long long n = strtoull(optarg, &end, 10);
            if (errno || end == optarg || *end || !n || optarg[0] == '-' || n > SIZE_MAX) {
                fprintf(stderr, "cutap report: --top '%s': a number of rows, 1 or more\n", optarg);
                return 2;
            }
            top_n = (size_t)n;
        } else if (c == 't') {
            tree = 1;
        } else if (c == 'R') {
            split_requests = 1;
        } else if (c == 'E') {
            errors = 1;
        } else if (c == 'F') {
            failed_only = 1;
        } else if (c == 'G' || c == 'V') {
            *(c == 'G' ? &gpu : &env) = 1;
        } else if (c == 'h') {
            fputs(usage, stdout);
            return 0;
        } else {
            return cli_usage_error(usage, NULL);
        }
    }
    if (errors && (tree || by != BY_NONE || format != FMT_TEXT)) {
        fprintf(stderr, "cutap report: --errors is a text report of its own: not with --tree, --by or --format\n");
        return 2;
    }
    if (tree && by != BY_NONE) {
        fprintf(stderr, "cutap report: --tree merges every process and thread; it does not go with --by\n");
        return 2;
    }
    if ((sorted || top_n) && (tree || errors)) {
        fprintf(stderr, "cutap report: --sort and --top order the flat table's rows: not with --tree or --errors\n");
        return 2;
    }
    if (failed_only && (tree || errors)) {
        fprintf(stderr, "cutap report: --failed selects the flat table's calls: not with --tree or --errors\n");
        return 2;
    }
    if ((gpu || env) && (gpu + env > 1 || tree || errors || by != BY_NONE || failed_only || sorted)) {
        fprintf(stderr, "cutap report: --%s is a report of its own (with --format and --top): not with --tree, "
                        "--errors, --by, --failed, --sort or --%s\n", gpu ? "gpu" : "env", gpu ? "env" : "gpu");
        return 2;
    }
    struct trace tr;
    int rc = load_operand(argc, argv, usage, &tr);
    if (rc)
        return rc;
    if (gpu || env) {
        rc = (gpu ? report_gpu(&tr, stdout, format, top_n) : report_env(&tr, stdout, format, top_n)) || tr.problems;
        tr_free(&tr);
        return rc;
    }
    if (failed_only && tr.ncounters) {
        fprintf(stderr, "cutap report: --failed selects call records; the %zu counters of counting-mode files "
                "(cutap stat) count errors without the calls and are left out\n", tr.ncounters);
        tr.ncounters = 0;
    }
    if (tree && tr.ncounters)
        fprintf(stderr, "cutap report: --tree needs call records; the %zu counters of counting-mode files "
                "(cutap stat) have no nesting and are left out\n", tr.ncounters);
    if (errors)
        report_errors(&tr, stdout);
    else if (tree)
        report_tree(&tr, stdout, format);
    else
        report_print(&tr, stdout, format, by);
    /* After the table; CSV and JSON stay parseable. Not for --errors, nor
     * when -e chose what to show (the runtime layer may be left out). */
    if (!errors && !failed_only && !tr.name_keep)
        runtime_note(&tr, format == FMT_TEXT ? stdout : stderr);
    int bad = tr.problems;
    tr_free(&tr);
    return bad ? 1 : 0;
}
