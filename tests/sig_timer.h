/* A timer at the calling thread every 20 us whose signal runs fn (the
 * signal-handler cases: t_sig_calls, t_sig_refresh). */
#ifndef SIG_TIMER_H
#define SIG_TIMER_H
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int start_timer(timer_t *tm, void (*fn)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fn;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGRTMIN, &sa, NULL);
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;   /* this thread, not one of cutap's */
    ev.sigev_signo = SIGRTMIN;
    ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    if (timer_create(CLOCK_MONOTONIC, &ev, tm))
        return -1;
    struct itimerspec it = {{0, 20000}, {0, 20000}};
    return timer_settime(*tm, 0, &it, NULL);
}

static void stop_timer(timer_t tm)
{
    struct itimerspec off = {{0, 0}, {0, 0}};
    timer_settime(tm, 0, &off, NULL);
    timer_delete(tm);
}
#endif
