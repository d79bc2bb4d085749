#ifndef CUTAP_CLOCK_INTERNAL_H
#define CUTAP_CLOCK_INTERNAL_H
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Whether the process forbade the time-stamp counter (src/front/forbid.c):
 * 1 after prctl(PR_SET_TSC, PR_TSC_SIGSEGV), where the vDSO's
 * clock_gettime, which reads the counter, would fault too: the clock is
 * then read by system call; 2 in seccomp strict mode, where a system call
 * would kill the process: the clock stands still at its last reading.
 * Defined by libcutap.so (weak here: the benchmarks, which include this
 * header, never forbid anything and have no definition). */
extern int cutap_tsc_forbidden __attribute__((weak));
extern uint64_t cutap_frozen_ns __attribute__((weak));
/* The library's (src/record/clock.c): called before the program's call
 * that forbids the counter (or enters strict mode), by its thread. */
void cutap_clock_forbid_tsc(void);
void cutap_clock_freeze(void);

/* A clock through the vDSO (~20 ns, no system call), or as allowed. */
static inline uint64_t cutap_clock_ns(clockid_t id)
{
    struct timespec ts;
    if (__builtin_expect(&cutap_tsc_forbidden && __atomic_load_n(&cutap_tsc_forbidden, __ATOMIC_RELAXED), 0)) {
        if (__atomic_load_n(&cutap_tsc_forbidden, __ATOMIC_RELAXED) == 2)
            return __atomic_load_n(&cutap_frozen_ns, __ATOMIC_RELAXED);   /* (any clock: nothing is recorded) */
        syscall(SYS_clock_gettime, id, &ts);
    } else {
        clock_gettime(id, &ts);
    }
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC ns. */
static inline uint64_t cutap_now_ns(void)
{
    return cutap_clock_ns(CLOCK_MONOTONIC);
}
#endif
