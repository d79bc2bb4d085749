/* Test helpers: the file name (no directory) of the object holding p;
 * whether an object whose path holds name is mapped. */
#ifndef DL_UTIL_H
#define DL_UTIL_H
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static inline int mapped(const char *name)
{
    char line[4096];
    int found = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    while (f && fgets(line, sizeof line, f))
        found |= strstr(line, name) != NULL;
    if (f)
        fclose(f);
    return found;
}

static inline const char *object_of(void *p)
{
    Dl_info i;
    if (!p || !dladdr(p, &i) || !i.dli_fname)
        return "(null)";
    const char *s = strrchr(i.dli_fname, '/');
    return s ? s + 1 : i.dli_fname;
}
#endif
