/* cutap export --format parquet: a directory of Parquet files, one file
 * per process and table (OUT/calls/HOST-PID-START.parquet, ...), written
 * through DuckDB's C API (libduckdb.so loaded at run time, cli/duckdb_dl.c).
 *
 * Why DuckDB: its Parquet writer is maintained and read by every engine
 * (Spark, Dask, Polars, Trino, DuckDB itself), the same library answers
 * the SQL on the export, and a table function lets it pull rows as it
 * writes them, so memory stays bounded: measured, appending rows to a
 * DuckDB table and copying it held the whole table (2.2 GiB for 5 M
 * calls), the table function 59 MiB at any length (docs/BENCHMARKS.md).
 *
 * Each file is one `COPY (SELECT * FROM cutap_src(N)) TO FILE (FORMAT
 * parquet, ROW_GROUP_SIZE 122880, COMPRESSION zstd)`; N names the struct
 * pq_src the table function reads (parquet_tables.c). Processes are
 * exported by a few worker threads at once, each with its own connection
 * and its own iterator over that process's calls (tr_iter_init_proc).
 * The directory is made as OUT.tmp.PID and renamed to OUT when complete. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parquet_internal.h"

const struct duckdb_dl *pq_db;

int write_parquet_prepare(const char **why)
{
    return (pq_db = duckdb_dl_load(why)) ? 0 : -1;
}

/* --- values into vectors ------------------------------------------------- */

const char *pq_utf8(const char *s, char **made)
{
    *made = NULL;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int n = *p < 0x80 ? 1 : tr_utf8_len(p);
        if (!n) {   /* DuckDB takes only valid UTF-8 */
            size_t size = strlen(s) * 4 + 1;
            *made = xcalloc(size, 1);
            tr_escape(*made, size, s);
            return *made;
        }
        p += n;
    }
    return s;
}

void pq_null(struct pq_out *o, size_t col, idx_t row)
{
    if (!o->valid[col]) {
        pq_db->vector_ensure_validity_writable(o->vec[col]);
        o->valid[col] = pq_db->vector_get_validity(o->vec[col]);
    }
    o->valid[col][row / 64] &= ~(1ull << (row % 64));
}

void pq_str(struct pq_out *o, size_t col, idx_t row, const char *s)
{
    if (!s) {
        pq_null(o, col, row);
        return;
    }
    char *made;
    const char *t = pq_utf8(s, &made);
    pq_db->vector_assign_string_element_len(o->vec[col], row, t, strlen(t));
    free(made);
}

void pq_enum(struct pq_out *o, size_t col, idx_t row, uint32_t ix)
{
    if (o->ewidth[col] == 1)
        ((uint8_t *)o->data[col])[row] = (uint8_t)ix;
    else if (o->ewidth[col] == 2)
        ((uint16_t *)o->data[col])[row] = (uint16_t)ix;
    else
        ((uint32_t *)o->data[col])[row] = ix;
}

void pq_ident(struct pq_out *o, idx_t row, const struct pq_job *j)
{
    const struct tr_proc *p = &j->tr->procs[j->pi];
    pq_enum(o, 0, row, 0);
    pq_i32(o, 1, row, p->h.pid);
    pq_i64(o, 2, row, (int64_t)p->h.start_realtime_ns);
    if (p->h.rank >= 0)
        pq_i32(o, 3, row, p->h.rank);
    else
        pq_null(o, 3, row);
}

/* --- a process's names and layers (its ENUMs) ------------------------------ */

/* Members of an ENUM: distinct strings, found by an open-addressing table. */
struct members {
    const char **v;
    size_t n, cap;
    uint32_t *slot;            /* index + 1 */
    size_t nslot;
};

static uint32_t member(struct members *m, const char *s)
{
    if ((m->n + 1) * 2 > m->nslot) {
        size_t ns = m->nslot ? m->nslot * 2 : 256;
        uint32_t *slot = xcalloc(ns, sizeof *slot);
        for (size_t i = 0; i < m->nslot; i++)
            if (m->slot[i]) {
                size_t k = str_fnv1a(m->v[m->slot[i] - 1]) & (ns - 1);
                while (slot[k])
                    k = (k + 1) & (ns - 1);
                slot[k] = m->slot[i];
            }
        free(m->slot);
        m->slot = slot;
        m->nslot = ns;
    }
    size_t k = str_fnv1a(s) & (m->nslot - 1);
    for (; m->slot[k]; k = (k + 1) & (m->nslot - 1))
        if (!strcmp(m->v[m->slot[k] - 1], s))
            return m->slot[k] - 1;
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 64;
        m->v = realloc(m->v, m->cap * sizeof *m->v);
        if (!m->v) {
            fprintf(stderr, "cutap: out of memory\n");
            exit(1);
        }
    }
    m->v[m->n] = s;
    m->slot[k] = (uint32_t)++m->n;
    return (uint32_t)(m->n - 1);
}

struct job_build {
    struct pq_job *j;
    struct members names, layers;
};

static void keep_str(struct pq_job *j, char *s)
{
    j->strs = realloc(j->strs, (j->nstrs + 1) * sizeof *j->strs);
    if (!j->strs) {
        fprintf(stderr, "cutap: out of memory\n");
        exit(1);
    }
    j->strs[j->nstrs++] = s;
}

static void add_name(struct job_build *b, uint32_t gi)
{
    struct pq_job *j = b->j;
    if (gi >= j->tr->nnames || j->name_ix[gi])
        return;
    char *made;
    const char *s = pq_utf8(j->tr->names[gi].name, &made);
    if (made)
        keep_str(j, made);
    j->name_ix[gi] = member(&b->names, s) + 1;
    j->layer_ix[gi] = member(&b->layers, layer_str(j->tr->names[gi].layer));
    j->used[j->nused++] = gi;
}

int pq_job_init(struct pq_job *j, const struct trace *tr, size_t pi, int text)
{
    memset(j, 0, sizeof *j);
    j->tr = tr;
    j->pi = pi;
    j->text = text;
    const struct tr_proc *p = &tr->procs[pi];
    char *made;
    snprintf(j->host, sizeof j->host, "%s", pq_utf8(p->h.host, &made));
    free(made);
    size_t nn = tr->nnames ? tr->nnames : 1;
    j->name_ix = xcalloc(nn, sizeof *j->name_ix);
    j->layer_ix = xcalloc(nn, sizeof *j->layer_ix);
    j->name_calls = xcalloc(nn, sizeof *j->name_calls);
    j->used = xcalloc(nn, sizeof *j->used);
    j->thread_calls = xcalloc(tr->nthreads ? tr->nthreads : 1, sizeof *j->thread_calls);
    j->gpu_call = xcalloc(p->ngpu ? p->ngpu : 1, sizeof *j->gpu_call);
    /* Every name the process's entries can have: its ids' names (the
     * reader gives an id it cannot name tr->id_unknown's, or name 0), its
     * threads' ranges and marks, its objects and its counters. */
    struct job_build b = {.j = j};
    add_name(&b, 0);
    if (tr->id_unknown)
        add_name(&b, tr->id_unknown - 1);
    for (size_t k = 0; k < p->idcap; k++)
        if (p->idmap[k].name1 && p->idmap[k].name1 - 1 < tr->nnames)
            add_name(&b, p->idmap[k].name1 - 1);
    for (size_t k = 0; k < tr->nranges; k++)
        if (tr->ranges[k].thread < tr->nthreads && tr->threads[tr->ranges[k].thread].proc == pi)
            add_name(&b, tr->ranges[k].name);
    for (size_t k = 0; k < p->nobjects; k++)
        if (p->objects[k])
            add_name(&b, p->objects[k] - 1);
    for (size_t k = 0; k < tr->ncounters; k++)
        if (tr->threads[tr->counters[k].thread].proc == pi)
            add_name(&b, tr->counters[k].name);
    if (!b.names.n)   /* an ENUM has at least one member */
        member(&b.names, "?");
    if (!b.layers.n)
        member(&b.layers, "?");
    free(b.names.slot);
    free(b.layers.slot);
    j->names = b.names.v;
    j->nnames = b.names.n;
    j->layers = b.layers.v;
    j->nlayers = b.layers.n;
    return 0;
}

void pq_job_free(struct pq_job *j)
{
    free(j->name_ix);
    free(j->layer_ix);
    free(j->name_calls);
    free(j->used);
    free(j->thread_calls);
    free(j->gpu_call);
    free(j->names);
    free(j->layers);
    for (size_t i = 0; i < j->nstrs; i++)
        free(j->strs[i]);
    free(j->strs);
    gpu_names_free(&j->gn, j->tr);
}

/* --- the table function cutap_src(N) ---------------------------------------- */

static duckdb_logical_type col_type(const struct pq_src *s, const struct pq_col *c)
{
    const struct pq_job *j = s->job;
    if (c->type == PQ_T_HOST) {
        const char *h = j->host;
        return pq_db->create_enum_type(&h, 1);
    }
    if (c->type == PQ_T_NAME)
        return pq_db->create_enum_type(j->names, j->nnames);
    if (c->type == PQ_T_LAYER)
        return pq_db->create_enum_type(j->layers, j->nlayers);
    if (c->type == PQ_T_ARGS) {
        duckdb_logical_type u = pq_db->create_logical_type(DUCKDB_TYPE_UBIGINT);
        duckdb_logical_type l = pq_db->create_list_type(u);
        pq_db->destroy_logical_type(&u);
        return l;
    }
    return pq_db->create_logical_type(c->type);
}

static void src_bind(duckdb_bind_info info)
{
    duckdb_value v = pq_db->bind_get_parameter(info, 0);
    struct pq_src *s = (struct pq_src *)(uintptr_t)pq_db->get_int64(v);
    pq_db->destroy_value(&v);
    for (size_t i = 0; i < s->ncols; i++) {
        duckdb_logical_type t = col_type(s, &s->cols[i]);
        if (!t) {
            pq_db->bind_set_error(info, "cannot make a column type");
            return;
        }
        if (s->cols[i].type >= PQ_T_HOST && s->cols[i].type <= PQ_T_LAYER) {
            int it = pq_db->enum_internal_type(t);
            s->ewidth[i] = it == DUCKDB_TYPE_UTINYINT ? 1 : it == DUCKDB_TYPE_USMALLINT ? 2 : 4;
        }
        pq_db->bind_add_result_column(info, s->cols[i].name, t);
        pq_db->destroy_logical_type(&t);
    }
    pq_db->bind_set_bind_data(info, s, NULL);
}

static void src_init(duckdb_init_info info)
{
    pq_db->init_set_max_threads(info, 1);   /* rows come in the iterator's order */
}

static void src_next(duckdb_function_info info, duckdb_data_chunk out)
{
    struct pq_src *s = pq_db->function_get_bind_data(info);
    struct pq_out o = {.ch = out, .ewidth = s->ewidth};
    for (size_t i = 0; i < s->ncols; i++) {
        o.vec[i] = pq_db->data_chunk_get_vector(out, i);
        o.data[i] = pq_db->vector_get_data(o.vec[i]);
    }
    long n = s->fill(s, &o, pq_db->vector_size());
    if (n < 0) {
        pq_db->function_set_error(info, s->err);
        n = 0;
    }
    pq_db->data_chunk_set_size(out, (idx_t)n);
}

static int register_src(duckdb_connection con)
{
    duckdb_table_function tf = pq_db->create_table_function();
    pq_db->table_function_set_name(tf, "cutap_src");
    duckdb_logical_type t = pq_db->create_logical_type(DUCKDB_TYPE_BIGINT);
    pq_db->table_function_add_parameter(tf, t);
    pq_db->destroy_logical_type(&t);
    pq_db->table_function_set_bind(tf, src_bind);
    pq_db->table_function_set_init(tf, src_init);
    pq_db->table_function_set_function(tf, src_next);
    duckdb_state st = pq_db->register_table_function(con, tf);
    pq_db->destroy_table_function(&tf);
    return st == DuckDBSuccess ? 0 : -1;
}

/* --- the files ---------------------------------------------------------------- */

struct export {
    const struct trace *tr;
    const char *tmp;           /* the directory being made */
    char **stem;               /* per process: HOST-PID-START */
    int text;
    const char *compression;
    const char *version;       /* Parquet's format version: V2 (DuckDB's name), or V1 */
    duckdb_database db;
    pthread_mutex_t lock;
    size_t next;               /* the next process to take */
    int failed;
};

/* SQL string literal: quotes doubled. */
static void sql_quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

static int write_table(struct export *e, duckdb_connection con, struct pq_job *j, const struct pq_src *tmpl)
{
    struct pq_src s = *tmpl;
    s.job = j;
    if (s.fill == pq_tables[0].fill && !j->text)
        s.ncols -= 2;   /* calls: status and decoded only with --text */
    char *path = NULL, *sql = NULL;
    size_t len;
    if (asprintf(&path, "%s/%s/%s.parquet", e->tmp, s.table, e->stem[j->pi]) < 0)
        path = NULL;
    FILE *m = path ? open_memstream(&sql, &len) : NULL;
    if (!m) {
        fprintf(stderr, "cutap: out of memory\n");
        exit(1);
    }
    fprintf(m, "COPY (SELECT * FROM cutap_src(%lld)) TO ", (long long)(uintptr_t)&s);
    sql_quoted(m, path);
    fprintf(m, " (FORMAT parquet, ROW_GROUP_SIZE 122880, COMPRESSION %s, PARQUET_VERSION %s)", e->compression,
            e->version);
    if (fclose(m)) {
        fprintf(stderr, "cutap: out of memory\n");
        exit(1);
    }
    duckdb_result res;
    int rc = 0;
    if (pq_db->query(con, sql, &res) != DuckDBSuccess) {
        const char *why = pq_db->result_error(&res);
        fprintf(stderr, "cutap export: %s: duckdb: %s\n", path, why ? why : "failed");
        rc = -1;
    }
    pq_db->destroy_result(&res);
    /* Synced as the other formats' files are. */
    int fd = rc ? -1 : open(path, O_RDONLY | O_CLOEXEC);
    if (!rc && (fd < 0 || fsync(fd))) {
        fprintf(stderr, "cutap export: cannot write %s: %s\n", path, strerror(errno));
        rc = -1;
    }
    if (fd >= 0)
        close(fd);
    pq_src_free(&s);
    free(sql);
    free(path);
    return rc;
}

static void *worker(void *arg)
{
    struct export *e = arg;
    duckdb_connection con = NULL;
    int ok = pq_db->connect(e->db, &con) == DuckDBSuccess;   /* (cutap_src is the database's: registered once) */
    if (!ok)
        fprintf(stderr, "cutap export: duckdb: cannot connect\n");
    for (;;) {
        pthread_mutex_lock(&e->lock);
        if (!ok)
            e->failed = 1;
        size_t pi = e->failed ? e->tr->nprocs : e->next++;
        pthread_mutex_unlock(&e->lock);
        if (pi >= e->tr->nprocs)
            break;
        struct pq_job j;
        pq_job_init(&j, e->tr, pi, e->text);
        for (size_t t = 0; ok && t < pq_ntables; t++)
            ok = !write_table(e, con, &j, &pq_tables[t]);
        pq_job_free(&j);
    }
    if (con)
        pq_db->disconnect(&con);
    return NULL;
}

/* HOST-PID-START, the host's bytes outside [A-Za-z0-9._-] as '_'; a
 * second file of the same stem gets -INDEX. */
static char **stems(const struct trace *tr)
{
    char **v = xcalloc(tr->nprocs ? tr->nprocs : 1, sizeof *v);
    for (size_t i = 0; i < tr->nprocs; i++) {
        const struct tr_proc *p = &tr->procs[i];
        char host[sizeof p->h.host];
        size_t k = 0;
        for (; p->h.host[k] && k < sizeof host - 1; k++) {
            char c = p->h.host[k];
            host[k] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-'
                          ? c : '_';
        }
        host[k] = 0;
        if (!k || host[0] == '.')
            host[0] = '_', host[k ? k : 1] = 0;
        if (asprintf(&v[i], "%s-%d-%llu", host, (int)p->h.pid, (unsigned long long)p->h.start_realtime_ns) < 0)
            v[i] = NULL;
        for (size_t o = 0; v[i] && o < i; o++)
            if (!strcmp(v[o], v[i])) {
                char *w;
                if (asprintf(&w, "%s-%zu", v[i], i) < 0)
                    w = NULL;
                free(v[i]);
                v[i] = w;
                break;
            }
        if (!v[i]) {
            fprintf(stderr, "cutap: out of memory\n");
            exit(1);
        }
    }
    return v;
}

/* Removes a directory the export made, or an earlier export (--force):
 * its table directories' *.parquet files, then the directories. With
 * check, removes nothing and says whether dir holds nothing else. */
static int remove_export(const char *dir, int check)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int rc = 0;
    for (struct dirent *de; (de = readdir(d));) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        size_t t = 0;
        while (t < pq_ntables && strcmp(pq_tables[t].table, de->d_name))
            t++;
        char sub[8192];
        snprintf(sub, sizeof sub, "%s/%s", dir, de->d_name);
        struct stat st;
        DIR *s = t < pq_ntables && !lstat(sub, &st) && S_ISDIR(st.st_mode) ? opendir(sub) : NULL;
        if (!s) {
            rc = -1;
            continue;
        }
        for (struct dirent *fe; (fe = readdir(s));) {
            if (!strcmp(fe->d_name, ".") || !strcmp(fe->d_name, ".."))
                continue;
            size_t n = strlen(fe->d_name);
            if (n < 8 || strcmp(fe->d_name + n - 8, ".parquet")) {
                rc = -1;
                continue;
            }
            if (!check && unlinkat(dirfd(s), fe->d_name, 0))
                rc = -1;
        }
        closedir(s);
        if (!check && rmdir(sub))
            rc = -1;
    }
    closedir(d);
    if (!check && rmdir(dir))
        rc = -1;
    return rc;
}

static unsigned workers(const struct trace *tr)
{
    const char *e = getenv("CUTAP_THREADS");
    cpu_set_t cpus;
    long n = e && *e ? strtol(e, NULL, 10) : !sched_getaffinity(0, sizeof cpus, &cpus) ? CPU_COUNT(&cpus) : 1;
    if (!(e && *e) && n > 8)
        n = 8;
    if (n > 64)
        n = 64;
    if ((size_t)n > tr->nprocs)
        n = (long)tr->nprocs;
    return n < 1 ? 1 : (unsigned)n;
}

/* Moves the finished directory to its name: never onto something that
 * exists, but with --force onto an earlier export (nothing else). */
static int publish_dir(const char *tmp, const char *out, int force)
{
    struct stat st;
    char old[8192] = "";
    if (!lstat(out, &st)) {
        if (!force) {
            fprintf(stderr, "cutap export: %s exists (use --force to replace it)\n", out);
            return -1;
        }
        if (!S_ISDIR(st.st_mode) || remove_export(out, 1)) {
            fprintf(stderr, "cutap export: %s exists and is not a Parquet export: not replaced\n", out);
            return -1;
        }
        snprintf(old, sizeof old, "%s.old.%d", out, (int)getpid());
        if (rename(out, old)) {
            fprintf(stderr, "cutap export: cannot replace %s: %s\n", out, strerror(errno));
            return -1;
        }
    }
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, out, RENAME_NOREPLACE) &&
        !((errno == EINVAL || errno == ENOSYS) && lstat(out, &st) && !rename(tmp, out))) {
        fprintf(stderr, errno == EEXIST ? "cutap export: %s exists (use --force to replace it)\n"
                                        : "cutap export: cannot write %s: %s\n", out, strerror(errno));
        if (*old)
            rename(old, out);
        return -1;
    }
    if (*old)
        remove_export(old, 0);
    export_sync_dir_of(out);
    return 0;
}

int write_parquet(const struct trace *tr, const char *out, int force, int text)
{
    char tmp[4096];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp.%d", out, (int)getpid()) >= sizeof tmp - 64) {
        fprintf(stderr, "cutap export: output path too long\n");
        return -1;
    }
    /* 0700: the files hold the traced processes' data, like the trace */
    if (mkdir(tmp, 0700)) {
        fprintf(stderr, "cutap export: cannot create %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    int rc = 0;
    for (size_t t = 0; !rc && t < pq_ntables; t++) {
        char sub[8192];
        snprintf(sub, sizeof sub, "%s/%s", tmp, pq_tables[t].table);
        if (mkdir(sub, 0700)) {
            fprintf(stderr, "cutap export: cannot create %s: %s\n", sub, strerror(errno));
            rc = -1;
        }
    }
    struct export e = {.tr = tr, .tmp = tmp, .text = text, .compression = "zstd", .version = "V2"};
    /* CUTAP_PARQUET_VERSION=1: format version 1's pages and encodings, for
     * readers without version 2's (delta-encoded integers: 3.6 times smaller
     * call tables, 20 % faster to write) */
    const char *v = getenv("CUTAP_PARQUET_VERSION");
    if (v && *v) {
        if (!strcmp(v, "1"))
            e.version = "V1";
        else if (strcmp(v, "2")) {
            fprintf(stderr, "cutap export: CUTAP_PARQUET_VERSION=%s: 1 or 2\n", v);
            rc = -1;
        }
    }
    /* CUTAP_PARQUET_COMPRESSION: another of DuckDB's codecs (snappy, lz4,
     * gzip, uncompressed, ...), for readers without zstd */
    const char *c = getenv("CUTAP_PARQUET_COMPRESSION");
    if (c && *c) {
        e.compression = c;
        for (const char *p = c; *p; p++)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_')) {
                fprintf(stderr, "cutap export: CUTAP_PARQUET_COMPRESSION=%s: not a codec name\n", c);
                rc = -1;
                break;
            }
    }
    unsigned nw = workers(tr);
    duckdb_config cfg = NULL;
    char threads[16], *err = NULL;
    snprintf(threads, sizeof threads, "%u", nw);
    if (!rc && (pq_db->create_config(&cfg) != DuckDBSuccess || pq_db->set_config(cfg, "threads", threads) != DuckDBSuccess ||
                pq_db->set_config(cfg, "autoinstall_known_extensions", "false") != DuckDBSuccess ||
                pq_db->set_config(cfg, "autoload_known_extensions", "false") != DuckDBSuccess ||
                pq_db->open_ext(NULL, &e.db, cfg, &err) != DuckDBSuccess)) {
        fprintf(stderr, "cutap export: duckdb: %s\n", err ? err : "cannot open a database");
        rc = -1;
    }
    if (err)
        pq_db->free(err);
    if (cfg)
        pq_db->destroy_config(&cfg);
    duckdb_connection con0 = NULL;
    if (!rc && (pq_db->connect(e.db, &con0) != DuckDBSuccess || register_src(con0))) {
        fprintf(stderr, "cutap export: duckdb: cannot register the table function\n");
        rc = -1;
    }
    if (con0)
        pq_db->disconnect(&con0);
    if (!rc) {
        e.stem = stems(tr);
        pthread_mutex_init(&e.lock, NULL);
        pthread_t th[64];
        unsigned started = 0;
        for (; started < nw - 1; started++)
            if (pthread_create(&th[started], NULL, worker, &e))
                break;
        worker(&e);
        for (unsigned i = 0; i < started; i++)
            pthread_join(th[i], NULL);
        pthread_mutex_destroy(&e.lock);
        rc = e.failed ? -1 : 0;
        free_strs(e.stem, tr->nprocs);
    }
    if (e.db)
        pq_db->close(&e.db);
    if (!rc && publish_dir(tmp, out, force))
        rc = -1;
    if (rc)
        remove_export(tmp, 0);
    return rc;
}
