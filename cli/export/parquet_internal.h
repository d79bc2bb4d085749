/* cutap export --format parquet (parquet.c: the output directory, DuckDB,
 * the workers; parquet_tables.c: what each table's rows hold). Each
 * Parquet file is written by one `COPY (SELECT * FROM cutap_src(N)) TO
 * FILE` whose table function pulls its rows from a struct pq_src a chunk
 * (duckdb_vector_size() rows) at a time: nothing is held but the chunk
 * and the row group DuckDB is compressing. */
#ifndef CUTAP_PARQUET_INTERNAL_H
#define CUTAP_PARQUET_INTERNAL_H

#include "duckdb_dl.h"
#include "export_internal.h"

extern const struct duckdb_dl *pq_db;   /* parquet.c: libduckdb, loaded */

/* Column types beyond DuckDB's: ENUMs made per file (written to Parquet as
 * dictionary-encoded strings; the vectors hold small integers) and the
 * argument words. */
enum {
    PQ_T_HOST = 1000,          /* ENUM of the one host */
    PQ_T_NAME,                 /* ENUM of the process's names (struct pq_job) */
    PQ_T_LAYER,                /* ENUM of their layers */
    PQ_T_ARGS,                 /* LIST(UBIGINT) */
};
struct pq_col {
    const char *name;
    int type;                  /* DUCKDB_TYPE_* or PQ_T_* */
};

/* One process's export: its file stem and what its files share. */
struct pq_job {
    const struct trace *tr;
    size_t pi;                 /* tr->procs[pi] */
    int text;                  /* --text: status and decoded columns */
    char host[256];            /* as written: valid UTF-8 */
    /* names: tr->names index -> ENUM index + 1 (0: not the process's).
     * Two names of a trace may differ only in their layer: one member. */
    uint32_t *name_ix;
    uint32_t *layer_ix;        /* tr->names index -> the ENUM index of its layer */
    uint64_t *name_calls;      /* tr->names index -> rows of calls */
    uint32_t *used;            /* the tr->names indices the process has, in order */
    size_t nused;
    const char **names;        /* ENUM members, escaped where not UTF-8 */
    size_t nnames;
    const char **layers;
    size_t nlayers;
    char **strs;               /* strings made for the members (freed with the job) */
    size_t nstrs;
    uint64_t *thread_calls;    /* per tr->threads index: rows of calls (filled by the calls table) */
    int64_t *gpu_call;         /* per p->gpu record: its launching call's id + 1 (0: none) */
    uint64_t calls;            /* rows of calls */
    struct gpu_names gn;       /* demangled kernel names */
};
int pq_job_init(struct pq_job *j, const struct trace *tr, size_t pi, int text);
void pq_job_free(struct pq_job *j);

/* A chunk being filled: its vectors' data, validity made on demand. */
#define PQ_MAX_COLS 32
struct pq_out {
    duckdb_data_chunk ch;
    duckdb_vector vec[PQ_MAX_COLS];
    void *data[PQ_MAX_COLS];
    uint64_t *valid[PQ_MAX_COLS];
    const int *ewidth;         /* the source's */
    size_t list_len;           /* PQ_T_ARGS: child rows used so far */
    size_t list_cap;
};
void pq_null(struct pq_out *o, size_t col, idx_t row);
void pq_str(struct pq_out *o, size_t col, idx_t row, const char *s);   /* NULL s: NULL */
void pq_enum(struct pq_out *o, size_t col, idx_t row, uint32_t ix);
static inline void pq_i64(struct pq_out *o, size_t col, idx_t row, int64_t v) { ((int64_t *)o->data[col])[row] = v; }
/* v where has, else NULL */
static inline void pq_i64_or_null(struct pq_out *o, size_t col, idx_t row, int has, int64_t v)
{
    if (has)
        pq_i64(o, col, row, v);
    else
        pq_null(o, col, row);
}
static inline void pq_i32(struct pq_out *o, size_t col, idx_t row, int32_t v) { ((int32_t *)o->data[col])[row] = v; }
static inline void pq_bool(struct pq_out *o, size_t col, idx_t row, int v) { ((bool *)o->data[col])[row] = !!v; }
/* A process's identity columns (host, pid, process_start_ns, rank): the
 * first four of every table. */
void pq_ident(struct pq_out *o, idx_t row, const struct pq_job *j);
/* A string from the traced process as DuckDB takes it: itself where valid
 * UTF-8, else escaped (tr_escape) into a new string (*made, to free). */
const char *pq_utf8(const char *s, char **made);

/* A table's rows. fill writes up to cap rows into o and returns how many
 * (0: no more), or -1 with err set. */
struct pq_src {
    const char *table;         /* "calls", ...: the directory */
    const struct pq_col *cols;
    size_t ncols;
    struct pq_job *job;
    long (*fill)(struct pq_src *s, struct pq_out *o, idx_t cap);
    /* the tables' own state */
    int ewidth[PQ_MAX_COLS];   /* ENUM columns: bytes of their index (set at bind) */
    size_t at;
    int started;
    struct tr_iter it;
    struct decoded dec;
    char err[256];
};
/* parquet_tables.c: the tables, in the order they are written (calls
 * first: the others count its rows). */
extern const struct pq_src pq_tables[];
extern const size_t pq_ntables;
void pq_src_free(struct pq_src *s);

#endif
