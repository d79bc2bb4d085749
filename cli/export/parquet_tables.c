/* The Parquet export's tables (parquet_internal.h; docs/FORMAT.md,
 * "Parquet export", has the schema): what each row holds. Every table
 * starts with the process's identity (host, pid, process_start_ns) and
 * its rank, so that the files of many processes, exported anywhere, read
 * as one table. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "nv_params.h"
#include "parquet_internal.h"

#define IDENT {"host", PQ_T_HOST}, {"pid", DUCKDB_TYPE_INTEGER}, {"process_start_ns", DUCKDB_TYPE_BIGINT}, \
              {"rank", DUCKDB_TYPE_INTEGER}

static int64_t clamp64(uint64_t v) { return v > INT64_MAX ? INT64_MAX : (int64_t)v; }

/* --- calls: one row per call and NVTX range or mark, in time order ----- */

enum { C_TID = 4, C_ID, C_PARENT, C_START, C_END, C_DUR, C_LAYER, C_NAME, C_DEPTH, C_RESULT, C_ERROR, C_INJECTED,
       C_SKIPPED, C_OBJECT, C_KERNEL, C_ARGS, C_PARAMS, C_STATUS, C_DECODED };
static const struct pq_col calls_cols[] = {
    IDENT, {"tid", DUCKDB_TYPE_INTEGER}, {"id", DUCKDB_TYPE_BIGINT}, {"parent", DUCKDB_TYPE_BIGINT},
    {"start_ns", DUCKDB_TYPE_BIGINT}, {"end_ns", DUCKDB_TYPE_BIGINT}, {"dur_ns", DUCKDB_TYPE_BIGINT},
    {"layer", PQ_T_LAYER}, {"name", PQ_T_NAME}, {"depth", DUCKDB_TYPE_INTEGER}, {"result", DUCKDB_TYPE_BIGINT},
    {"error", DUCKDB_TYPE_BOOLEAN}, {"injected", DUCKDB_TYPE_BOOLEAN}, {"skipped", DUCKDB_TYPE_BOOLEAN},
    {"object", PQ_T_NAME}, {"kernel", DUCKDB_TYPE_VARCHAR}, {"args", PQ_T_ARGS},
    {"params", DUCKDB_TYPE_VARCHAR},   /* trace --ioctl-params: the JSON lines' "params" object */
    /* --text only */
    {"status", DUCKDB_TYPE_VARCHAR}, {"decoded", DUCKDB_TYPE_VARCHAR},
};

/* The argument words of row r: a slice of the list's child vector. */
static int put_args(struct pq_out *o, idx_t r, const uint64_t *w, unsigned n)
{
    duckdb_vector v = o->vec[C_ARGS];
    if (o->list_len + n > o->list_cap) {
        size_t cap = o->list_cap ? o->list_cap : 1 << 14;
        while (cap < o->list_len + n)
            cap *= 2;
        if (pq_db->list_vector_reserve(v, cap) != DuckDBSuccess)
            return -1;
        o->list_cap = cap;
    }
    uint64_t *child = pq_db->vector_get_data(pq_db->list_vector_get_child(v));
    memcpy(child + o->list_len, w, n * sizeof *w);
    ((duckdb_list_entry *)o->data[C_ARGS])[r] = (duckdb_list_entry){o->list_len, n};
    o->list_len += n;
    return 0;
}

static long calls_fill(struct pq_src *s, struct pq_out *o, idx_t cap)
{
    struct pq_job *j = s->job;
    const struct trace *tr = j->tr;
    const struct tr_proc *p = &tr->procs[j->pi];
    if (!s->started) {
        tr_iter_init_proc(&s->it, tr, "export", j->pi);
        s->started = 1;
    }
    idx_t r = 0;
    for (const struct tr_call *c; r < cap && (c = tr_iter_next(&s->it)); r++) {
        uint32_t nx = j->name_ix[c->name];
        if (!nx) {   /* (pq_job_init took every name the process's records can have) */
            snprintf(s->err, sizeof s->err, "a call named '%.100s' is not among its process's names",
                     tr->names[c->name].name);
            return -1;
        }
        pq_ident(o, r, j);
        pq_i32(o, C_TID, r, tr->threads[c->thread].tid);
        j->thread_calls[c->thread]++;
        pq_i64(o, C_ID, r, (int64_t)s->it.index);
        pq_i64_or_null(o, C_PARENT, r, c->parent != 0, (int64_t)c->parent - 1);
        pq_i64(o, C_START, r, (int64_t)c->t0);
        pq_i64_or_null(o, C_END, r, c->t1 != 0, (int64_t)c->t1);
        pq_i64_or_null(o, C_DUR, r, c->t1 != 0, (int64_t)(c->t1 - c->t0));
        pq_enum(o, C_LAYER, r, j->layer_ix[c->name]);
        pq_enum(o, C_NAME, r, nx - 1);
        j->name_calls[c->name]++;
        pq_i32(o, C_DEPTH, r, c->depth);
        int call = !(c->rflags & TR_RF_RANGE);   /* NVTX ranges and marks: no result, no status */
        pq_i64_or_null(o, C_RESULT, r, c->t1 && call, (int64_t)tr_result(c));
        pq_bool(o, C_ERROR, r, call && call_is_error(tr, c));
        pq_bool(o, C_INJECTED, r, c->flags & CUTAP_RF_INJECTED);
        pq_bool(o, C_SKIPPED, r, c->flags & CUTAP_RF_SKIPPED);
        if (c->object >= 0 && j->name_ix[c->object])
            pq_enum(o, C_OBJECT, r, j->name_ix[c->object] - 1);
        else
            pq_null(o, C_OBJECT, r);
        pq_str(o, C_KERNEL, r, p->nfuncs ? call_kernel(tr, c) : NULL);
        if (put_args(o, r, tr_args(c), c->rec->nargs)) {
            snprintf(s->err, sizeof s->err, "out of memory");
            return -1;
        }
        struct nvp_block pb;
        if (nvp_block_of(tr, c, &pb)) {
            char *pbuf = NULL;
            size_t plen = 0;
            FILE *pm = open_memstream(&pbuf, &plen);
            if (!pm) {
                snprintf(s->err, sizeof s->err, "out of memory");
                return -1;
            }
            nvp_put_json(pm, &pb);
            int bad = fclose(pm);
            pq_str(o, C_PARAMS, r, bad ? NULL : pbuf);
            free(pbuf);
        } else {
            pq_null(o, C_PARAMS, r);
        }
        if (j->text && call) {
            decode_call(&s->dec, tr, c);
            pq_str(o, C_STATUS, r, c->t1 ? s->dec.buf + s->dec.status_at : NULL);
            pq_str(o, C_DECODED, r, s->dec.buf);
        } else if (j->text) {   /* a range or mark: no arguments, no result (as the JSON lines have them) */
            pq_null(o, C_STATUS, r);
            pq_null(o, C_DECODED, r);
        }
        const struct tr_gpu *gx;
        size_t ng = p->ngpu ? tr_gpu_of(p, c, &gx) : 0;
        for (size_t k = 0; k < ng; k++)
            j->gpu_call[gx - p->gpu + k] = (int64_t)s->it.index + 1;
    }
    if (r && o->list_len && pq_db->list_vector_set_size(o->vec[C_ARGS], o->list_len) != DuckDBSuccess) {
        snprintf(s->err, sizeof s->err, "out of memory");
        return -1;
    }
    j->calls += r;
    return (long)r;
}

/* --- processes: one row ------------------------------------------------- */

static const struct pq_col procs_cols[] = {
    IDENT, {"ppid", DUCKDB_TYPE_INTEGER}, {"local_rank", DUCKDB_TYPE_INTEGER}, {"exe", DUCKDB_TYPE_VARCHAR},
    {"cmdline", DUCKDB_TYPE_VARCHAR}, {"complete", DUCKDB_TYPE_BOOLEAN}, {"file", DUCKDB_TYPE_VARCHAR},
    {"stopped", DUCKDB_TYPE_BOOLEAN}, {"stop_reason", DUCKDB_TYPE_VARCHAR}, {"stop_errno", DUCKDB_TYPE_INTEGER},
    {"lost_calls", DUCKDB_TYPE_BIGINT}, {"lost_names", DUCKDB_TYPE_BIGINT}, {"ring_bytes", DUCKDB_TYPE_BIGINT},
    {"overwritten_calls", DUCKDB_TYPE_BIGINT}, {"frozen", DUCKDB_TYPE_VARCHAR},
    {"capture_ranges", DUCKDB_TYPE_BIGINT}, {"threads", DUCKDB_TYPE_INTEGER}, {"calls", DUCKDB_TYPE_BIGINT},
};

static long procs_fill(struct pq_src *s, struct pq_out *o, idx_t cap)
{
    (void)cap;
    if (s->at++)
        return 0;
    const struct pq_job *j = s->job;
    const struct tr_proc *p = &j->tr->procs[j->pi];
    int nthreads = 0;
    for (size_t t = 0; t < j->tr->nthreads; t++)
        nthreads += j->tr->threads[t].proc == j->pi;
    pq_ident(o, 0, j);
    pq_i32(o, 4, 0, p->h.ppid);
    if (p->h.local_rank >= 0)
        pq_i32(o, 5, 0, p->h.local_rank);
    else
        pq_null(o, 5, 0);
    pq_str(o, 6, 0, p->h.exe);
    pq_str(o, 7, 0, p->h.cmdline);
    pq_bool(o, 8, 0, p->complete);
    pq_str(o, 9, 0, p->path);
    pq_bool(o, 10, 0, p->h.flags & CUTAP_FILE_STOPPED);
    pq_str(o, 11, 0, tr_stop_reason_str(p->h.stop_reason));
    pq_i32(o, 12, 0, p->h.stop_errno);
    pq_i64(o, 13, 0, clamp64(p->h.lost_calls));
    pq_i64(o, 14, 0, clamp64(p->h.lost_names));
    uint64_t rb = (uint64_t)p->h.ring_chunks * p->h.chunk_size;
    pq_i64_or_null(o, 15, 0, rb != 0, clamp64(rb));
    pq_i64_or_null(o, 16, 0, rb != 0, clamp64(p->h.overwritten_calls));
    pq_str(o, 17, 0, p->h.freeze_clock ? proc_frozen_str(p) : NULL);
    pq_i64_or_null(o, 18, 0, p->h.capture != 0, p->h.capture_ranges);
    pq_i32(o, 19, 0, nthreads);
    pq_i64(o, 20, 0, (int64_t)j->calls);
    return 1;
}

/* --- threads --------------------------------------------------------------- */

static const struct pq_col threads_cols[] = {
    IDENT, {"tid", DUCKDB_TYPE_INTEGER}, {"name", DUCKDB_TYPE_VARCHAR}, {"calls", DUCKDB_TYPE_BIGINT},
};

static long threads_fill(struct pq_src *s, struct pq_out *o, idx_t cap)
{
    const struct pq_job *j = s->job;
    idx_t r = 0;
    for (; r < cap && s->at < j->tr->nthreads; s->at++) {
        const struct tr_thread *t = &j->tr->threads[s->at];
        if (t->proc != j->pi)
            continue;
        char name[sizeof t->name + 1];
        memcpy(name, t->name, sizeof t->name);
        name[sizeof t->name] = 0;
        pq_ident(o, r, j);
        pq_i32(o, 4, r, t->tid);
        pq_str(o, 5, r, name);
        pq_i64(o, 6, r, (int64_t)j->thread_calls[s->at]);
        r++;
    }
    return (long)r;
}

/* --- names: the process's call, range and object names ----------------- */

static const struct pq_col names_cols[] = {
    IDENT, {"name", DUCKDB_TYPE_VARCHAR}, {"layer", DUCKDB_TYPE_VARCHAR}, {"calls", DUCKDB_TYPE_BIGINT},
};

static long names_fill(struct pq_src *s, struct pq_out *o, idx_t cap)
{
    const struct pq_job *j = s->job;
    idx_t r = 0;
    for (; r < cap && s->at < j->nused; s->at++, r++) {
        uint32_t gi = j->used[s->at];
        pq_ident(o, r, j);
        pq_str(o, 4, r, j->names[j->name_ix[gi] - 1]);
        pq_str(o, 5, r, j->layers[j->layer_ix[gi]]);
        pq_i64(o, 6, r, (int64_t)j->name_calls[gi]);
    }
    return (long)r;
}

/* --- counters (cutap stat) -------------------------------------------------- */

static const struct pq_col counters_cols[] = {
    IDENT, {"tid", DUCKDB_TYPE_INTEGER}, {"layer", PQ_T_LAYER}, {"name", PQ_T_NAME}, {"calls", DUCKDB_TYPE_BIGINT},
    {"errors", DUCKDB_TYPE_BIGINT}, {"total_ns", DUCKDB_TYPE_BIGINT}, {"min_ns", DUCKDB_TYPE_BIGINT},
    {"max_ns", DUCKDB_TYPE_BIGINT}, {"timed", DUCKDB_TYPE_BIGINT},
};

static long counters_fill(struct pq_src *s, struct pq_out *o, idx_t cap)
{
    const struct pq_job *j = s->job;
    const struct trace *tr = j->tr;
    idx_t r = 0;
    for (; r < cap && s->at < tr->ncounters; s->at++) {
        const struct tr_counter *k = &tr->counters[s->at];
        uint32_t nx = j->name_ix[k->name];
        if (tr->threads[k->thread].proc != j->pi)
            continue;
        if (!nx) {
            snprintf(s->err, sizeof s->err, "a counter's name is not among its process's names");
            return -1;
        }
        pq_ident(o, r, j);
        pq_i32(o, 4, r, tr->threads[k->thread].tid);
        pq_enum(o, 5, r, j->layer_ix[k->name]);
        pq_enum(o, 6, r, nx - 1);
        pq_i64(o, 7, r, clamp64(k->calls));
        pq_i64(o, 8, r, clamp64(k->errors));
        pq_i64(o, 9, r, clamp64(k->total_ns));
        pq_i64(o, 10, r, clamp64(k->min_ns));
        pq_i64(o, 11, r, clamp64(k->max_ns));
        pq_i64(o, 12, r, clamp64(k->timed));
        r++;
    }
    return (long)r;
}

/* --- gpu: kernels, copies and memsets (cutap trace --gpu) ---------------- */

static const struct pq_col gpu_cols[] = {
    IDENT, {"call_id", DUCKDB_TYPE_BIGINT}, {"kind", DUCKDB_TYPE_VARCHAR}, {"start_ns", DUCKDB_TYPE_BIGINT},
    {"end_ns", DUCKDB_TYPE_BIGINT}, {"dur_ns", DUCKDB_TYPE_BIGINT}, {"device", DUCKDB_TYPE_BIGINT},
    {"context", DUCKDB_TYPE_BIGINT}, {"stream", DUCKDB_TYPE_BIGINT}, {"name", DUCKDB_TYPE_VARCHAR},
    {"mangled", DUCKDB_TYPE_VARCHAR}, {"grid_x", DUCKDB_TYPE_BIGINT}, {"grid_y", DUCKDB_TYPE_BIGINT},
    {"grid_z", DUCKDB_TYPE_BIGINT}, {"block_x", DUCKDB_TYPE_BIGINT}, {"block_y", DUCKDB_TYPE_BIGINT},
    {"block_z", DUCKDB_TYPE_BIGINT}, {"copy", DUCKDB_TYPE_VARCHAR}, {"bytes", DUCKDB_TYPE_BIGINT},
    {"value", DUCKDB_TYPE_BIGINT},
};

static long gpu_fill(struct pq_src *s, struct pq_out *o, idx_t cap)
{
    struct pq_job *j = s->job;
    const struct tr_proc *p = &j->tr->procs[j->pi];
    idx_t r = 0;
    for (; r < cap && s->at < p->ngpu; s->at++, r++) {
        const struct tr_gpu *x = &p->gpu[s->at];
        const struct cutap_rec_gpu *g = x->g;
        pq_ident(o, r, j);
        pq_i64_or_null(o, 4, r, j->gpu_call[s->at] != 0, j->gpu_call[s->at] - 1);
        pq_str(o, 5, r, gpu_kind_str(x));
        int timed = x->t0 && x->t1 >= x->t0;
        pq_i64_or_null(o, 6, r, x->t0 != 0, (int64_t)x->t0);
        pq_i64_or_null(o, 7, r, timed, (int64_t)x->t1);
        pq_i64_or_null(o, 8, r, timed, (int64_t)(x->t1 - x->t0));
        pq_i64(o, 9, r, g->device);
        pq_i64(o, 10, r, g->context);
        pq_i64(o, 11, r, g->stream);
        const char *mangled = tr_gpu_name(p, x);
        pq_str(o, 12, r, g->type == CUTAP_GPU_KERNEL ? (mangled ? gpu_demangled(&j->gn, j->tr, j->pi, x) : "?")
                                                     : tr_gpu_op(x));
        pq_str(o, 13, r, mangled);
        int kernel = g->type == CUTAP_GPU_KERNEL;
        for (int k = 0; k < 6; k++)
            pq_i64_or_null(o, 14 + k, r, kernel, kernel ? (k < 3 ? g->u.k.grid[k] : g->u.k.block[k - 3]) : 0);
        pq_str(o, 20, r, g->type == CUTAP_GPU_MEMCPY ? tr_gpu_copy_kind(g->info) : NULL);
        pq_i64_or_null(o, 21, r, !kernel, clamp64(g->u.m.bytes));
        pq_i64_or_null(o, 22, r, g->type == CUTAP_GPU_MEMSET, g->info);
    }
    return (long)r;
}

/* --- env: what NVIDIA libraries read from the environment (issue #32) ----- */

static const struct pq_col env_cols[] = {
    IDENT, {"tid", DUCKDB_TYPE_INTEGER}, {"start_ns", DUCKDB_TYPE_BIGINT}, {"name", DUCKDB_TYPE_VARCHAR},
    {"value", DUCKDB_TYPE_VARCHAR}, {"secure", DUCKDB_TYPE_BOOLEAN}, {"early", DUCKDB_TYPE_BOOLEAN},
    {"object", DUCKDB_TYPE_VARCHAR},
};

static long env_fill(struct pq_src *s, struct pq_out *o, idx_t cap)
{
    const struct pq_job *j = s->job;
    const struct tr_proc *p = &j->tr->procs[j->pi];
    idx_t r = 0;
    for (; r < cap && s->at < p->nenv; s->at++, r++) {
        const struct tr_env *e = &p->env[s->at];
        pq_ident(o, r, j);
        pq_i32(o, 4, r, j->tr->threads[e->thread].tid);
        pq_i64(o, 5, r, clamp64(tr_env_ns(p, e)));
        pq_str(o, 6, r, e->name);
        pq_str(o, 7, r, e->value);
        pq_bool(o, 8, r, e->flags & CUTAP_ENV_SECURE);
        pq_bool(o, 9, r, e->flags & CUTAP_ENV_EARLY);
        pq_str(o, 10, r, tr_env_object(j->tr, p, e));
    }
    return (long)r;
}

#define N(a) (sizeof a / sizeof a[0])
const struct pq_src pq_tables[] = {
    {.table = "calls", .cols = calls_cols, .ncols = N(calls_cols), .fill = calls_fill},
    {.table = "processes", .cols = procs_cols, .ncols = N(procs_cols), .fill = procs_fill},
    {.table = "threads", .cols = threads_cols, .ncols = N(threads_cols), .fill = threads_fill},
    {.table = "names", .cols = names_cols, .ncols = N(names_cols), .fill = names_fill},
    {.table = "counters", .cols = counters_cols, .ncols = N(counters_cols), .fill = counters_fill},
    {.table = "gpu", .cols = gpu_cols, .ncols = N(gpu_cols), .fill = gpu_fill},
    {.table = "env", .cols = env_cols, .ncols = N(env_cols), .fill = env_fill},
};
const size_t pq_ntables = N(pq_tables);
_Static_assert(N(calls_cols) <= PQ_MAX_COLS && N(gpu_cols) <= PQ_MAX_COLS, "room for the columns");
#undef N

void pq_src_free(struct pq_src *s)
{
    if (s->started)
        tr_iter_free(&s->it);
    decoded_free(&s->dec);
}
