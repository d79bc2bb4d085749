/* A table of function pointers filled from a library loaded at run time
 * (cli/sqlite_dl.c, cli/duckdb_dl.c): each member of the table and the
 * symbol it is loaded from. */
#ifndef CUTAP_DL_TABLE_H
#define CUTAP_DL_TABLE_H

#include <stddef.h>

struct dl_fn {
    const char *sym;
    size_t off;                /* offsetof the member in the table */
};

/* Fills table (at each fns[i].off) from handle h. Returns 0, or -1 with
 * *missing the first symbol h lacks and *err dlerror's text (or ""). */
int dl_fill_table(void *h, const struct dl_fn *fns, size_t n, void *table, const char **missing, const char **err);

/* A library for one output format, its functions in a table: opened from
 * $env, else soname; NULL with why (a message naming the format, the
 * library and env) when it cannot be loaded or lacks a function. The
 * handle stays open for the life of the process. */
struct dl_lib {
    const char *format;        /* "--format sqlite" */
    const char *soname;        /* "libsqlite3.so.0" */
    const char *env;           /* "CUTAP_SQLITE_LIB" */
    const char *install;       /* how to get it: "install libsqlite3-0" */
    const char *version;       /* the version with every function: "SQLite 3.16 or later" */
};
int dl_load_table(const struct dl_lib *l, const struct dl_fn *fns, size_t n, void *table, char *why, size_t size);

#endif
