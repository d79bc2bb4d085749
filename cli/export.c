/* cutap export: a trace directory as Chrome/Perfetto JSON, JSON lines or an
 * SQLite database.
 *
 *   cutap export --format perfetto|sqlite|jsonl -o FILE [--force] DIR
 *
 * The output is written to FILE.tmp.<pid> and moved to FILE only when
 * complete, so an export that fails (or is interrupted) leaves no half
 * file. An existing FILE is never replaced without --force; with --force
 * it is replaced by a rename, so a symbolic link at FILE is replaced, never
 * followed. The file is created with mode 0600.
 *
 * Times are nanoseconds relative to the trace origin (the earliest process
 * start, struct trace.origin_ns) unless said otherwise.
 *
 * SQLite schema (docs/FORMAT.md has a copy):
 *
 *   CREATE TABLE processes(
 *       id INTEGER PRIMARY KEY,
 *       host TEXT, pid INTEGER, ppid INTEGER,
 *       rank INTEGER,              -- NULL if unset
 *       local_rank INTEGER,        -- NULL if unset
 *       exe TEXT, cmdline TEXT,
 *       start_ns INTEGER,          -- CLOCK_REALTIME ns; MIN(start_ns) is the origin
 *       complete INTEGER,          -- 1: the process reached exit
 *       file TEXT,                 -- the trace file it came from
 *       stopped INTEGER,           -- 1: recording stopped before the process ended
 *       stop_reason TEXT,          -- why: 'none', 'space', 'map', 'limit', 'other', 'file'
 *       stop_errno INTEGER,        -- the errno of the failure (0: none)
 *       lost_calls INTEGER,        -- calls counted but not recorded
 *       lost_names INTEGER,        -- kernel names not recorded
 *       ring_bytes INTEGER,        -- format 5: the ring's size (--ring), NULL if none
 *       overwritten_calls INTEGER, -- calls the ring overwrote
 *       frozen TEXT,               -- 'request', 'error', 'peer'; NULL if never frozen
 *       capture_ranges INTEGER);   -- capture ranges entered; NULL without capture control
 *   CREATE TABLE threads(
 *       id INTEGER PRIMARY KEY,
 *       process_id INTEGER REFERENCES processes(id),
 *       tid INTEGER,               -- kernel thread id
 *       name TEXT);
 *   CREATE TABLE strings(          -- call names and kernel names
 *       id INTEGER PRIMARY KEY,
 *       value TEXT UNIQUE);
 *   CREATE TABLE calls(            -- in time order: id follows start_ns
 *       id INTEGER PRIMARY KEY,
 *       thread_id INTEGER REFERENCES threads(id),
 *       start_ns INTEGER,          -- relative to the origin
 *       dur_ns INTEGER,            -- NULL if unfinished
 *       layer TEXT,                -- 'driver', 'hidden', 'runtime', 'cublas', ...
 *       name_id INTEGER REFERENCES strings(id),
 *       depth INTEGER,             -- nesting on the thread, 0 = outermost
 *       result INTEGER,            -- CUresult, cudaError_t, cublasStatus_t, ...,
 *                                  -- a pointer or count (raw return register
 *                                  -- of untyped calls), as a signed 64-bit
 *                                  -- value; NULL if unfinished
 *       args TEXT,                 -- argument words, hex, space separated
 *       kernel_id INTEGER REFERENCES strings(id),    -- NULL if none known
 *       parent_id INTEGER REFERENCES calls(id),     -- the call it ran inside;
 *                                  -- NULL if outermost or not recorded
 *       status TEXT,               -- result decoded: 'CUDA_SUCCESS',
 *                                  -- 'cudaErrorMemoryAllocation', '0x7f…' (a
 *                                  -- pointer), 'void'; NULL if unfinished
 *       decoded TEXT,              -- the arguments as cutap dump prints them:
 *                                  -- 'dptr=0x7ffd…→0x7f…, bytesize=4096'
 *       object_id INTEGER REFERENCES strings(id),   -- a runtime call reported
 *                                  -- through CUPTI by a copy cutap does not
 *                                  -- wrap: its object's path; else NULL
 *       injected TEXT);            -- fault injection (--inject): 'not made' or
 *                                  -- 'delayed'; NULL for every other call
 *   CREATE TABLE counters(         -- counting-mode traces (cutap stat)
 *       thread_id INTEGER REFERENCES threads(id),
 *       layer TEXT,
 *       name_id INTEGER REFERENCES strings(id),
 *       calls INTEGER, errors INTEGER,  -- every call
 *       total_ns INTEGER,          -- all the calls; estimated when timed < calls
 *       min_ns INTEGER, max_ns INTEGER,   -- over the timed calls
 *       timed INTEGER);            -- calls timed (= calls with every call timed)
 *   CREATE VIEW calls_named AS
 *       SELECT calls.*, s.value AS name, k.value AS kernel
 *       FROM calls JOIN strings s ON s.id = calls.name_id
 *       LEFT JOIN strings k ON k.id = calls.kernel_id;
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "sqlite_dl.h"

#define USAGE_LINE "usage: cutap export --format perfetto|perfetto-proto|sqlite|jsonl -o FILE [--force] [-e FILTER] [--from S] [--to S] DIR\n"
static const char usage[] =
    USAGE_LINE
    "  perfetto  Chrome trace-event JSON (ui.perfetto.dev, chrome://tracing)\n"
    "  perfetto-proto  Perfetto's native protobuf trace (ui.perfetto.dev): about 40 bytes\n"
    "            a call against the JSON's 700, for long traces; no argument words\n"
    "  sqlite    SQLite database (tables processes, threads, strings, calls,\n"
    "            counters; view calls_named)\n"
    "  jsonl     one JSON object per line: calls in time order, then counters\n"
    "  -o FILE             the file to write (made 0600, never through a symbolic link)\n"
    "  --force             replace FILE if it exists\n"
    CLI_SELECT_HELP
    "examples:\n"
    "  cutap export --format perfetto -o run1.json run1     # open in ui.perfetto.dev\n"
    "  cutap export --format perfetto-proto -o run1.pftrace run1   # a long run\n"
    "  cutap export --format jsonl -o mem.jsonl -e 'cuMem*,cudaMalloc*,cudaFree' run1\n"
    "  cutap export --format sqlite -o window.db --from 30 --to 31 run1\n";

enum { EXP_PERFETTO, EXP_SQLITE, EXP_JSONL, EXP_PERFETTO_PROTO };

/* --- helpers shared by the formats ---------------------------------- */

static const struct tr_proc *call_proc(const struct trace *tr, const struct tr_call *c)
{
    return &tr->procs[tr->threads[c->thread].proc];
}

/* The kernel a call is about: launches and function queries take the
 * CUfunction/CUkernel as their first or second argument. */
static const char *call_kernel(const struct trace *tr, const struct tr_call *c)
{
    const struct tr_proc *p = call_proc(tr, c);
    if (!p->nfuncs)
        return NULL;
    for (unsigned i = 0; i < c->rec->nargs && i < 2; i++) {
        uint64_t w = tr_args(c)[i];
        const char *k = w ? tr_func_name(p, w) : NULL;
        if (k)
            return k;
    }
    return NULL;
}

/* A call decoded as `cutap dump` decodes it: the arguments at buf, the
 * result (empty when unfinished) at buf + status_at, each NUL-terminated.
 * One memory stream for all the calls of an export. */
struct decoded {
    FILE *m;
    char *buf;
    size_t len, status_at;
};

static void decode_call(struct decoded *d, const struct trace *tr, const struct tr_call *c)
{
    if (!d->m && !(d->m = open_memstream(&d->buf, &d->len))) {
        fprintf(stderr, "cutap: out of memory\n");
        exit(1);
    }
    rewind(d->m);
    dump_call_args(d->m, tr, c);
    fputc(0, d->m);
    long at = ftell(d->m);
    dump_call_status(d->m, tr, c);
    fputc(0, d->m);
    if (fflush(d->m) || ferror(d->m) || at < 0) {
        fprintf(stderr, "cutap: out of memory\n");
        exit(1);
    }
    d->status_at = (size_t)at;
}

static void decoded_free(struct decoded *d)
{
    if (d->m)
        fclose(d->m);
    free(d->buf);
}

/* "exe [pid N] host H rank R": a process as the Perfetto exports name it. */
void proc_display_name(const struct cutap_file_header *h, char *name, size_t size)
{
    int n = snprintf(name, size, "%s [pid %d] host %s", h->exe[0] ? basename_of(h->exe) : "?", h->pid,
                     h->host[0] ? h->host : "?");
    if (h->rank >= 0 && n >= 0 && (size_t)n < size)
        snprintf(name + n, size - (size_t)n, " rank %d", h->rank);
}

const char *basename_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* A string as a JSON literal, made once: call names and hosts are
 * repeated on every line. */
static char *json_dup(const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) {
        fprintf(stderr, "cutap: out of memory\n");
        exit(1);
    }
    json_str(m, s);
    if (fclose(m)) {
        fprintf(stderr, "cutap: out of memory\n");
        exit(1);
    }
    return buf;
}

static char **json_names(const struct trace *tr)
{
    char **v = calloc(tr->nnames ? tr->nnames : 1, sizeof *v);
    if (!v) {
        fprintf(stderr, "cutap: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < tr->nnames; i++)
        v[i] = json_dup(tr->names[i].name);
    return v;
}

static void free_strs(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* --- perfetto ------------------------------------------------------- */

/* Linux pids never exceed this (PID_MAX_LIMIT on 64-bit), so pids made up
 * above it cannot be mistaken for real ones. */
#define PID_MAX_LIMIT 4194304

/* The pid each process shows in the viewer, and its sort index. Two files
 * can carry the same pid: an exec'd image (same process, new file) or
 * processes on different hosts. The viewer merges tracks of equal pids,
 * so the earliest-started keeps the real pid and the others get made-up
 * ones; the process name keeps the real pid. */
struct pf_proc {
    int64_t pid;
    size_t sort_index;
};
struct pf_proc *pf_procs(const struct trace *tr);

static int cmp_by_pid(const void *a, const void *b, void *ctx)
{
    const struct trace *tr = ctx;
    const struct tr_proc *x = &tr->procs[*(const size_t *)a], *y = &tr->procs[*(const size_t *)b];
    if (x->h.pid != y->h.pid)
        return x->h.pid < y->h.pid ? -1 : 1;
    if (x->base_ns != y->base_ns)
        return x->base_ns < y->base_ns ? -1 : 1;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* Display order: ranked processes by rank, then the rest; start time breaks ties. */
static int cmp_display(const void *a, const void *b, void *ctx)
{
    const struct trace *tr = ctx;
    const struct tr_proc *x = &tr->procs[*(const size_t *)a], *y = &tr->procs[*(const size_t *)b];
    int xr = x->h.rank >= 0, yr = y->h.rank >= 0;
    if (xr != yr)
        return xr ? -1 : 1;
    if (xr && x->h.rank != y->h.rank)
        return x->h.rank < y->h.rank ? -1 : 1;
    if (x->base_ns != y->base_ns)
        return x->base_ns < y->base_ns ? -1 : 1;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

struct pf_proc *pf_procs(const struct trace *tr)
{
    size_t n = tr->nprocs;
    struct pf_proc *pp = calloc(n ? n : 1, sizeof *pp);
    size_t *order = calloc(n ? n : 1, sizeof *order);
    if (!pp || !order) {
        fprintf(stderr, "cutap: out of memory\n");
        exit(1);
    }
    int64_t next = PID_MAX_LIMIT;
    for (size_t i = 0; i < n; i++) {
        order[i] = i;
        if (tr->procs[i].h.pid >= next)
            next = (int64_t)tr->procs[i].h.pid + 1;   /* a damaged header: stay clear of it */
    }
    qsort_r(order, n, sizeof *order, cmp_by_pid, (void *)tr);
    for (size_t k = 0; k < n; k++) {
        const struct tr_proc *p = &tr->procs[order[k]];
        int dup = k > 0 && tr->procs[order[k - 1]].h.pid == p->h.pid;
        pp[order[k]].pid = dup ? ++next : p->h.pid;
    }
    qsort_r(order, n, sizeof *order, cmp_display, (void *)tr);
    for (size_t k = 0; k < n; k++)
        pp[order[k]].sort_index = k;
    free(order);
    return pp;
}

/* Microseconds with three decimals: exact nanoseconds, no float rounding. */
static void put_us(FILE *f, uint64_t ns)
{
    fprintf(f, "%llu.%03u", (unsigned long long)(ns / 1000), (unsigned)(ns % 1000));
}

/* A process's losses as JSON members (no braces): stopped, stop_reason,
 * stop_errno, lost_calls, lost_names, loss (the words of the warning). */
static void json_loss(FILE *f, const struct tr_proc *p, const char *loss)
{
    fprintf(f, "\"stopped\":%s,\"stop_reason\":\"%s\",\"stop_errno\":%d,\"lost_calls\":%llu,\"lost_names\":%llu,\"loss\":",
            p->h.flags & CUTAP_FILE_STOPPED ? "true" : "false", tr_stop_reason_str(p->h.stop_reason), p->h.stop_errno,
            (unsigned long long)p->h.lost_calls, (unsigned long long)p->h.lost_names);
    json_str(f, loss);
    if (p->h.ring_chunks || p->h.freeze_clock || p->h.capture) {
        static const char *const fz[] = {"none", "request", "error", "peer"};
        fprintf(f, ",\"ring_bytes\":%llu,\"overwritten_calls\":%llu,\"frozen\":\"%s\",\"capture_ranges\":%u",
                (unsigned long long)p->h.ring_chunks * p->h.chunk_size, (unsigned long long)p->h.overwritten_calls,
                !p->h.freeze_clock ? "no" : p->h.freeze_reason < 4 ? fz[p->h.freeze_reason] : "other",
                p->h.capture_ranges);
    }
}

/* An NVTX range or mark (the reader's, trace_read.h) as Perfetto events:
 * a push/pop range that nests is a slice on its thread's track, like the
 * calls inside it (one never ended is drawn to where tr_range.draw_t1
 * says, "(unfinished)" added to its name); a start/end range, or a push/pop
 * that does not nest, is an async slice (b/e, id = its entry's index + 1);
 * a mark is an instant. cat: "range" or "mark". */
static void pf_range(FILE *f, const struct trace *tr, const struct tr_call *c, size_t i, int64_t pid, int tid)
{
    const struct tr_range *r = tr_range_of(c);
    const char *msg = tr->names[c->name].name;
    uint64_t end = c->t1 ? c->t1 : r->draw_t1;
    char un[512];
    if (!c->t1 && r->kind != TR_RANGE_MARK) {
        snprintf(un, sizeof un, "%s (unfinished)", msg);
        msg = un;
    }
    if (r->kind == TR_RANGE_MARK) {
        fprintf(f, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":%lld,\"tid\":%d,\"ts\":", (long long)pid, tid);
        put_us(f, c->t0 - tr->origin_ns);
    } else if (c->rflags & TR_RF_ASYNC) {
        fprintf(f, "{\"ph\":\"b\",\"id\":\"0x%zx\",\"pid\":%lld,\"tid\":%d,\"ts\":", i + 1, (long long)pid, tid);
        put_us(f, c->t0 - tr->origin_ns);
        fputs(",\"name\":", f);
        json_str(f, msg);
        fprintf(f, ",\"cat\":\"range\"},\n{\"ph\":\"e\",\"id\":\"0x%zx\",\"pid\":%lld,\"tid\":%d,\"ts\":", i + 1,
                (long long)pid, tid);
        put_us(f, end - tr->origin_ns);
    } else {
        fprintf(f, "{\"ph\":\"X\",\"pid\":%lld,\"tid\":%d,\"ts\":", (long long)pid, tid);
        put_us(f, c->t0 - tr->origin_ns);
        fputs(",\"dur\":", f);
        put_us(f, end - c->t0);
    }
    fputs(",\"name\":", f);
    json_str(f, msg);
    fprintf(f, ",\"cat\":\"%s\",\"args\":{\"depth\":%u,\"domain\":\"0x%llx\"}}", layer_str(tr->names[c->name].layer),
            c->depth, (unsigned long long)r->domain);
}

static void write_perfetto(const struct trace *tr, FILE *f)
{
    struct pf_proc *pp = pf_procs(tr);
    char **jname = json_names(tr);
    struct decoded dec = {0};
    int first = 1;
#define SEP() (fputs(first ? "\n" : ",\n", f), first = 0)

    /* Threads grouped by process: tord[tstart[p] .. tstart[p+1]) are the
     * threads of process p (a counting sort). */
    size_t *tstart = calloc(tr->nprocs + 1, sizeof *tstart), *fill = calloc(tr->nprocs + 1, sizeof *fill);
    size_t *tord = calloc(tr->nthreads ? tr->nthreads : 1, sizeof *tord);
    if (!tstart || !fill || !tord) {
        fprintf(stderr, "cutap: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < tr->nthreads; i++)
        tstart[tr->threads[i].proc + 1]++;
    for (size_t i = 0; i < tr->nprocs; i++)
        tstart[i + 1] += tstart[i];
    memcpy(fill, tstart, (tr->nprocs + 1) * sizeof *fill);
    for (size_t i = 0; i < tr->nthreads; i++)
        tord[fill[tr->threads[i].proc]++] = i;
    free(fill);

    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", f);
    /* Metadata first, each process followed by its threads. Perfetto
     * names a thread by tid alone (the newest thread with that tid), so a
     * thread is named right after the event that creates it: a tid that
     * recurs in another process (exec, other hosts) is not misnamed. The
     * process events carry no tid (Perfetto takes tid = pid). */
    for (size_t i = 0; i < tr->nprocs; i++) {
        char name[512];
        proc_display_name(&tr->procs[i].h, name, sizeof name);
        SEP();
        fprintf(f, "{\"ph\":\"M\",\"pid\":%lld,\"name\":\"process_name\",\"args\":{\"name\":", (long long)pp[i].pid);
        json_str(f, name);
        fputs("}}", f);
        SEP();
        fprintf(f, "{\"ph\":\"M\",\"pid\":%lld,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%zu}}",
                (long long)pp[i].pid, pp[i].sort_index);
        char loss[1024];
        int lost = tr_loss_text(&tr->procs[i], loss, 256);
        size_t ll = lost ? strlen(loss) : 0;
        if (tr_window_text(tr, &tr->procs[i], loss + ll + (lost ? 2 : 0), sizeof loss - ll - 2)) {
            if (lost)
                memcpy(loss + ll, "; ", 2);
            lost = 1;
        }
        if (lost) {
            /* shown beside the process name; the numbers as args */
            SEP();
            fprintf(f, "{\"ph\":\"M\",\"pid\":%lld,\"name\":\"process_labels\",\"args\":{\"labels\":",
                    (long long)pp[i].pid);
            json_str(f, loss);
            fputc(',', f);
            json_loss(f, &tr->procs[i], loss);
            fputs("}}", f);
        }
        for (size_t k = tstart[i]; k < tstart[i + 1]; k++) {
            const struct tr_thread *t = &tr->threads[tord[k]];
            char tname[32];
            if (t->name[0])
                snprintf(tname, sizeof tname, "%s", t->name);
            else
                snprintf(tname, sizeof tname, "tid %d", t->tid);
            SEP();
            fprintf(f, "{\"ph\":\"M\",\"pid\":%lld,\"tid\":%d,\"name\":\"thread_name\",\"args\":{\"name\":",
                    (long long)pp[i].pid, t->tid);
            json_str(f, tname);
            fputs("}}", f);
        }
    }
    free(tstart);
    free(tord);
    struct tr_iter it;
    tr_iter_init(&it, tr, "export");
    for (const struct tr_call *c; (c = tr_iter_next(&it));) {
        size_t i = it.index;
        const struct tr_thread *t = &tr->threads[c->thread];
        const struct tr_name *nm = &tr->names[c->name];
        SEP();
        if (c->rflags & TR_RF_RANGE) {
            pf_range(f, tr, c, i, pp[t->proc].pid, t->tid);
            continue;
        }
        if (c->t1) {
            fprintf(f, "{\"ph\":\"X\",\"pid\":%lld,\"tid\":%d,\"ts\":", (long long)pp[t->proc].pid, t->tid);
            put_us(f, c->t0 - tr->origin_ns);
            fputs(",\"dur\":", f);
            put_us(f, c->t1 - c->t0);
            fprintf(f, ",\"name\":%s", jname[c->name]);
        } else {
            fprintf(f, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":%lld,\"tid\":%d,\"ts\":", (long long)pp[t->proc].pid,
                    t->tid);
            put_us(f, c->t0 - tr->origin_ns);
            fputs(",\"name\":", f);
            char un[512];
            snprintf(un, sizeof un, "%s (unfinished)", nm->name);
            json_str(f, un);
        }
        fprintf(f, ",\"cat\":\"%s\",\"args\":{", layer_str(nm->layer));
        /* An unfinished call has no result. JavaScript numbers are
         * doubles: a raw return register (untyped calls) above 2^53 would
         * be rounded, so it goes out as hex. */
        if (!c->t1)
            ;
        else if (tr_result(c) < (1ull << 53))
            fprintf(f, "\"result\":%llu,", (unsigned long long)tr_result(c));
        else
            fprintf(f, "\"result\":\"0x%llx\",", (unsigned long long)tr_result(c));
        decode_call(&dec, tr, c);
        if (c->flags & CUTAP_RF_INJECTED)
            fputs(c->flags & CUTAP_RF_SKIPPED ? "\"injected\":\"not made\"," : "\"injected\":\"delayed\",", f);
        if (c->t1) {
            fputs("\"status\":", f);
            json_str(f, dec.buf + dec.status_at);
            fputc(',', f);
        }
        fprintf(f, "\"depth\":%u,\"decoded\":", c->depth);
        json_str(f, dec.buf);
        const uint64_t *w = tr_args(c);
        for (unsigned a = 0; a < c->rec->nargs; a++)
            fprintf(f, ",\"a%u\":\"0x%llx\"", a, (unsigned long long)w[a]);
        const char *k = call_kernel(tr, c);
        if (k) {
            fputs(",\"kernel\":", f);
            json_str(f, k);
        }
        if (c->object >= 0) {
            fputs(",\"object\":", f);
            json_str(f, tr->names[c->object].name);
        }
        fputs("}}", f);
    }
    tr_iter_free(&it);
    fputs("\n]}\n", f);
#undef SEP
    if (tr->ncounters)
        fprintf(stderr,
                "cutap export: %zu counters not exported (counters are not events; use --format jsonl or "
                "sqlite)\n",
                tr->ncounters);
    free_strs(jname, tr->nnames);
    free(pp);
    decoded_free(&dec);
}

/* --- jsonl ---------------------------------------------------------- */

/* An NVTX range or mark (trace_read.h) as a JSON line: "type":"range" or
 * "mark", the fields a call has but result, args and decoding, and
 * "kind":"push"|"start", "nested" (whether it is the parent of what ran
 * inside it), "domain". dur_ns is null, and "unfinished":true, for a range
 * never ended. */
/* The fields every JSON line starts with: type, id, parent, time,
 * duration, host, pid, tid, rank. */
static void jsonl_head(FILE *f, const struct trace *tr, const struct tr_call *c, size_t i, const char *type,
                       const char *jhost)
{
    const struct tr_thread *t = &tr->threads[c->thread];
    const struct cutap_file_header *h = &tr->procs[t->proc].h;
    fprintf(f, "{\"type\":\"%s\",\"id\":%zu,", type, i + 1);
    if (c->parent)
        fprintf(f, "\"parent\":%llu,", (unsigned long long)c->parent);
    else
        fputs("\"parent\":null,", f);
    fprintf(f, "\"t_ns\":%llu,", (unsigned long long)(c->t0 - tr->origin_ns));
    if (c->t1)
        fprintf(f, "\"dur_ns\":%llu", (unsigned long long)(c->t1 - c->t0));
    else
        fputs("\"dur_ns\":null", f);
    fprintf(f, ",\"host\":%s,\"pid\":%d,\"tid\":%d,", jhost, h->pid, t->tid);
    if (h->rank >= 0)
        fprintf(f, "\"rank\":%d", h->rank);
    else
        fputs("\"rank\":null", f);
}

static void jsonl_range(FILE *f, const struct trace *tr, const struct tr_call *c, size_t i, const char *jhost,
                        const char *jname)
{
    const struct tr_range *r = tr_range_of(c);
    jsonl_head(f, tr, c, i, r->kind == TR_RANGE_MARK ? "mark" : "range", jhost);
    fprintf(f, ",\"layer\":\"%s\",\"name\":%s,\"depth\":%u,", layer_str(tr->names[c->name].layer), jname, c->depth);
    if (r->kind != TR_RANGE_MARK)
        fprintf(f, "\"kind\":\"%s\",\"nested\":%s,", r->kind == TR_RANGE_PUSH ? "push" : "start",
                c->rflags & TR_RF_ASYNC ? "false" : "true");
    fprintf(f, "\"domain\":\"0x%llx\"%s}\n", (unsigned long long)r->domain, c->t1 ? "" : ",\"unfinished\":true");
}

static void write_jsonl(const struct trace *tr, FILE *f)
{
    char **jname = json_names(tr);
    char **jhost = calloc(tr->nprocs ? tr->nprocs : 1, sizeof *jhost);
    if (!jhost) {
        fprintf(stderr, "cutap: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < tr->nprocs; i++)
        jhost[i] = json_dup(tr->procs[i].h.host);
    struct decoded dec = {0};

    struct tr_iter it;
    tr_iter_init(&it, tr, "export");
    for (const struct tr_call *c; (c = tr_iter_next(&it));) {
        size_t i = it.index;
        const struct tr_thread *t = &tr->threads[c->thread];
        if (c->rflags & TR_RF_RANGE) {
            jsonl_range(f, tr, c, i, jhost[t->proc], jname[c->name]);
            continue;
        }
        jsonl_head(f, tr, c, i, "call", jhost[t->proc]);
        fprintf(f, ",\"layer\":\"%s\",\"name\":%s,\"depth\":%u,", layer_str(tr->names[c->name].layer),
                jname[c->name], c->depth);
        if (c->t1)
            fprintf(f, "\"result\":%llu,\"args\":[", (unsigned long long)tr_result(c));
        else
            fputs("\"result\":null,\"args\":[", f);   /* it never returned */
        const uint64_t *w = tr_args(c);
        for (unsigned a = 0; a < c->rec->nargs; a++)
            fprintf(f, a ? ",\"0x%llx\"" : "\"0x%llx\"", (unsigned long long)w[a]);
        fputc(']', f);
        /* The same call decoded, as cutap dump prints it. */
        decode_call(&dec, tr, c);
        fputs(",\"status\":", f);
        if (c->t1)
            json_str(f, dec.buf + dec.status_at);
        else
            fputs("null", f);
        fputs(",\"decoded\":", f);
        json_str(f, dec.buf);
        const char *k = call_kernel(tr, c);
        if (k) {
            fputs(",\"kernel\":", f);
            json_str(f, k);
        }
        if (c->object >= 0) {
            fputs(",\"object\":", f);
            json_str(f, tr->names[c->object].name);
        }
        if (!c->t1)
            fputs(",\"unfinished\":true", f);
        if (c->flags & CUTAP_RF_INJECTED)
            fputs(c->flags & CUTAP_RF_SKIPPED ? ",\"injected\":\"not made\"" : ",\"injected\":\"delayed\"", f);
        const struct cutap_stack_frame *fr;
        unsigned nfr = tr_call_stack(tr, c, &fr);
        if (nfr) {
            const struct tr_proc *sp = &tr->procs[t->proc];
            fputs(",\"stack\":[", f);
            for (unsigned k = 0; k < nfr; k++) {
                char buf[512];
                sym_stack_frame(tr, sp, &fr[k], buf, sizeof buf);
                if (k)
                    fputc(',', f);
                json_str(f, buf);
            }
            fputc(']', f);
        }
        fputs("}\n", f);
    }
    tr_iter_free(&it);
    for (size_t i = 0; i < tr->ncounters; i++) {
        const struct tr_counter *k = &tr->counters[i];
        const struct tr_thread *t = &tr->threads[k->thread];
        fprintf(f,
                "{\"type\":\"counter\",\"host\":%s,\"pid\":%d,\"tid\":%d,\"layer\":\"%s\",\"name\":%s,"
                "\"calls\":%llu,\"errors\":%llu,\"total_ns\":%llu,\"min_ns\":%llu,\"max_ns\":%llu,\"timed\":%llu}\n",
                jhost[t->proc], tr->procs[t->proc].h.pid, t->tid, layer_str(tr->names[k->name].layer),
                jname[k->name], (unsigned long long)k->calls, (unsigned long long)k->errors,
                (unsigned long long)k->total_ns, (unsigned long long)k->min_ns, (unsigned long long)k->max_ns,
                (unsigned long long)k->timed);
    }
    /* Processes whose recording lost calls or names (version 3 header). */
    for (size_t i = 0; i < tr->nprocs; i++) {
        const struct tr_proc *p = &tr->procs[i];
        char loss[1024];
        int lost = tr_loss_text(p, loss, 256);
        size_t ll = lost ? strlen(loss) : 0;
        if (tr_window_text(tr, p, loss + ll + (lost ? 2 : 0), sizeof loss - ll - 2)) {
            if (lost)
                memcpy(loss + ll, "; ", 2);
            lost = 1;
        }
        if (!lost)
            continue;
        fprintf(f, "{\"type\":\"process\",\"host\":%s,\"pid\":%d,", jhost[i], p->h.pid);
        json_loss(f, p, loss);
        fputs("}\n", f);
    }
    free_strs(jhost, tr->nprocs);
    free_strs(jname, tr->nnames);
    decoded_free(&dec);
}

/* --- sqlite --------------------------------------------------------- */

/* libsqlite3, loaded by cmd_export only when this format is asked for
 * (sqlite_dl.c): the command is built and runs without it otherwise. */
static const struct sqlite_dl *sq;

static const char schema[] =
    "CREATE TABLE processes(id INTEGER PRIMARY KEY, host TEXT, pid INTEGER, ppid INTEGER, rank INTEGER,"
    " local_rank INTEGER, exe TEXT, cmdline TEXT, start_ns INTEGER, complete INTEGER, file TEXT, stopped INTEGER,"
    " stop_reason TEXT, stop_errno INTEGER, lost_calls INTEGER, lost_names INTEGER, ring_bytes INTEGER,"
    " overwritten_calls INTEGER, frozen TEXT, capture_ranges INTEGER);"
    "CREATE TABLE threads(id INTEGER PRIMARY KEY, process_id INTEGER REFERENCES processes(id), tid INTEGER,"
    " name TEXT);"
    "CREATE TABLE strings(id INTEGER PRIMARY KEY, value TEXT UNIQUE);"
    "CREATE TABLE calls(id INTEGER PRIMARY KEY, thread_id INTEGER REFERENCES threads(id), start_ns INTEGER,"
    " dur_ns INTEGER, layer TEXT, name_id INTEGER REFERENCES strings(id), depth INTEGER, result INTEGER,"
    " args TEXT, kernel_id INTEGER REFERENCES strings(id), parent_id INTEGER REFERENCES calls(id), status TEXT,"
    " decoded TEXT, object_id INTEGER REFERENCES strings(id), injected TEXT);"
    "CREATE TABLE counters(thread_id INTEGER REFERENCES threads(id), layer TEXT,"
    " name_id INTEGER REFERENCES strings(id), calls INTEGER, errors INTEGER, total_ns INTEGER, min_ns INTEGER,"
    " max_ns INTEGER, timed INTEGER);"
    "CREATE VIEW calls_named AS SELECT calls.*, s.value AS name, k.value AS kernel FROM calls"
    " JOIN strings s ON s.id = calls.name_id LEFT JOIN strings k ON k.id = calls.kernel_id;";

/* strings: value -> id, deduplicated here (open addressing) rather than
 * with INSERT OR IGNORE + SELECT, which would cost two statements per call.
 * Keys point into the trace (names, mapped kernel names): no copies. */
struct strtab {
    const char **key;
    int64_t *id;
    size_t cap, n;
    sqlite3_stmt *ins;
};

static size_t str_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;   /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (size_t)h;
}

static int strtab_grow(struct strtab *t)
{
    size_t cap = t->cap ? t->cap * 2 : 1024;
    const char **key = calloc(cap, sizeof *key);
    int64_t *id = calloc(cap, sizeof *id);
    if (!key || !id) {
        free(key);
        free(id);
        return -1;
    }
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->key[i])
            continue;
        size_t j = str_hash(t->key[i]) & (cap - 1);
        while (key[j])
            j = (j + 1) & (cap - 1);
        key[j] = t->key[i];
        id[j] = t->id[i];
    }
    free(t->key);
    free(t->id);
    t->key = key;
    t->id = id;
    t->cap = cap;
    return 0;
}

/* The id of s in strings, inserting it the first time. Returns an SQLite
 * result code (SQLITE_NOMEM when the table cannot grow). */
static int strtab_id(struct strtab *t, const char *s, int64_t *out)
{
    if ((t->n + 1) * 2 > t->cap && strtab_grow(t))
        return SQLITE_NOMEM;
    size_t j = str_hash(s) & (t->cap - 1);
    for (; t->key[j]; j = (j + 1) & (t->cap - 1))
        if (!strcmp(t->key[j], s)) {
            *out = t->id[j];
            return SQLITE_OK;
        }
    int64_t id = (int64_t)t->n + 1;
    int rc;
    if ((rc = sq->bind_int64(t->ins, 1, id)) != SQLITE_OK ||
        (rc = sq->bind_text(t->ins, 2, s, -1, SQLITE_STATIC)) != SQLITE_OK)
        return rc;
    if ((rc = sq->step(t->ins)) != SQLITE_DONE)
        return rc == SQLITE_ROW ? SQLITE_ERROR : rc;
    if ((rc = sq->reset(t->ins)) != SQLITE_OK)
        return rc;
    t->key[j] = s;
    t->id[j] = id;
    t->n++;
    *out = id;
    return SQLITE_OK;
}

/* Runs a bound statement once and makes it ready for the next row. */
static int step_reset(sqlite3_stmt *st)
{
    int rc = sq->step(st);
    if (rc != SQLITE_DONE)
        return rc == SQLITE_ROW ? SQLITE_ERROR : rc;
    return sq->reset(st);
}

static int bind_opt_int(sqlite3_stmt *st, int i, int v)
{
    return v >= 0 ? sq->bind_int(st, i, v) : sq->bind_null(st, i);
}

/* Every call below returns an SQLite result code; the first failure ends
 * the export. CK keeps that readable. */
#define CK(x)                                                                                                    \
    do {                                                                                                         \
        if ((rc = (x)) != SQLITE_OK)                                                                             \
            goto out;                                                                                            \
    } while (0)

static int write_sqlite(const struct trace *tr, const char *path)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st_proc = NULL, *st_thr = NULL, *st_call = NULL, *st_cnt = NULL;
    struct strtab strs = {0};
    struct decoded dec = {0};
    struct tr_iter it = {0};   /* freed at out: (a no-op before it starts) */
    int64_t *name_id = calloc(tr->nnames ? tr->nnames : 1, sizeof *name_id);
    int rc = name_id ? SQLITE_OK : SQLITE_NOMEM;
    if (rc != SQLITE_OK)
        goto out;

    rc = sq->open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL);
    if (rc != SQLITE_OK)
        goto out;
    /* No journal and no syncs while writing: the file is a temporary that
     * is deleted on failure and renamed only when complete (and synced by
     * the caller), so crash safety comes from the rename. */
    CK(sq->exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-65536;", NULL, NULL, NULL));
    CK(sq->exec(db, "BEGIN", NULL, NULL, NULL));
    CK(sq->exec(db, schema, NULL, NULL, NULL));
    CK(sq->prepare_v2(db, "INSERT INTO strings(id, value) VALUES(?1, ?2)", -1, &strs.ins, NULL));
    CK(sq->prepare_v2(db,
                      "INSERT INTO processes(id, host, pid, ppid, rank, local_rank, exe, cmdline, start_ns,"
                      " complete, file, stopped, stop_reason, stop_errno, lost_calls, lost_names, ring_bytes,"
                      " overwritten_calls, frozen, capture_ranges)"
                      " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)",
                      -1, &st_proc, NULL));
    CK(sq->prepare_v2(db, "INSERT INTO threads(id, process_id, tid, name) VALUES(?1, ?2, ?3, ?4)", -1, &st_thr, NULL));
    CK(sq->prepare_v2(db,
                      "INSERT INTO calls(id, thread_id, start_ns, dur_ns, layer, name_id, depth, result, args,"
                      " kernel_id, parent_id, status, decoded, object_id, injected) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7,"
                      " ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
                      -1, &st_call, NULL));
    CK(sq->prepare_v2(db,
                      "INSERT INTO counters(thread_id, layer, name_id, calls, errors, total_ns, min_ns, max_ns, timed)"
                      " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                      -1, &st_cnt, NULL));

    /* Ids are array index + 1, so threads and calls refer to rows by the
     * reader's own indices. */
    for (size_t i = 0; i < tr->nprocs; i++) {
        const struct tr_proc *p = &tr->procs[i];
        CK(sq->bind_int64(st_proc, 1, (int64_t)i + 1));
        CK(sq->bind_text(st_proc, 2, p->h.host, -1, SQLITE_STATIC));
        CK(sq->bind_int(st_proc, 3, p->h.pid));
        CK(sq->bind_int(st_proc, 4, p->h.ppid));
        CK(bind_opt_int(st_proc, 5, p->h.rank));
        CK(bind_opt_int(st_proc, 6, p->h.local_rank));
        CK(sq->bind_text(st_proc, 7, p->h.exe, -1, SQLITE_STATIC));
        CK(sq->bind_text(st_proc, 8, p->h.cmdline, -1, SQLITE_STATIC));
        CK(sq->bind_int64(st_proc, 9, (int64_t)p->h.start_realtime_ns));
        CK(sq->bind_int(st_proc, 10, p->complete));
        CK(sq->bind_text(st_proc, 11, p->path, -1, SQLITE_STATIC));
        CK(sq->bind_int(st_proc, 12, !!(p->h.flags & CUTAP_FILE_STOPPED)));
        CK(sq->bind_text(st_proc, 13, tr_stop_reason_str(p->h.stop_reason), -1, SQLITE_STATIC));
        CK(sq->bind_int(st_proc, 14, p->h.stop_errno));
        CK(sq->bind_int64(st_proc, 15, (int64_t)(p->h.lost_calls > INT64_MAX ? INT64_MAX : p->h.lost_calls)));
        CK(sq->bind_int64(st_proc, 16, (int64_t)(p->h.lost_names > INT64_MAX ? INT64_MAX : p->h.lost_names)));
        static const char *const fz[] = {"none", "request", "error", "peer"};
        uint64_t rb = (uint64_t)p->h.ring_chunks * p->h.chunk_size;
        CK(rb ? sq->bind_int64(st_proc, 17, (int64_t)rb) : sq->bind_null(st_proc, 17));
        CK(rb ? sq->bind_int64(st_proc, 18, (int64_t)(p->h.overwritten_calls > INT64_MAX ? INT64_MAX
                                                                                      : p->h.overwritten_calls))
              : sq->bind_null(st_proc, 18));
        CK(p->h.freeze_clock ? sq->bind_text(st_proc, 19, p->h.freeze_reason < 4 ? fz[p->h.freeze_reason] : "other", -1,
                                             SQLITE_STATIC)
                             : sq->bind_null(st_proc, 19));
        CK(p->h.capture ? sq->bind_int64(st_proc, 20, p->h.capture_ranges) : sq->bind_null(st_proc, 20));
        CK(step_reset(st_proc));
    }
    for (size_t i = 0; i < tr->nthreads; i++) {
        const struct tr_thread *t = &tr->threads[i];
        CK(sq->bind_int64(st_thr, 1, (int64_t)i + 1));
        CK(sq->bind_int64(st_thr, 2, (int64_t)t->proc + 1));
        CK(sq->bind_int(st_thr, 3, t->tid));
        CK(sq->bind_text(st_thr, 4, t->name, -1, SQLITE_STATIC));
        CK(step_reset(st_thr));
    }
    for (size_t i = 0; i < tr->nnames; i++)
        CK(strtab_id(&strs, tr->names[i].name, &name_id[i]));

    /* One buffer for the args text: at most 255 words of "0x" + 16 digits
     * + a space. Bound SQLITE_STATIC: it lives until the statement is
     * finalized. The decoded text is copied (TRANSIENT): the next call's
     * decoding may move its buffer while the binding still points to it. */
    char args[256 * 20];
    tr_iter_init(&it, tr, "export");
    for (const struct tr_call *c; (c = tr_iter_next(&it));) {
        size_t i = it.index;
        const uint64_t *w = tr_args(c);
        size_t len = 0;
        args[0] = 0;
        for (unsigned a = 0; a < c->rec->nargs; a++)
            len += (size_t)snprintf(args + len, sizeof args - len, a ? " 0x%llx" : "0x%llx", (unsigned long long)w[a]);
        const char *k = call_kernel(tr, c);
        int64_t kid = 0;
        if (k)
            CK(strtab_id(&strs, k, &kid));
        CK(sq->bind_int64(st_call, 1, (int64_t)i + 1));
        CK(sq->bind_int64(st_call, 2, (int64_t)c->thread + 1));
        CK(sq->bind_int64(st_call, 3, (int64_t)(c->t0 - tr->origin_ns)));
        CK(c->t1 ? sq->bind_int64(st_call, 4, (int64_t)(c->t1 - c->t0)) : sq->bind_null(st_call, 4));
        CK(sq->bind_text(st_call, 5, layer_str(tr->names[c->name].layer), -1, SQLITE_STATIC));
        CK(sq->bind_int64(st_call, 6, name_id[c->name]));
        CK(sq->bind_int(st_call, 7, c->depth));
        int call = !(c->rflags & TR_RF_RANGE);   /* NVTX ranges and marks: no result, no status */
        CK(c->t1 && call ? sq->bind_int64(st_call, 8, (int64_t)tr_result(c)) : sq->bind_null(st_call, 8));
        decode_call(&dec, tr, c);
        CK(sq->bind_text(st_call, 9, args, (int)len, SQLITE_STATIC));
        CK(k ? sq->bind_int64(st_call, 10, kid) : sq->bind_null(st_call, 10));
        CK(c->parent ? sq->bind_int64(st_call, 11, (int64_t)c->parent) : sq->bind_null(st_call, 11));
        CK(c->t1 && call ? sq->bind_text(st_call, 12, dec.buf + dec.status_at, -1, SQLITE_TRANSIENT)
                         : sq->bind_null(st_call, 12));
        CK(sq->bind_text(st_call, 13, dec.buf, -1, SQLITE_TRANSIENT));
        CK(c->object >= 0 ? sq->bind_int64(st_call, 14, name_id[c->object]) : sq->bind_null(st_call, 14));
        CK(c->flags & CUTAP_RF_INJECTED
               ? sq->bind_text(st_call, 15, c->flags & CUTAP_RF_SKIPPED ? "not made" : "delayed", -1, SQLITE_STATIC)
               : sq->bind_null(st_call, 15));
        CK(step_reset(st_call));
    }
    for (size_t i = 0; i < tr->ncounters; i++) {
        const struct tr_counter *k = &tr->counters[i];
        CK(sq->bind_int64(st_cnt, 1, (int64_t)k->thread + 1));
        CK(sq->bind_text(st_cnt, 2, layer_str(tr->names[k->name].layer), -1, SQLITE_STATIC));
        CK(sq->bind_int64(st_cnt, 3, name_id[k->name]));
        CK(sq->bind_int64(st_cnt, 4, (int64_t)k->calls));
        CK(sq->bind_int64(st_cnt, 5, (int64_t)k->errors));
        CK(sq->bind_int64(st_cnt, 6, (int64_t)k->total_ns));
        CK(sq->bind_int64(st_cnt, 7, (int64_t)k->min_ns));
        CK(sq->bind_int64(st_cnt, 8, (int64_t)k->max_ns));
        CK(sq->bind_int64(st_cnt, 9, (int64_t)k->timed));
        CK(step_reset(st_cnt));
    }
    CK(sq->exec(db, "COMMIT", NULL, NULL, NULL));

out:
    tr_iter_free(&it);
    if (rc != SQLITE_OK) {
        /* "disk I/O error" alone does not say the disk is full. */
        int sys = db ? sq->system_errno(db) : 0;
        fprintf(stderr, "cutap export: %s: sqlite: %s%s%s%s\n", path, db ? sq->errmsg(db) : sq->errstr(rc),
                sys ? " (" : "", sys ? strerror(sys) : "", sys ? ")" : "");
    }
    /* finalize(NULL) is a no-op; its result repeats the last step's error,
     * already reported. */
    sq->finalize(strs.ins);
    sq->finalize(st_proc);
    sq->finalize(st_thr);
    sq->finalize(st_call);
    sq->finalize(st_cnt);
    if (db) {
        int crc = sq->close(db);
        if (crc != SQLITE_OK && rc == SQLITE_OK) {
            fprintf(stderr, "cutap export: %s: sqlite: %s\n", path, sq->errstr(crc));
            rc = crc;
        }
    }
    free(strs.key);
    free(strs.id);
    free(name_id);
    decoded_free(&dec);
    return rc == SQLITE_OK ? 0 : -1;
}
#undef CK

/* --- the output file ------------------------------------------------ */

/* The temporary, removed if a signal ends the export. */
static char tmp_path[4096];

static void on_signal(int sig)
{
    unlink(tmp_path);   /* async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

static const int caught[] = {SIGINT, SIGTERM, SIGHUP};
static struct sigaction saved[sizeof caught / sizeof caught[0]];

/* Installed once the temporary exists, restored before returning. A
 * signal the caller ignores (nohup, background jobs) stays ignored. */
static void catch_signals(int on)
{
    for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++) {
        if (!on) {
            sigaction(caught[i], &saved[i], NULL);
            continue;
        }
        sigaction(caught[i], NULL, &saved[i]);
        if (saved[i].sa_handler == SIG_IGN)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(caught[i], &sa, NULL);
    }
}

/* Moves the finished temporary to its name. Without --force, link() is the
 * atomic "create if absent": a file that appeared since the check is still
 * not replaced. Filesystems without hard links fall back to check and
 * rename. */
static int publish(const char *tmp, const char *out, int force)
{
    if (!force) {
        if (!link(tmp, out)) {
            unlink(tmp);
            return 0;
        }
        if (errno == EEXIST) {
            fprintf(stderr, "cutap export: %s exists (use --force to replace it)\n", out);
            return -1;
        }
        struct stat st;
        if (!lstat(out, &st)) {
            fprintf(stderr, "cutap export: %s exists (use --force to replace it)\n", out);
            return -1;
        }
    }
    if (rename(tmp, out)) {
        fprintf(stderr, "cutap export: cannot write %s: %s\n", out, strerror(errno));
        return -1;
    }
    return 0;
}

static int export_to(const struct trace *tr, int format, const char *out, int force)
{
    if ((size_t)snprintf(tmp_path, sizeof tmp_path, "%s.tmp.%d", out, (int)getpid()) >= sizeof tmp_path) {
        fprintf(stderr, "cutap export: output path too long\n");
        return -1;
    }
    /* O_EXCL (and O_NOFOLLOW): never write through a link or into someone
     * else's file; 0600: the output holds the traced processes' data,
     * like the trace (publish() moves this very file to its name). */
    int fd = open(tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        fprintf(stderr, "cutap export: cannot create %s: %s\n", tmp_path, strerror(errno));
        return -1;
    }
    catch_signals(1);
    int ok;
    if (format == EXP_SQLITE) {
        close(fd);   /* SQLite opens the (empty) file itself */
        ok = !write_sqlite(tr, tmp_path);   /* reports its own errors */
        if (ok) {
            fd = open(tmp_path, O_RDONLY | O_CLOEXEC);
            if (fd < 0 || fsync(fd)) {
                fprintf(stderr, "cutap export: cannot write %s: %s\n", tmp_path, strerror(errno));
                ok = 0;
            }
            if (fd >= 0)
                close(fd);
        }
    } else {
        FILE *f = fdopen(fd, "w");
        if (!f) {
            close(fd);
            ok = 0;
        } else {
            static char buf[1 << 20];
            setvbuf(f, buf, _IOFBF, sizeof buf);
            if (format == EXP_PERFETTO)
                write_perfetto(tr, f);
            else if (format == EXP_PERFETTO_PROTO)
                write_perfetto_proto(tr, f);
            else
                write_jsonl(tr, f);
            /* Write errors (a full disk) stick in the stream: one check at
             * the end sees them all. */
            ok = !fflush(f) && !ferror(f) && !fsync(fileno(f));
            int err = errno;
            if (fclose(f))
                ok = 0;
            else
                errno = err;
        }
        if (!ok)
            fprintf(stderr, "cutap export: cannot write %s: %s\n", tmp_path, strerror(errno));
    }
    if (ok && publish(tmp_path, out, force))
        ok = 0;
    if (!ok)
        unlink(tmp_path);
    tr_progress_done(tr);
    catch_signals(0);
    return ok ? 0 : -1;
}

int cmd_export(int argc, char **argv)
{
    static const struct option longopts[] = {{"format", required_argument, 0, 'f'},
                                             {"output", required_argument, 0, 'o'},
                                             {"force", no_argument, 0, 'F'},
                                             {"help", no_argument, 0, 'h'},
                                             CLI_SELECT_LONGOPTS,
                                             {0, 0, 0, 0}};
    int format = -1, force = 0, c;
    const char *out = NULL;
    optind = 1;
    opterr = 0;   /* our own messages, naming the command */
    while ((c = getopt_long(argc, argv, ":f:o:he:", longopts, NULL)) != -1) {
        switch (c) {
        case 'e':
        case CLI_OPT_FROM:
        case CLI_OPT_TO:
            if (cli_select_opt(c, optarg, "export"))
                return 2;
            break;
        case 'f':
            if (!strcmp(optarg, "perfetto"))
                format = EXP_PERFETTO;
            else if (!strcmp(optarg, "sqlite"))
                format = EXP_SQLITE;
            else if (!strcmp(optarg, "jsonl"))
                format = EXP_JSONL;
            else if (!strcmp(optarg, "perfetto-proto"))
                format = EXP_PERFETTO_PROTO;
            else {
                fprintf(stderr, "cutap export: unknown format '%s' (perfetto, perfetto-proto, sqlite, jsonl)\n", optarg);
                return 2;
            }
            break;
        case 'o': out = optarg; break;
        case 'F': force = 1; break;
        case 'h': fputs(usage, stdout); return 0;
        case ':':
            fprintf(stderr, "cutap export: option '%s' needs a value\n" USAGE_LINE, argv[optind - 1]);
            return 2;
        default:
            if (optopt)
                fprintf(stderr, "cutap export: unknown option '-%c'\n" USAGE_LINE, optopt);
            else
                fprintf(stderr, "cutap export: unknown option '%s'\n" USAGE_LINE, argv[optind - 1]);
            return 2;
        }
    }
    const char *why = format < 0              ? "missing --format"
                      : !out || !*out         ? "missing -o FILE"
                      : optind == argc        ? "missing the trace directory"
                      : optind < argc - 1     ? "more than one trace directory"
                                              : NULL;
    if (why) {
        fprintf(stderr, "cutap export: %s\n" USAGE_LINE, why);
        return 2;
    }
    const char *dir = argv[optind];

    /* Before the (possibly long) load: refuse early. publish() checks again. */
    struct stat st;
    if (!force && !lstat(out, &st)) {
        fprintf(stderr, "cutap export: %s exists (use --force to replace it)\n", out);
        return 1;
    }

    /* Also before the load, and before any file is made: without
     * libsqlite3 there is no SQLite export. */
    if (format == EXP_SQLITE) {
        const char *why;
        if (!(sq = sqlite_dl_load(&why))) {
            fprintf(stderr, "cutap export: %s\n", why);
            return 1;
        }
    }

    struct trace tr;
    if (tr_load(&tr, dir) || cli_select_apply(&tr)) {
        tr_free(&tr);
        return 1;
    }
    int rc = export_to(&tr, format, out, force) ? 1 : 0;
    /* Damaged files were reported by the reader and the rest exported;
     * the status says the export is not the whole trace. */
    if (!rc && tr.problems) {
        fprintf(stderr, "cutap export: %s written, but the trace has %d problem(s) (above): it may be incomplete\n",
                out, tr.problems);
        rc = 1;
    }
    tr_free(&tr);
    return rc;
}
