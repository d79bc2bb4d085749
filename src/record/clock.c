/* Choice of the record clock (record_internal.h). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cutap_internal.h"
#include "fd_internal.h"
#include "record_internal.h"

long cutap_read_small(const char *path, char *buf, size_t size)
{
    buf[0] = 0;
    int fd = cutap_fd_open(path, O_RDONLY, 0);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, size - 1);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = 0;
    return (long)n;
}

static int has_word(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = s; (p = strstr(p, w)); p += n)
        if ((p == s || p[-1] == ' ' || p[-1] == '\t') && (p[n] == ' ' || p[n] == '\n' || !p[n]))
            return 1;
    return 0;
}

/* The TSC is used when the kernel's clocksource is tsc, or when the kernel
 * offers tsc as a clocksource and the CPU says its TSC is invariant
 * (constant_tsc and nonstop_tsc): virtual machines often keep kvm-clock or
 * hyperv as the clocksource although their TSC is invariant, and reading
 * the clock through those costs two to five times a TSC read.
 * CUTAP_CLOCK=ns or =tsc overrides the choice. */
int cutap_tsc_usable(void)
{
    const char *force = getenv("CUTAP_CLOCK");
    if (force && !strcmp(force, "ns"))
        return 0;
    if (force && !strcmp(force, "tsc"))
        return 1;
    char buf[4096];
    if (cutap_read_small("/sys/devices/system/clocksource/clocksource0/current_clocksource", buf, sizeof buf) >= 0 &&
        has_word(buf, "tsc"))
        return 1;
    if (cutap_read_small("/sys/devices/system/clocksource/clocksource0/available_clocksource", buf, sizeof buf) < 0 ||
        !has_word(buf, "tsc"))
        return 0;
    /* The first CPU's flags line is within the first few KiB. */
    static char info[16384];
    if (cutap_read_small("/proc/cpuinfo", info, sizeof info) < 0)
        return 0;
    char *flags = strstr(info, "\nflags");
    char *end = flags ? strchr(flags + 1, '\n') : NULL;
    if (!flags || !end)
        return 0;
    *end = 0;
    return has_word(flags, "constant_tsc") && has_word(flags, "nonstop_tsc");
}
