/* A process that forbids itself the time-stamp counter (case
 * tsc_forbidden): every rdtsc of it, the vDSO's clock_gettime included,
 * is then a SIGSEGV. cutap must never read the counter again.
 *
 *   t_tsc prctl N      N calls, prctl(PR_SET_TSC, PR_TSC_SIGSEGV), N calls
 *                      (and N in a thread started after)
 *   t_tsc syscall N    the same through syscall(SYS_prctl, ...)
 *   t_tsc fork N       N calls, forbids it, forks: the child (the counter
 *                      forbidden to it too) makes N calls
 * (An exec'd dynamic program cannot start with the counter forbidden: the
 * dynamic loader reads it.)
 *   t_tsc strict N     N calls, then seccomp strict mode (read, write and
 *                      exit only), N calls, "strict ok" written, exit by
 *                      SYS_exit (exit_group is not allowed there)
 * Prints "calls N" with the number of driver calls made. */
#define _GNU_SOURCE
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuda_min.h"

static long n;

static void *calls(void *arg)
{
    (void)arg;
    CUcontext c;
    for (long i = 0; i < n; i++)
        cuCtxGetCurrent(&c);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    n = atol(argv[2]);
    const char *m = argv[1];
    if (cuInit(0))
        return 2;
    calls(NULL);
    if (!strcmp(m, "strict")) {
        fflush(stdout);
        if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0))
            return 3;
        calls(NULL);
        static const char ok[] = "strict ok\n";
        if (write(1, ok, sizeof ok - 1) != sizeof ok - 1)
            syscall(SYS_exit, 4);
        syscall(SYS_exit, 0);
    }
    int rc = !strcmp(m, "syscall") ? (int)syscall(SYS_prctl, PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0)
                                   : prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0);
    if (rc)
        return 3;
    if (!strcmp(m, "fork")) {
        fflush(stdout);
        pid_t p = fork();
        if (p < 0)
            return 2;
        if (!p) {
            calls(NULL);
            printf("child calls %ld\n", n);
            exit(0);
        }
        int st;
        if (waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st))
            return 4;
        printf("calls %ld\n", n + 1);
        return 0;
    }
    calls(NULL);
    pthread_t t;
    if (pthread_create(&t, NULL, calls, NULL) || pthread_join(t, NULL))
        return 2;
    printf("calls %ld\n", 3 * n + 1);
    return 0;
}
