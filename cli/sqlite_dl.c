/* libsqlite3 found at run time (see sqlite_dl.h). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqlite_dl.h"

#define SQLITE_DL_SONAME "libsqlite3.so.0"

/* Each member of struct sqlite_dl and the symbol it is loaded from. */
#define FN(m) {"sqlite3_" #m, offsetof(struct sqlite_dl, m)}
static const struct {
    const char *sym;
    size_t off;
} fns[] = {
    FN(open_v2), FN(close), FN(exec), FN(prepare_v2), FN(bind_int), FN(bind_int64), FN(bind_null),
    FN(bind_text), FN(step), FN(reset), FN(finalize), FN(errmsg), FN(errstr), FN(system_errno),
};
#undef FN

_Static_assert(sizeof fns / sizeof fns[0] * sizeof(void (*)(void)) == sizeof(struct sqlite_dl),
               "every member of struct sqlite_dl is loaded");
/* POSIX: a dlsym result converts to a function pointer of the same size. */
_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "function pointers are data-pointer sized");

static struct sqlite_dl api;
static int loaded;
static char why_buf[1024];

const struct sqlite_dl *sqlite_dl_load(const char **why)
{
    if (loaded)
        return &api;
    const char *env = getenv("CUTAP_SQLITE_LIB");
    const char *lib = env && *env ? env : SQLITE_DL_SONAME;
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        if (lib == env)
            snprintf(why_buf, sizeof why_buf,
                     "--format sqlite needs " SQLITE_DL_SONAME ", and CUTAP_SQLITE_LIB=%s cannot be loaded: %s", env,
                     dlerror());
        else
            snprintf(why_buf, sizeof why_buf,
                     "--format sqlite needs " SQLITE_DL_SONAME " (install libsqlite3-0): %s", dlerror());
        *why = why_buf;
        return NULL;
    }
    struct sqlite_dl t;
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        dlerror();
        void *p = dlsym(h, fns[i].sym);
        if (!p) {
            const char *e = dlerror();
            snprintf(why_buf, sizeof why_buf,
                     "--format sqlite needs " SQLITE_DL_SONAME " (SQLite 3.16 or later): %s has no %s%s%s", lib,
                     fns[i].sym, e ? ": " : "", e ? e : "");
            dlclose(h);
            *why = why_buf;
            return NULL;
        }
        memcpy((char *)&t + fns[i].off, &p, sizeof p);
    }
    /* The handle stays open for the life of the process. */
    api = t;
    loaded = 1;
    return &api;
}
