#ifndef CUTAP_CLOCK_INTERNAL_H
#define CUTAP_CLOCK_INTERNAL_H
#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC through the vDSO: ~20 ns, no system call. */
static inline uint64_t cutap_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif
