/* libsqlite3 found at run time (see sqlite_dl.h). */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdio.h>

#include "dl_table.h"
#include "sqlite_dl.h"

#define SQLITE_DL_SONAME "libsqlite3.so.0"

/* Each member of struct sqlite_dl and the symbol it is loaded from. */
#define FN(m) {"sqlite3_" #m, offsetof(struct sqlite_dl, m)}
static const struct dl_fn fns[] = {
    FN(open_v2), FN(close), FN(exec), FN(prepare_v2), FN(bind_int), FN(bind_int64), FN(bind_null),
    FN(bind_text), FN(step), FN(reset), FN(finalize), FN(errmsg), FN(errstr), FN(system_errno),
};
#undef FN

_Static_assert(sizeof fns / sizeof fns[0] * sizeof(void (*)(void)) == sizeof(struct sqlite_dl),
               "every member of struct sqlite_dl is loaded");

static struct sqlite_dl api;
static int loaded;
static char why_buf[1024];

const struct sqlite_dl *sqlite_dl_load(const char **why)
{
    static const struct dl_lib l = {"--format sqlite", SQLITE_DL_SONAME, "CUTAP_SQLITE_LIB", "install libsqlite3-0",
                                    "SQLite 3.16 or later"};
    /* (a failed load may have filled part of api: it is not used) */
    if (!loaded && dl_load_table(&l, fns, sizeof fns / sizeof fns[0], &api, why_buf, sizeof why_buf)) {
        *why = why_buf;
        return NULL;
    }
    loaded = 1;   /* the handle stays open for the life of the process */
    return &api;
}
