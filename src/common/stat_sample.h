/* CUTAP_STAT_SAMPLE=M, counting mode's mean sampling interval: read the
 * same way by the library (src/record/recorder.c) and by `cutap stat`
 * (cli/run/cmd_stat.c), which refuses a bad value before the command
 * runs. */
#ifndef CUTAP_STAT_SAMPLE_H
#define CUTAP_STAT_SAMPLE_H
#include <stdlib.h>

#define CUTAP_STAT_SAMPLE_MIN 2
#define CUTAP_STAT_SAMPLE_MAX 4096

/* 0 and *mean for decimal digits alone from 2 to 4096; -1 otherwise (no
 * sign, space, hexadecimal or trailing character). */
static inline int cutap_stat_sample_parse(const char *s, unsigned *mean)
{
    if (!s || *s < '0' || *s > '9')
        return -1;
    char *e;
    unsigned long m = strtoul(s, &e, 10);
    if (*e || m < CUTAP_STAT_SAMPLE_MIN || m > CUTAP_STAT_SAMPLE_MAX)
        return -1;
    *mean = (unsigned)m;
    return 0;
}
#endif
