/* Helpers the export formats share (export_internal.h). */
#define _GNU_SOURCE
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"

const struct tr_proc *call_proc(const struct trace *tr, const struct tr_call *c)
{
    return &tr->procs[tr->threads[c->thread].proc];
}

/* The kernel a call is about: launches and function queries take the
 * CUfunction/CUkernel as their first or second argument. */
const char *call_kernel(const struct trace *tr, const struct tr_call *c)
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

void json_kernel_object(FILE *f, const struct trace *tr, const struct tr_call *c)
{
    const char *k = call_kernel(tr, c);
    if (k) {
        fputs(",\"kernel\":", f);
        json_str(f, k);
    }
    if (c->object >= 0) {
        fputs(",\"object\":", f);
        json_str(f, tr->names[c->object].name);
    }
}

/* A call decoded as `cutap dump` decodes it: the arguments at buf, the
 * result (empty when unfinished) at buf + status_at, each NUL-terminated.
 * One memory stream for all the calls of an export. */

void decode_call(struct decoded *d, const struct trace *tr, const struct tr_call *c)
{
    if (!d->m && !(d->m = open_memstream(&d->buf, &d->len))) {
        fprintf(stderr, "cutap: out of memory\n");
        exit(1);
    }
    if (!d->unlocked) {   /* this thread's alone: no lock per write */
        __fsetlocking(d->m, FSETLOCKING_BYCALLER);
        d->unlocked = 1;
    }
    if (!d->memo_made) {
        d->memo = cli_memo_new();
        d->memo_made = 1;
    }
    rewind(d->m);
    struct cli_memo_key k;
    size_t len, at;
    const void *unused;
    const char *t = d->memo && cli_memo_key(&k, tr, c) ? cli_memo_get(d->memo, &k, &len, &unused, &at) : NULL;
    if (t) {   /* made before for the same key: the same bytes */
        out_mem(d->m, t, len);
    } else {
        dump_call_args(d->m, tr, c);
        fputc(0, d->m);
        long a = ftell(d->m);
        dump_call_status(d->m, tr, c);
        fputc(0, d->m);
        at = a < 0 ? SIZE_MAX : (size_t)a;
    }
    if (fflush(d->m) || ferror(d->m) || at == SIZE_MAX) {
        fprintf(stderr, "cutap: out of memory\n");
        exit(1);
    }
    if (!t && d->memo && k.len)
        cli_memo_put(d->memo, &k, d->buf, d->len, NULL, at);
    d->status_at = at;
}

void decoded_free(struct decoded *d)
{
    cli_memo_free(d->memo);
    if (d->m)
        fclose(d->m);
    free(d->buf);
}

/* A string as a JSON literal, made once: call names and hosts are
 * repeated on every line. */
char *json_dup(const char *s)
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

char **json_names(const struct trace *tr)
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

void free_strs(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* Linux pids never exceed this (PID_MAX_LIMIT on 64-bit), so pids made up
 * above it cannot be mistaken for real ones. */
#define PID_MAX_LIMIT 4194304

/* The pid each process shows in the viewer, and its sort index. Two files
 * can carry the same pid: an exec'd image (same process, new file) or
 * processes on different hosts. The viewer merges tracks of equal pids,
 * so the earliest-started keeps the real pid and the others get made-up
 * ones; the process name keeps the real pid. */

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

uint64_t str_fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Microseconds with three decimals: exact nanoseconds, no float rounding. */
void put_us(FILE *f, uint64_t ns)
{
    char ms[4] = {'.', (char)('0' + ns % 1000 / 100), (char)('0' + ns % 100 / 10), (char)('0' + ns % 10)};
    text_u64(f, ns / 1000);   /* "%llu.%03u" without printf */
    fwrite(ms, 1, 4, f);
}

/* A process's losses as JSON members (no braces): stopped, stop_reason,
 * stop_errno, lost_calls, lost_names, loss (the words of the warning). */
void json_loss(FILE *f, const struct tr_proc *p, const char *loss)
{
    fprintf(f, "\"stopped\":%s,\"stop_reason\":\"%s\",\"stop_errno\":%d,\"lost_calls\":%llu,\"lost_names\":%llu,\"loss\":",
            p->h.flags & CUTAP_FILE_STOPPED ? "true" : "false", tr_stop_reason_str(p->h.stop_reason), p->h.stop_errno,
            (unsigned long long)p->h.lost_calls, (unsigned long long)p->h.lost_names);
    json_str(f, loss);
    if (p->h.ring_chunks || p->h.freeze_clock || p->h.capture) {
        fprintf(f, ",\"ring_bytes\":%llu,\"overwritten_calls\":%llu,\"frozen\":\"%s\",\"capture_ranges\":%u",
                (unsigned long long)p->h.ring_chunks * p->h.chunk_size, (unsigned long long)p->h.overwritten_calls,
                proc_frozen_str(p),
                p->h.capture_ranges);
    }
}

const char *proc_frozen_str(const struct tr_proc *p)
{
    static const char *const fz[] = {"none", "request", "error", "peer"};
    return !p->h.freeze_clock ? "no" : p->h.freeze_reason < 4 ? fz[p->h.freeze_reason] : "other";
}

void *export_worker_new(void *base)
{
    struct export_worker *w = xcalloc(1, sizeof *w);
    *w = *(const struct export_worker *)base;
    memset(&w->dec, 0, sizeof w->dec);
    return w;
}

void export_worker_free(void *wp)
{
    struct export_worker *w = wp;
    decoded_free(&w->dec);
    free(w);
}

/* --- GPU activity (issue #31, cutap trace --gpu) ------------------------ */

const char *gpu_kind_str(const struct tr_gpu *x)
{
    return x->g->type == CUTAP_GPU_KERNEL ? "kernel" : x->g->type == CUTAP_GPU_MEMCPY ? "memcpy" : "memset";
}

const char *gpu_label(const struct tr_proc *p, const struct tr_gpu *x, char *buf, size_t size)
{
    if (x->g->type == CUTAP_GPU_KERNEL) {
        const char *name = tr_gpu_name(p, x);
        char *dm = name ? cli_demangle(name) : NULL;
        snprintf(buf, size, "%s", dm ? dm : name ? name : "?");
        free(dm);
    } else {
        snprintf(buf, size, "%s", tr_gpu_op(x));
    }
    return buf;
}

void json_gpu_fields(FILE *f, const struct tr_proc *p, const struct tr_gpu *x)
{
    const struct cutap_rec_gpu *g = x->g;
    fprintf(f, ",\"kind\":\"%s\",\"device\":%u,\"context\":%u,\"stream\":%u", gpu_kind_str(x), g->device, g->context,
            g->stream);
    if (g->type == CUTAP_GPU_KERNEL) {
        const char *name = tr_gpu_name(p, x);
        char buf[4096];
        out_s(",\"name\":", f);
        json_str(f, gpu_label(p, x, buf, sizeof buf));
        if (name) {
            out_s(",\"mangled\":", f);
            json_str(f, name);
        }
        fprintf(f, ",\"grid\":[%u,%u,%u],\"block\":[%u,%u,%u]", g->u.k.grid[0], g->u.k.grid[1], g->u.k.grid[2],
                g->u.k.block[0], g->u.k.block[1], g->u.k.block[2]);
    } else if (g->type == CUTAP_GPU_MEMCPY) {
        fprintf(f, ",\"copy\":\"%s\",\"bytes\":%llu", tr_gpu_copy_kind(g->info), (unsigned long long)g->u.m.bytes);
    } else {
        fprintf(f, ",\"bytes\":%llu,\"value\":%u", (unsigned long long)g->u.m.bytes, g->info);
    }
}

uint32_t gpu_track_tid(const struct tr_gpu *x, unsigned lane)
{
    /* 31 bits: lanes past 15 share lane 15's track */
    return 0x40000000u | (x->g->context & 0x3f) << 24 | (x->g->device & 0xf) << 20 | (lane < 15 ? lane : 15) << 16 |
           (x->g->stream & 0xffff);
}

void gpu_track_name(const struct tr_gpu *x, unsigned lane, char *buf, size_t size)
{
    char ctx[32] = "", over[32] = "";
    if (x->g->context > 1)
        snprintf(ctx, sizeof ctx, " (context %u)", x->g->context);
    if (lane)
        snprintf(over, sizeof over, " overlap %u", lane);
    snprintf(buf, size, "GPU %u stream %u%s%s", x->g->device, x->g->stream, ctx, over);
}

const char *gpu_demangled(struct gpu_names *gn, const struct trace *tr, size_t pi, const struct tr_gpu *x)
{
    const struct tr_proc *p = &tr->procs[pi];
    const char *mangled = tr_gpu_name(p, x);
    if (!mangled)
        return NULL;
    if (!gn->dm)
        gn->dm = xcalloc(tr->nprocs ? tr->nprocs : 1, sizeof *gn->dm);
    gn->nprocs = tr->nprocs;
    if (!gn->dm[pi])
        gn->dm[pi] = xcalloc(p->ngpu_names ? p->ngpu_names : 1, sizeof **gn->dm);
    char **d = &gn->dm[pi][x->g->info - 1];   /* (tr_gpu_name checked the index) */
    if (!*d)
        *d = cli_demangle(mangled);
    return *d ? *d : mangled;
}

void gpu_names_free(struct gpu_names *gn, const struct trace *tr)
{
    for (size_t i = 0; gn->dm && i < gn->nprocs; i++) {
        for (size_t k = 0; gn->dm[i] && k < tr->procs[i].ngpu_names; k++)
            free(gn->dm[i][k]);
        free(gn->dm[i]);
    }
    free(gn->dm);
    gn->dm = NULL;
}
