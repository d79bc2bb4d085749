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

/* What one read of the time-stamp counter costs here, ns (the median of 5
 * runs of 1 M back-to-back reads): a timed call takes two. */
#include <x86intrin.h>
static inline double tsc_read_ns(void)
{
    double v[5];
    for (int r = 0; r < 5; r++) {
        uint64_t sink = 0, t0 = cutap_now_ns();
        for (int i = 0; i < 1000000; i++)
            sink += __rdtsc();
        v[r] = (double)(cutap_now_ns() - t0) / 1e6;
        __asm__ volatile("" ::"r"(sink));
    }
    return median(v, 5);
}

/* "met" or "NOT met": issue #13's marks. */
static inline const char *mark(int met) { return met ? "met" : "NOT met"; }
#endif
