/* Issue #31: where an empty launch's CPU goes (tests/gpu/launch_probe.sh).
 *   launch_probe [ROUNDS]   (default 20: rounds of 20,000 cuLaunchKernel of
 *                            an empty kernel, synchronised every 100)
 * Prints per round the launching thread's CPU a launch, the
 * synchronisations' CPU left out, as bench/gpu/overhead's lcpu does, and
 * the wall time a launch; nothing else runs in the process (perf's
 * samples are the launches'). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BENCH_NAME "launch_probe"
#include "../../bench/bench_util.h"
#include "../../bench/gpu/bench_drv.h"

static uint64_t now(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    struct bench_drv D;
    if (bench_drv_open(&D))
        return 1;
    for (int r = 0; r < rounds; r++) {
        uint64_t c0 = now(CLOCK_THREAD_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC), waited = 0;
        for (long i = 0; i < 20000; i++) {
            BENCH_CK(D.launch(D.fn, 1, 1, 1, 32, 1, 1, 0, D.st, NULL, NULL));
            if (i % 100 == 99) {
                uint64_t w = now(CLOCK_THREAD_CPUTIME_ID);
                BENCH_CK(D.ssync(D.st));
                waited += now(CLOCK_THREAD_CPUTIME_ID) - w;
            }
        }
        printf("round %d lcpu %.1f wall %.1f ns\n", r, (double)(now(CLOCK_THREAD_CPUTIME_ID) - c0 - waited) / 20000,
               (double)(now(CLOCK_MONOTONIC) - w0) / 20000);
    }
    return 0;
}
