/* cutap export --format sqlite: an SQLite database, written through
 * libsqlite3.so.0 loaded at run time (cli/sqlite_dl.c).
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
 *       injected TEXT,             -- fault injection (--inject): 'not made' or
 *                                  -- 'delayed'; NULL for every other call
 *       params TEXT);              -- trace --ioctl-params: an RM_CONTROL's or
 *                                  -- RM_ALLOC's parameter block by field, the
 *                                  -- JSON object of the JSON lines' "params"
 *                                  -- (docs/FORMAT.md); NULL for other calls
 *   CREATE TABLE counters(         -- counting-mode traces (cutap stat)
 *       thread_id INTEGER REFERENCES threads(id),
 *       layer TEXT,
 *       name_id INTEGER REFERENCES strings(id),
 *       calls INTEGER, errors INTEGER,  -- every call
 *       total_ns INTEGER,          -- all the calls; estimated when timed < calls
 *       min_ns INTEGER, max_ns INTEGER,   -- over the timed calls
 *       timed INTEGER);            -- calls timed (= calls with every call timed)
 *   CREATE TABLE env(              -- what NVIDIA libraries read from the environment
 *       process_id INTEGER, thread_id INTEGER, start_ns INTEGER,
 *       name TEXT, value TEXT,     -- value NULL: unset
 *       secure INTEGER,            -- 1: secure_getenv
 *       early INTEGER,             -- 1: before cutap's core was loaded (time of writing)
 *       object TEXT);              -- the library that asked
 *   CREATE VIEW calls_named AS
 *       SELECT calls.*, s.value AS name, k.value AS kernel
 *       FROM calls JOIN strings s ON s.id = calls.name_id
 *       LEFT JOIN strings k ON k.id = calls.kernel_id;
 */
#define _GNU_SOURCE
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"
#include "nv_params.h"
#include "sqlite_calls.h"
#include "sqlite_dl.h"

/* libsqlite3, loaded by cmd_export only when this format is asked for
 * (sqlite_dl.c): the command is built and runs without it otherwise. */
static const struct sqlite_dl *sq;

/* libsqlite3 loaded before anything else is done: without it there is no
 * SQLite export (0, or -1 with why). */
int write_sqlite_prepare(const char **why)
{
    return (sq = sqlite_dl_load(why)) ? 0 : -1;
}

static const char schema[] =
    "CREATE TABLE processes(id INTEGER PRIMARY KEY, host TEXT, pid INTEGER, ppid INTEGER, rank INTEGER,"
    " local_rank INTEGER, exe TEXT, cmdline TEXT, start_ns INTEGER, complete INTEGER, file TEXT, stopped INTEGER,"
    " stop_reason TEXT, stop_errno INTEGER, lost_calls INTEGER, lost_names INTEGER, ring_bytes INTEGER,"
    " overwritten_calls INTEGER, frozen TEXT, capture_ranges INTEGER);"
    "CREATE TABLE threads(id INTEGER PRIMARY KEY, process_id INTEGER REFERENCES processes(id), tid INTEGER,"
    " name TEXT);"
    "CREATE TABLE strings(id INTEGER PRIMARY KEY, value TEXT UNIQUE);"
    SQLITE_CALLS_TABLE
    "CREATE TABLE counters(thread_id INTEGER REFERENCES threads(id), layer TEXT,"
    " name_id INTEGER REFERENCES strings(id), calls INTEGER, errors INTEGER, total_ns INTEGER, min_ns INTEGER,"
    " max_ns INTEGER, timed INTEGER);"
    "CREATE TABLE gpu(id INTEGER PRIMARY KEY, process_id INTEGER REFERENCES processes(id),"
    " call_id INTEGER REFERENCES calls(id), kind TEXT, start_ns INTEGER, dur_ns INTEGER, device INTEGER,"
    " context INTEGER, stream INTEGER, name_id INTEGER REFERENCES strings(id), mangled_id INTEGER REFERENCES"
    " strings(id), grid_x INTEGER, grid_y INTEGER, grid_z INTEGER, block_x INTEGER, block_y INTEGER,"
    " block_z INTEGER, copy TEXT, bytes INTEGER, value INTEGER);"
    "CREATE TABLE env(process_id INTEGER REFERENCES processes(id), thread_id INTEGER REFERENCES threads(id),"
    " start_ns INTEGER, name TEXT, value TEXT, secure INTEGER, early INTEGER, object TEXT);"
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
    return (size_t)str_fnv1a(s);
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
/* GPU activity (cutap trace --gpu): one gpu row. Kernel names go into
 * strings demangled (name_id) and as recorded (mangled_id). */
static int gpu_row(sqlite3_stmt *st, struct strtab *strs, struct gpu_names *gn, const struct trace *tr, size_t pi,
                   const struct tr_gpu *x, int64_t call)
{
    const struct tr_proc *p = &tr->procs[pi];
    const struct cutap_rec_gpu *g = x->g;
    int rc;
    int64_t nid = 0, mid = 0;
    const char *mangled = tr_gpu_name(p, x);
    if (mangled) {
        if ((rc = strtab_id(strs, mangled, &mid)) != SQLITE_OK)
            return rc;
        nid = mid;
        const char *d = gpu_demangled(gn, tr, pi, x);
        if (d != mangled && (rc = strtab_id(strs, d, &nid)) != SQLITE_OK)
            return rc;
    }
    if ((rc = sq->bind_int64(st, 1, (int64_t)pi + 1)) || (rc = call ? sq->bind_int64(st, 2, call) : sq->bind_null(st, 2)) ||
        (rc = sq->bind_text(st, 3, g->type == CUTAP_GPU_KERNEL ? "kernel" : g->type == CUTAP_GPU_MEMCPY ? "memcpy" : "memset",
                            -1, SQLITE_STATIC)) ||
        (rc = x->t0 ? sq->bind_int64(st, 4, (int64_t)(x->t0 > tr->origin_ns ? x->t0 - tr->origin_ns : 0))
                    : sq->bind_null(st, 4)) ||
        (rc = x->t0 && x->t1 >= x->t0 ? sq->bind_int64(st, 5, (int64_t)(x->t1 - x->t0)) : sq->bind_null(st, 5)) ||
        (rc = sq->bind_int64(st, 6, g->device)) || (rc = sq->bind_int64(st, 7, g->context)) ||
        (rc = sq->bind_int64(st, 8, g->stream)) || (rc = nid ? sq->bind_int64(st, 9, nid) : sq->bind_null(st, 9)) ||
        (rc = mid ? sq->bind_int64(st, 10, mid) : sq->bind_null(st, 10)))
        return rc;
    for (int k = 0; k < 6; k++)
        if ((rc = g->type == CUTAP_GPU_KERNEL ? sq->bind_int64(st, 11 + k, k < 3 ? g->u.k.grid[k] : g->u.k.block[k - 3])
                                              : sq->bind_null(st, 11 + k)))
            return rc;
    if ((rc = g->type == CUTAP_GPU_MEMCPY ? sq->bind_text(st, 17, tr_gpu_copy_kind(g->info), -1, SQLITE_STATIC)
                                          : sq->bind_null(st, 17)) ||
        (rc = g->type != CUTAP_GPU_KERNEL ? sq->bind_int64(st, 18, (int64_t)g->u.m.bytes) : sq->bind_null(st, 18)) ||
        (rc = g->type == CUTAP_GPU_MEMSET ? sq->bind_int64(st, 19, g->info) : sq->bind_null(st, 19)))
        return rc;
    return step_reset(st);
}

#define CK(x)                                                                                                    \
    do {                                                                                                         \
        if ((rc = (x)) != SQLITE_OK)                                                                             \
            goto out;                                                                                            \
    } while (0)

int write_sqlite(const struct trace *tr, const char *path)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st_proc = NULL, *st_thr = NULL, *st_call = NULL, *st_cnt = NULL, *st_gpu = NULL, *st_env = NULL;
    struct gpu_names gn = {0};
    struct strtab strs = {0};
    struct decoded dec = {0};
    FILE *pm = NULL;   /* a params object (--ioctl-params) */
    char *pbuf = NULL;
    size_t plen = 0;
    struct tr_iter it = {0};   /* freed at out: (a no-op before it starts) */
    int64_t *name_id = calloc(tr->nnames ? tr->nnames : 1, sizeof *name_id);
    int rc = name_id ? SQLITE_OK : SQLITE_NOMEM;
    if (rc != SQLITE_OK)
        goto out;

    rc = sq->open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
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
    CK(sq->prepare_v2(db, "INSERT INTO env(process_id, thread_id, start_ns, name, value, secure, early, object)"
                          " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)", -1, &st_env, NULL));
    CK(sq->prepare_v2(db, SQLITE_CALLS_INSERT, -1, &st_call, NULL));
    CK(sq->prepare_v2(db,
                      "INSERT INTO gpu(process_id, call_id, kind, start_ns, dur_ns, device, context, stream, name_id,"
                      " mangled_id, grid_x, grid_y, grid_z, block_x, block_y, block_z, copy, bytes, value)"
                      " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
                      -1, &st_gpu, NULL));
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
        uint64_t rb = (uint64_t)p->h.ring_chunks * p->h.chunk_size;
        CK(rb ? sq->bind_int64(st_proc, 17, (int64_t)rb) : sq->bind_null(st_proc, 17));
        CK(rb ? sq->bind_int64(st_proc, 18, (int64_t)(p->h.overwritten_calls > INT64_MAX ? INT64_MAX
                                                                                      : p->h.overwritten_calls))
              : sq->bind_null(st_proc, 18));
        CK(p->h.freeze_clock ? sq->bind_text(st_proc, 19, proc_frozen_str(p), -1, SQLITE_STATIC)
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
        for (unsigned a = 0; a < c->rec->nargs; a++) {   /* " 0x%llx" without printf: 19 bytes at most */
            if (a)
                args[len++] = ' ';
            len += text_hex_to(args + len, w[a]);
        }
        args[len] = 0;
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
        /* the decoded text is bound as it is (not copied): it stays put
         * until the next call's decoding, after this row's step */
        CK(c->t1 && call ? sq->bind_text(st_call, 12, dec.buf + dec.status_at, -1, SQLITE_STATIC)
                         : sq->bind_null(st_call, 12));
        CK(sq->bind_text(st_call, 13, dec.buf, -1, SQLITE_STATIC));
        CK(c->object >= 0 ? sq->bind_int64(st_call, 14, name_id[c->object]) : sq->bind_null(st_call, 14));
        CK(c->flags & CUTAP_RF_INJECTED
               ? sq->bind_text(st_call, 15, c->flags & CUTAP_RF_SKIPPED ? "not made" : "delayed", -1, SQLITE_STATIC)
               : sq->bind_null(st_call, 15));
        struct nvp_block pb;
        if (nvp_block_of(tr, c, &pb)) {   /* trace --ioctl-params */
            if (!pm && !(pm = open_memstream(&pbuf, &plen)))
                CK(SQLITE_NOMEM);
            rewind(pm);
            nvp_put_json(pm, &pb);
            out_c(0, pm);
            fflush(pm);
            CK(sq->bind_text(st_call, 16, pbuf, -1, SQLITE_STATIC));
        } else {
            CK(sq->bind_null(st_call, 16));
        }
        CK(step_reset(st_call));
        const struct tr_gpu *gx;
        size_t pi = tr->threads[c->thread].proc, ng = tr_gpu_of(&tr->procs[pi], c, &gx);
        for (size_t k = 0; k < ng; k++)
            CK(gpu_row(st_gpu, &strs, &gn, tr, pi, gx + k, (int64_t)i + 1));
    }
    for (size_t pi = 0; pi < tr->nprocs; pi++)   /* GPU records joined to no call */
        for (size_t k = 0; k < tr->procs[pi].ngpu && !tr->procs[pi].gpu[k].call_off; k++)
            CK(gpu_row(st_gpu, &strs, &gn, tr, pi, &tr->procs[pi].gpu[k], 0));
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
    for (size_t i = 0; i < tr->nprocs; i++)
        for (size_t k = 0; k < tr->procs[i].nenv; k++) {
            const struct tr_proc *p = &tr->procs[i];
            const struct tr_env *e = &p->env[k];
            uint64_t t = tr_env_ns(p, e);
            CK(sq->bind_int64(st_env, 1, (int64_t)i + 1));
            CK(sq->bind_int64(st_env, 2, (int64_t)e->thread + 1));
            CK(sq->bind_int64(st_env, 3, (int64_t)(t > tr->origin_ns ? t - tr->origin_ns : 0)));
            CK(sq->bind_text(st_env, 4, e->name, -1, SQLITE_STATIC));
            CK(e->value ? sq->bind_text(st_env, 5, e->value, -1, SQLITE_STATIC) : sq->bind_null(st_env, 5));
            CK(sq->bind_int(st_env, 6, !!(e->flags & CUTAP_ENV_SECURE)));
            CK(sq->bind_int(st_env, 7, !!(e->flags & CUTAP_ENV_EARLY)));
            CK(sq->bind_text(st_env, 8, tr_env_object(tr, p, e), -1, SQLITE_STATIC));
            CK(step_reset(st_env));
        }
    CK(sq->exec(db, "COMMIT", NULL, NULL, NULL));

out:
    tr_iter_free(&it);
    if (pm)
        fclose(pm);
    free(pbuf);
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
    sq->finalize(st_gpu);
    sq->finalize(st_env);
    if (db) {
        int crc = sq->close(db);
        if (crc != SQLITE_OK && rc == SQLITE_OK) {
            fprintf(stderr, "cutap export: %s: sqlite: %s\n", path, sq->errstr(crc));
            rc = crc;
        }
    }
    free(strs.key);
    free(strs.id);
    gpu_names_free(&gn, tr);
    free(name_id);
    decoded_free(&dec);
    return rc == SQLITE_OK ? 0 : -1;
}
#undef CK
