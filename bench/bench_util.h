/* Helpers shared by the benchmark programs (bench/passthrough.c,
 * bench/coldcall.c, bench/gpu/overhead.c, bench/gpu/abcall.c). */
#ifndef CUTAP_BENCH_UTIL_H
#define CUTAP_BENCH_UTIL_H
#include <stdio.h>
#include <stdlib.h>

#include "front_internal.h"   /* cutap_now_ns: CLOCK_MONOTONIC ns (src/front) */

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

/* The median of v (sorted in place) and its 95 % interval: the order
 * statistics n/2 -+ 0.98 sqrt(n) (the binomial's normal approximation).
 * Link with -lm. */
#include <math.h>
static inline void med_ci(double *v, int n, double *m, double *lo, double *hi)
{
    *m = median(v, n);
    int k = (int)floor(n / 2.0 - 0.98 * sqrt((double)n)), j = (int)ceil(n / 2.0 + 0.98 * sqrt((double)n));
    *lo = v[k < 0 ? 0 : k];
    *hi = v[j >= n ? n - 1 : j];
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

/* This program's path (self) and the libcutap.so of its build directory
 * (lib: build/bench/x -> build/libcutap.so); -1 when /proc/self/exe cannot
 * be read. */
#include <string.h>
#include <unistd.h>
static inline int bench_paths(char *self, char *lib, size_t size)
{
    ssize_t k = readlink("/proc/self/exe", self, size - 1);
    if (k <= 0)
        return -1;
    self[k] = 0;
    snprintf(lib, size, "%s", self);
    char *slash = strrchr(lib, '/');
    if (!slash)
        return -1;
    *slash = 0;
    slash = strrchr(lib, '/');   /* build/bench -> build */
    if (!slash)
        return -1;
    snprintf(slash, size - (size_t)(slash - lib), "/libcutap.so");
    return 0;
}

/* Runs SELF --child N as a child (LD_PRELOAD=preload when not NULL, mode:
 * VAR=VALUE or NULL) and reads nv numbers from its output; 0 when it
 * exited 0 having printed them all. */
static inline int bench_child(const char *self, const char *preload, const char *mode, long n, double *v, int nv)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "env %s%s %s %s --child %ld", preload ? "LD_PRELOAD=" : "", preload ? preload : "",
             mode ? mode : "", self, n);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    int ok = 1;
    for (int i = 0; i < nv; i++)
        ok &= fscanf(p, "%lf", &v[i]) == 1;
    return pclose(p) == 0 && ok ? 0 : -1;
}

/* "met" or "NOT met": issue #13's marks. */
static inline const char *mark(int met) { return met ? "met" : "NOT met"; }
#endif
