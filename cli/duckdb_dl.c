/* libduckdb found at run time (see duckdb_dl.h). */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdio.h>

#include "dl_table.h"
#include "duckdb_dl.h"

/* DuckDB's releases ship libduckdb.so without a version in its name (the
 * npm package @duckdb/node-bindings-linux-x64 and the GitHub release zip
 * alike). */
#define DUCKDB_DL_SONAME "libduckdb.so"

#define DUCKDB_DL_FN(r, n, a) {"duckdb_" #n, offsetof(struct duckdb_dl, n)},
static const struct dl_fn fns[] = {DUCKDB_DL_FUNCTIONS(DUCKDB_DL_FN)};
#undef DUCKDB_DL_FN

_Static_assert(sizeof fns / sizeof fns[0] * sizeof(void (*)(void)) == sizeof(struct duckdb_dl),
               "every member of struct duckdb_dl is loaded");

static struct duckdb_dl api;
static int loaded;
static char why_buf[1024];

const struct duckdb_dl *duckdb_dl_load(const char **why)
{
    static const struct dl_lib l = {"--format parquet", DUCKDB_DL_SONAME, "CUTAP_DUCKDB_LIB",
                                    "DuckDB 1.x; set CUTAP_DUCKDB_LIB to its path", "DuckDB 1.x, tested with 1.5.6"};
    /* (a failed load may have filled part of api: it is not used) */
    if (!loaded && dl_load_table(&l, fns, sizeof fns / sizeof fns[0], &api, why_buf, sizeof why_buf)) {
        *why = why_buf;
        return NULL;
    }
    loaded = 1;   /* the handle stays open for the life of the process */
    return &api;
}
