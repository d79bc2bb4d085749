/* Function tables from libraries loaded at run time (dl_table.h). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_table.h"

/* POSIX: a dlsym result converts to a function pointer of the same size. */
_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "function pointers are data-pointer sized");

int dl_fill_table(void *h, const struct dl_fn *fns, size_t n, void *table, const char **missing, const char **err)
{
    for (size_t i = 0; i < n; i++) {
        dlerror();
        void *p = dlsym(h, fns[i].sym);
        if (!p) {
            const char *e = dlerror();
            *missing = fns[i].sym;
            *err = e ? e : "";
            return -1;
        }
        memcpy((char *)table + fns[i].off, &p, sizeof p);
    }
    return 0;
}

int dl_load_table(const struct dl_lib *l, const struct dl_fn *fns, size_t n, void *table, char *why, size_t size)
{
    const char *env = getenv(l->env);
    const char *lib = env && *env ? env : l->soname;
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        if (lib == env)
            snprintf(why, size, "%s needs %s, and %s=%s cannot be loaded: %s", l->format, l->soname, l->env, env,
                     dlerror());
        else
            snprintf(why, size, "%s needs %s (%s): %s", l->format, l->soname, l->install, dlerror());
        return -1;
    }
    const char *sym, *e;
    if (dl_fill_table(h, fns, n, table, &sym, &e)) {
        snprintf(why, size, "%s needs %s (%s): %s has no %s%s%s", l->format, l->soname, l->version, lib, sym,
                 *e ? ": " : "", e);
        dlclose(h);
        return -1;
    }
    return 0;
}
