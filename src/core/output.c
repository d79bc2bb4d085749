/* Output files of the built-in clients: "stderr", or a path in which %p
 * becomes the process id (one file per process, so fork and exec never mix
 * two processes' lines). Created 0600, never through a symlink. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core_internal.h"

int cutap_open_output(const char *pattern, int append)
{
    if (!strcmp(pattern, "stderr"))
        return cutap_fd_hide(fcntl(2, F_DUPFD_CLOEXEC, 3));
    char path[4096];
    size_t o = 0;
    for (const char *s = pattern; *s && o + 24 < sizeof path; s++) {
        if (s[0] == '%' && s[1] == 'p') {
            o += (size_t)snprintf(path + o, sizeof path - o, "%d", (int)getpid());
            s++;
        } else {
            path[o++] = *s;
        }
    }
    path[o] = 0;
    int fd = cutap_fd_open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | (append ? O_APPEND : O_TRUNC), 0600);
    if (fd < 0)
        cutap_warn("cannot open %s: %m", path);
    return fd;
}
