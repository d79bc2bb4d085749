/* Choice of the record clock (record_internal.h). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cutap_internal.h"
#include "record_internal.h"

int cutap_tsc_usable(void)
{
    /* CUTAP_CLOCK=ns forces CLOCK_MONOTONIC (e.g. when a hypervisor's TSC
     * is not to be trusted). */
    const char *force = getenv("CUTAP_CLOCK");
    if (force && !strcmp(force, "ns"))
        return 0;
    char buf[32] = {0};
    int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    return n >= 3 && !strncmp(buf, "tsc", 3) && (n == 3 || buf[3] == '\n');
}
