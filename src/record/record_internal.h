/* Internal interfaces of the recorder (src/record). */
#ifndef CUTAP_RECORD_INTERNAL_H
#define CUTAP_RECORD_INTERNAL_H
#include <stddef.h>
#include <stdint.h>
#include <x86intrin.h>

#include "clock_internal.h"

/* Record clock: the time-stamp counter where the kernel itself trusts it
 * (its clocksource is tsc: invariant, synchronised across CPUs), else
 * CLOCK_MONOTONIC. Reading the TSC costs about half of a vDSO
 * clock_gettime; the reader turns ticks into ns with the (tsc, ns) pairs
 * stored in the file. */
extern int cutap_rec_tsc;
static inline uint64_t cutap_rec_clock(void)
{
    return cutap_rec_tsc ? __rdtsc() : cutap_now_ns();
}
int cutap_tsc_usable(void);
/* Reads up to size-1 bytes of a small file (/proc, /sys) into buf,
 * NUL-terminated; returns the bytes read, or -1. */
long cutap_read_small(const char *path, char *buf, size_t size);

/* Applies a CUTAP_FILTER expression (NULL or empty: every id) to a client:
 * enables the ids it selects, now and those made later. Returns 0, or -1
 * after a warning when the expression is invalid (nothing is enabled). */
int cutap_filter_apply(int client, const char *expr);
#endif
