/* Test helper: the file name (no directory) of the object holding p. */
#ifndef DL_UTIL_H
#define DL_UTIL_H
#include <dlfcn.h>
#include <string.h>

static inline const char *object_of(void *p)
{
    Dl_info i;
    if (!p || !dladdr(p, &i) || !i.dli_fname)
        return "(null)";
    const char *s = strrchr(i.dli_fname, '/');
    return s ? s + 1 : i.dli_fname;
}
#endif
