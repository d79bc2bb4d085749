/* cutap report --gpu (issue #31): what ran on the GPU, from the activity
 * `cutap trace --gpu` recorded. As nsys's gpukernsum and gpumemtimesum:
 * per kernel name (demangled), then per copy direction and memset, the
 * count and the GPU time: total, average, median, minimum, maximum and
 * standard deviation; with the share of all GPU time listed. Above them,
 * what was recorded and what was not (per process: CUPTI's dropped
 * records, records not written, not flushed at exit, not started and why). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* (no libm for one square root) */
static double root(double v)
{
    double x = v > 1 ? v : 1;
    for (int i = 0; i < 60; i++)
        x = (x + v / x) / 2;
    return x;
}

struct op {
    const char *key;     /* kernel: its name as recorded; copies: "[CUDA memcpy HtoD]" ... */
    uint64_t ns;
    uint64_t bytes;
    int kernel;
};

static int cmp_op(const void *a, const void *b)
{
    const struct op *x = a, *y = b;
    if (x->kernel != y->kernel)
        return y->kernel - x->kernel;
    int k = strcmp(x->key, y->key);
    return k ? k : x->ns < y->ns ? -1 : x->ns > y->ns;
}

struct row {
    const char *key;
    uint64_t n, total, min, max, med, bytes;
    double sd;
    int kernel;
};

static int cmp_row(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    if (x->kernel != y->kernel)
        return y->kernel - x->kernel;
    return x->total < y->total ? 1 : x->total > y->total ? -1 : strcmp(x->key, y->key);
}

/* Per process: what was not recorded; returns whether any file had --gpu. */
static int notes(const struct trace *tr, FILE *f, size_t *joined, size_t *total)
{
    int any = 0;
    for (size_t i = 0; i < tr->nprocs; i++) {
        const struct tr_proc *p = &tr->procs[i];
        const struct cutap_file_header *h = &p->h;
        if (!h->gpu)
            continue;
        any = 1;
        *joined += p->gpu_joined;
        *total += p->ngpu;
        if (h->gpu & CUTAP_GPU_ON_FAILED)
            fprintf(f, "process %d: GPU activity not recorded: %s\n", h->pid, h->gpu_why);
        else if (!(h->gpu & CUTAP_GPU_ON_STARTED))
            fprintf(f, "process %d: GPU activity not started (no successful cuInit of its own: it made none, or "
                       "it is a forked child, in which CUPTI does not run)\n", h->pid);
        if (h->gpu_dropped)
            fprintf(f, "process %d: CUPTI dropped %" PRIu64 " activity records (its buffers were full)\n", h->pid,
                    h->gpu_dropped);
        if (h->gpu_lost)
            fprintf(f, "process %d: %" PRIu64 " activity records not written (recording had stopped)\n", h->pid,
                    h->gpu_lost);
        if (h->gpu & CUTAP_GPU_ON_TAKEN)
            fprintf(f, "process %d: %s; its GPU activity after that is not recorded\n", h->pid, h->gpu_why);
        else if ((h->gpu & CUTAP_GPU_ON_STARTED) && !(h->gpu & CUTAP_GPU_ON_FLUSHED))
            fprintf(f, "process %d: did not reach exit: the GPU activity since CUPTI's last hand-over of its buffers "
                       "may be missing\n", h->pid);
        /* an older CUPTI than cutap's list of enqueuing functions, and the
         * program called one it does not know: another reason */
        const char *unknown = h->gpu & CUTAP_GPU_ON_UNKNOWN_IDS ? "; or the call is of a function its CUPTI does not "
                                                                   "know (see below)" : "";
        if (h->gpu_pushed > p->gpu_paired && !(h->gpu & CUTAP_GPU_ON_CALLBACKS))
            fprintf(f, "process %d: %" PRIu64 " of %" PRIu64 " calls that enqueue GPU work have no CUPTI record in the "
                       "file: their GPU activity was not delivered (the process did not reach exit, or another CUPTI "
                       "client took CUPTI's buffers over)%s\n", h->pid, h->gpu_pushed - (uint64_t)p->gpu_paired,
                    h->gpu_pushed, unknown);
        else if (h->gpu_pushed > p->gpu_paired)   /* joined through callbacks: no record for the call itself */
            fprintf(f, "process %d: %" PRIu64 " of %" PRIu64 " successful calls that enqueue GPU work have no GPU "
                       "activity in the file: not delivered (the process did not reach exit, or another CUPTI client "
                       "took CUPTI's buffers over), or none made (a copy of no bytes, an empty graph, a call captured into a "
                       "graph on another thread)%s\n", h->pid,
                    h->gpu_pushed - (uint64_t)p->gpu_paired, h->gpu_pushed, unknown);
        if ((h->gpu & CUTAP_GPU_ON_UNKNOWN_IDS) && (h->gpu_pushed > p->gpu_paired || p->ngpu > p->gpu_joined))
            fprintf(f, "process %d: it called functions that enqueue GPU work which its CUPTI does not know (older than "
                       "cutap's list of them: it refused their callback ids): their GPU activity is not joined to "
                       "them\n", h->pid);
        if (p->ngpu > p->gpu_joined)
            fprintf(f, "process %d: %zu of %zu activity records joined to no launching call (its correlation not "
                       "written, or the call not recorded)\n", h->pid, p->ngpu - p->gpu_joined, p->ngpu);
    }
    return any;
}

static void put_name(FILE *f, const char *key, int kernel, int demangle, int format)
{
    char *dm = kernel && demangle ? cli_demangle(key) : NULL;
    const char *s = dm ? dm : key;
    if (format == FMT_TEXT)
        text_str(f, s);   /* (names from the file: escaped) */
    else if (format == FMT_CSV)
        csv_str(f, s);
    else
        json_str(f, s);
    free(dm);
}

int report_gpu(const struct trace *tr, FILE *f, int format, size_t top)
{
    size_t joined = 0, total = 0;
    FILE *nf = format == FMT_TEXT ? f : stderr;
    if (!notes(tr, nf, &joined, &total)) {
        fprintf(stderr, "cutap report: no GPU activity in this trace: record it with cutap trace --gpu\n");
        return 1;
    }
    struct op *ops = malloc((total ? total : 1) * sizeof *ops);
    if (!ops) {
        fprintf(stderr, "cutap report: out of memory\n");
        return 1;
    }
    size_t n = 0, unmeasured = 0, kernels = 0, copies = 0, sets = 0;
    for (size_t i = 0; i < tr->nprocs; i++) {
        const struct tr_proc *p = &tr->procs[i];
        for (size_t k = 0; k < p->ngpu; k++) {
            const struct tr_gpu *x = &p->gpu[k];
            int t = x->g->type;
            kernels += t == CUTAP_GPU_KERNEL, copies += t == CUTAP_GPU_MEMCPY, sets += t == CUTAP_GPU_MEMSET;
            if (!x->t0 || x->t1 < x->t0) {
                unmeasured++;
                continue;
            }
            const char *name = tr_gpu_name(p, x);
            ops[n++] = (struct op){t == CUTAP_GPU_KERNEL ? (name ? name : "?") : tr_gpu_op(x),
                                   x->t1 - x->t0, t == CUTAP_GPU_KERNEL ? 0 : x->g->u.m.bytes, t == CUTAP_GPU_KERNEL};
        }
    }
    if (format == FMT_TEXT) {
        fprintf(f, "GPU activity: %zu kernels, %zu copies, %zu memsets; %zu of %zu joined to their launching call",
                kernels, copies, sets, joined, total);
        if (unmeasured)
            fprintf(f, "; %zu without GPU times", unmeasured);
        fputc('\n', f);
    }
    qsort(ops, n, sizeof *ops, cmp_op);
    struct row *rows = malloc((n ? n : 1) * sizeof *rows);
    size_t nr = 0;
    uint64_t all[2] = {0, 0};
    for (size_t i = 0; rows && i < n;) {
        size_t j = i;
        struct row r = {.key = ops[i].key, .kernel = ops[i].kernel, .min = ops[i].ns, .max = ops[i].ns};
        double sum = 0, sq = 0;
        for (; j < n && ops[j].kernel == r.kernel && !strcmp(ops[j].key, r.key); j++) {
            r.total += ops[j].ns;
            r.bytes += ops[j].bytes;
            sum += (double)ops[j].ns;
            sq += (double)ops[j].ns * (double)ops[j].ns;
        }
        r.n = j - i;
        r.max = ops[j - 1].ns;
        r.med = r.n % 2 ? ops[i + r.n / 2].ns : (ops[i + r.n / 2 - 1].ns + ops[i + r.n / 2].ns) / 2;
        double mean = sum / (double)r.n, var = r.n > 1 ? (sq - sum * mean) / (double)(r.n - 1) : 0;
        r.sd = var > 0 ? root(var) : 0;
        all[!r.kernel] += r.total;
        rows[nr++] = r;
        i = j;
    }
    if (rows)
        qsort(rows, nr, sizeof *rows, cmp_row);
    if (format == FMT_JSON)
        fputs("[", f);
    else if (format == FMT_CSV)
        fputs("what,time_pct,total_ns,count,avg_ns,med_ns,min_ns,max_ns,stddev_ns,bytes,name\n", f);
    int first = 1, section = -1;
    size_t shown = 0;
    for (size_t i = 0; i < nr; i++) {
        const struct row *r = &rows[i];
        if (r->kernel != section) {
            section = r->kernel;
            shown = 0;
            if (format == FMT_TEXT)
                fprintf(f, "\n%s (GPU time)\n %7s %14s %9s %12s %12s %12s %12s %12s %s%s\n",
                        r->kernel ? "Kernels" : "Copies and memsets", "Time(%)", "Total(ns)",
                        r->kernel ? "Instances" : "Count", "Avg(ns)", "Med(ns)", "Min(ns)", "Max(ns)", "StdDev(ns)",
                        r->kernel ? "" : "      Bytes  ", r->kernel ? "Name" : "Operation");
        }
        if (top && shown++ >= top)
            continue;
        double pct = all[!r->kernel] ? 100.0 * (double)r->total / (double)all[!r->kernel] : 0;
        uint64_t avg = r->total / r->n;
        if (format == FMT_TEXT) {
            fprintf(f, " %7.2f %14" PRIu64 " %9" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64
                       " %12.0f ", pct, r->total, r->n, avg, r->med, r->min, r->max, r->sd);
            if (!r->kernel)
                fprintf(f, "%11" PRIu64 "  ", r->bytes);
            put_name(f, r->key, r->kernel, 1, format);
            fputc('\n', f);
        } else if (format == FMT_CSV) {
            fprintf(f, "%s,%.2f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.0f,%" PRIu64
                       ",", r->kernel ? "kernel" : "memory", pct, r->total, r->n, avg, r->med, r->min, r->max, r->sd,
                    r->bytes);
            put_name(f, r->key, r->kernel, 1, format);
            fputc('\n', f);
        } else {
            fprintf(f, "%s\n {\"what\": \"%s\", \"time_pct\": %.2f, \"total_ns\": %" PRIu64 ", \"count\": %" PRIu64
                       ", \"avg_ns\": %" PRIu64 ", \"med_ns\": %" PRIu64 ", \"min_ns\": %" PRIu64 ", \"max_ns\": %" PRIu64
                       ", \"stddev_ns\": %.0f, \"bytes\": %" PRIu64 ", \"name\": ",
                    first ? "" : ",", r->kernel ? "kernel" : "memory", pct, r->total, r->n, avg, r->med, r->min, r->max,
                    r->sd, r->bytes);
            put_name(f, r->key, r->kernel, 1, format);
            fputc('}', f);
        }
        first = 0;
    }
    if (format == FMT_JSON)
        fputs("\n]\n", f);
    free(rows);
    free(ops);
    return 0;
}
