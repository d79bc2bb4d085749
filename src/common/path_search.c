/* See path_search.h. Used in the note only: the real exec searches by
 * itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "path_search.h"

__attribute__((visibility("hidden"))) const char *cutap_path_search(const char *file, char *buf, size_t size)
{
    if (!file || strchr(file, '/'))
        return file;
    const char *path = getenv("PATH");
    if (!path)
        path = "/bin:/usr/bin";
    for (const char *p = path;; p++) {
        const char *e = strchr(p, ':');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n + strlen(file) + 2 <= size) {
            snprintf(buf, size, "%.*s%s%s", (int)n, p, n ? "/" : "", file);
            if (!access(buf, X_OK))
                return buf;
        }
        if (!e)
            break;
        p = e;
    }
    return file;
}
