/* CUDA calls from a signal handler while the thread makes its own (never
 * harm: no hang, no misplaced record, every loss counted): a timer aimed
 * at the main thread fires every 20 us while it makes N cuCtxGetCurrent
 * calls (its chunk changes every few thousand calls); the handler makes
 * two calls: cuDeviceGetCount, and in turn one of 50 driver functions of
 * one pointer (the first call of each names it in the file from the
 * handler). Prints "main N handler H" (H ticks: 2H calls); the status is
 * 0 when every cuCtxGetCurrent and cuDeviceGetCount succeeded. With
 * "same", the handler calls cuCtxGetCurrent too (3H calls): the same id
 * as the thread it interrupts, whose count it must not overwrite. With
 * "burstK", it makes K more cuDeviceGetCount a tick ((K + 2)H calls): a
 * handler's calls then change the thread's chunk often, between the
 * thread's own steps of taking slots (helper-28's review found slots taken
 * and left empty there by a version that moved the position by xadd,
 * hiding the chunk's later records from every reader).
 *   t_sig_calls N [same|burstK] */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cuda_min.h"
#include "one_pointer_fns.h"
#include "sig_timer.h"

static volatile sig_atomic_t handled, bad;
static one_ptr_fn fns[ONE_PTR_COUNT];
static unsigned nf;
static char buf[4096];
static int same, burst;

static void on_timer(int sig)
{
    (void)sig;
    int n = 0;
    if (cuDeviceGetCount(&n) || n < 1)
        bad = 1;
    fns[(unsigned)handled % nf](buf);
    CUcontext c;
    if (same && cuCtxGetCurrent(&c))
        bad = 1;
    for (int i = 0; i < burst; i++)
        if (cuDeviceGetCount(&n) || n < 1)
            bad = 1;
    handled++;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    same = argc > 2 && !strcmp(argv[2], "same");
    burst = argc > 2 && !strncmp(argv[2], "burst", 5) ? atoi(argv[2] + 5) : 0;
    if (cuInit(0))
        return 1;
    for (size_t i = 0; i < ONE_PTR_COUNT; i++)
        if ((fns[nf] = (one_ptr_fn)dlsym(RTLD_DEFAULT, one_ptr_names[i])))
            nf++;
    if (!nf)
        return 1;
    timer_t tm;
    if (start_timer(&tm, on_timer))
        return 1;
    CUcontext c;
    for (long i = 0; i < n; i++)
        if (cuCtxGetCurrent(&c))
            bad = 1;
    stop_timer(tm);
    printf("main %ld handler %d\n", n, (int)handled);
    return bad;
}
