/* Choice of the record clock (record_internal.h), and how it is read once
 * the process forbids the time-stamp counter (src/front/forbid.c). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <x86intrin.h>

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

/* The fast paths' line (record_internal.h), its fields' names. */
struct cutap_hotline cutap_hotline = {.slots = cutap_hot};
_Static_assert(offsetof(struct cutap_hotline, rclk) == 0 && offsetof(struct cutap_hotline, no_kernel_names) == 4 &&
                   offsetof(struct cutap_hotline, tls_off) == 8 && offsetof(struct cutap_hotline, slots) == 16,
               "the fields are named at these offsets");
_Static_assert(sizeof(struct cutap_hotline) == 64, "the line is the fast paths' own");
__asm__(".globl cutap_rclk\n\t.hidden cutap_rclk\n\t.type cutap_rclk,@object\n\t.size cutap_rclk,4\n\t"
        ".set cutap_rclk, cutap_hotline\n\t"
        ".globl cutap_no_kernel_names\n\t.hidden cutap_no_kernel_names\n\t.type cutap_no_kernel_names,@object\n\t"
        ".size cutap_no_kernel_names,4\n\t.set cutap_no_kernel_names, cutap_hotline+4\n\t"
        ".globl cutap_fp_tls_off\n\t.hidden cutap_fp_tls_off\n\t.type cutap_fp_tls_off,@object\n\t"
        ".size cutap_fp_tls_off,8\n\t.set cutap_fp_tls_off, cutap_hotline+8\n\t"
        ".globl cutap_fp_slots\n\t.hidden cutap_fp_slots\n\t.type cutap_fp_slots,@object\n\t"
        ".size cutap_fp_slots,8\n\t.set cutap_fp_slots, cutap_hotline+16");
/* The thread state's offset from the thread pointer, before anything can
 * hand a fast path out (the core's constructors run before its first
 * refresh; initial-exec TLS is at one offset in every thread). */
__attribute__((constructor(101))) static void hotline_init(void)
{
    uintptr_t tp;
    __asm__("mov %%fs:0, %0" : "=r"(tp));
    cutap_hotline.tls_off = (intptr_t)((uintptr_t)&cutap_tls - tp);
}
/* A (ticks, ns) pair taken when the TSC was chosen; from the forbidding
 * on, an anchor pair and the rate, measured over the process's life so
 * far, that turn CLOCK_MONOTONIC into ticks continuing the counter. */
static uint64_t start_tsc, start_ns, anchor_tsc, anchor_ns;
static double ticks_per_ns;
static int diag_counter;        /* CUTAP_DIAG_CLOCK=counter */
static uint64_t diag_ticks;     /* its last value; from the counter at first use */

void cutap_rec_clock_choose(void)
{
    cutap_rec_tsc = !__atomic_load_n(&cutap_tsc_forbidden, __ATOMIC_ACQUIRE) && cutap_tsc_usable();
    if (cutap_rec_tsc) {
        start_ns = cutap_now_ns();
        start_tsc = __rdtsc();
    }
    if (cutap_rec_tsc && !diag_counter) {
        const char *d = getenv("CUTAP_DIAG_CLOCK");
        diag_counter = d && !strcmp(d, "counter");
    }
    __atomic_store_n(&cutap_rclk, !cutap_rec_tsc ? CUTAP_RCLK_NS : diag_counter ? CUTAP_RCLK_DIAG : CUTAP_RCLK_TSC,
                     __ATOMIC_RELEASE);
}

uint64_t cutap_rec_clock_other(void)
{
    int m = __atomic_load_n(&cutap_rclk, __ATOMIC_RELAXED);
    if (m == CUTAP_RCLK_TSC)   /* (it changed since the caller looked) */
        return __rdtsc();
    return m == CUTAP_RCLK_NS ? cutap_now_ns() : cutap_rec_clock_converted();
}

uint64_t cutap_rec_clock_converted(void)
{
    if (__builtin_expect(__atomic_load_n(&cutap_rclk, __ATOMIC_RELAXED) == CUTAP_RCLK_DIAG, 0)) {
        /* one step a reading; threads may share a value (no atomic add: a
         * diagnostic's times need not be exact, only cheap) */
        uint64_t v = __atomic_load_n(&diag_ticks, __ATOMIC_RELAXED);
        v = v ? v + 1 : __rdtsc();
        __atomic_store_n(&diag_ticks, v, __ATOMIC_RELAXED);
        return v;
    }
    uint64_t ns = cutap_now_ns();   /* a system call, or the frozen time */
    return anchor_tsc + (uint64_t)((double)(int64_t)(ns - anchor_ns) * ticks_per_ns);
}

/* Called before the program's own call that forbids the counter, by the
 * thread making it: the counter can still be read here. */
void cutap_clock_forbid_tsc(void)
{
    if (__atomic_load_n(&cutap_tsc_forbidden, __ATOMIC_ACQUIRE))
        return;
    int m = __atomic_load_n(&cutap_rclk, __ATOMIC_ACQUIRE);
    if (m == CUTAP_RCLK_TSC || m == CUTAP_RCLK_DIAG) {
        /* the rate over at least a millisecond (a process that forbids the
         * counter right after its first call waits that long, once) */
        uint64_t ns, t;
        do {
            ns = cutap_now_ns();
            t = __rdtsc();
        } while (ns - start_ns < 1000000);
        ticks_per_ns = (double)(t - start_tsc) / (double)(ns - start_ns);
        anchor_tsc = t;
        anchor_ns = ns;
        __atomic_store_n(&cutap_tsc_forbidden, 1, __ATOMIC_RELEASE);
        __atomic_store_n(&cutap_rclk, CUTAP_RCLK_CONVERTED, __ATOMIC_RELEASE);
    } else {
        __atomic_store_n(&cutap_tsc_forbidden, 1, __ATOMIC_RELEASE);
    }
}

/* Seccomp strict mode: no counter and no system call; the clock stands
 * still at this reading. */
void cutap_clock_freeze(void)
{
    cutap_clock_forbid_tsc();
    __atomic_store_n(&cutap_frozen_ns, cutap_now_ns(), __ATOMIC_RELEASE);
    __atomic_store_n(&cutap_tsc_forbidden, 2, __ATOMIC_RELEASE);
}
