/* Helpers shared by the benchmark programs (bench/passthrough.c,
 * bench/gpu/overhead.c). */
#ifndef CUTAP_BENCH_UTIL_H
#define CUTAP_BENCH_UTIL_H
#include <stdlib.h>

#include "../src/core/clock_internal.h"   /* cutap_now_ns: CLOCK_MONOTONIC ns */

static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sorts v in place; 0 for an empty set. */
static inline double median(double *v, int n)
{
    if (n <= 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
#endif
