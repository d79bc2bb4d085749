/* What cutap adds to the start of a process that makes no CUDA call, side
 * by side in one run (issue #24: the budget is 0.3 ms per exec, a
 * 300-exec shell loop within 1.5x bare, 15,000 inherited descriptors
 * within 3x bare).
 *
 *   build/bench/startup [ROUNDS [OTHER_LIBCUTAP]]
 *
 * Modes, each an environment the program is started with:
 *   bare    nothing of cutap
 *   trace   LD_PRELOAD=libcutap.so CUTAP_TRACE=DIR (what `cutap trace` sets)
 *   stat    LD_PRELOAD=libcutap.so CUTAP_COUNT=DIR (what `cutap stat` sets)
 *   trace', stat'   the same with OTHER_LIBCUTAP (another build, say the one
 *                   before a change: both measured in the same run)
 * DIR is a fresh directory (made here, as the command makes it).
 *
 * Workloads, the modes interleaved round by round (ROUNDS, default 7) so
 * that a slow moment of the machine falls on every mode alike:
 *   exec      fork + execve + wait of /bin/true, 200 times: ms per exec
 *   loop      sh -c 'a 300-iteration loop running /bin/true': ms per loop
 *   fds       /bin/true started with 15,000 inherited descriptors, 50
 *             times: ms per exec (RLIMIT_NOFILE raised for it; skipped
 *             where the hard limit is lower)
 * The table gives each median, the spread (min..max of the rounds), the
 * time added per exec and the ratio to bare. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"

enum { BARE, TRACE, STAT, TRACE2, STAT2, NMODES };
static const char *const mode_name[NMODES] = {"bare", "trace", "stat", "trace'", "stat'"};
static char *envs[NMODES][8];
static int nmodes = 3;

static int spawn_wait(char *const argv[], char *const envp[])
{
    pid_t p = fork();
    if (p < 0)
        return -1;
    if (!p) {
        execve(argv[0], argv, envp);
        _exit(127);
    }
    int st;
    while (waitpid(p, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* ms per run of argv, n runs */
static double timed(char *const argv[], char *const envp[], int n)
{
    uint64_t t0 = cutap_now_ns();
    for (int i = 0; i < n; i++)
        if (spawn_wait(argv, envp)) {
            fprintf(stderr, "startup: %s failed\n", argv[0]);
            exit(1);
        }
    return (double)(cutap_now_ns() - t0) / 1e6 / n;
}

struct work {
    const char *name, *unit;
    double per;   /* execs per run: the added time is given per exec */
    double v[NMODES][64];
};

static void row(struct work *w, int rounds)
{
    double med[NMODES], lo[NMODES], hi[NMODES];
    for (int m = 0; m < nmodes; m++) {
        lo[m] = hi[m] = w->v[m][0];
        for (int r = 1; r < rounds; r++) {
            lo[m] = w->v[m][r] < lo[m] ? w->v[m][r] : lo[m];
            hi[m] = w->v[m][r] > hi[m] ? w->v[m][r] : hi[m];
        }
        med[m] = median(w->v[m], rounds);
    }
    for (int m = 0; m < nmodes; m++)
        printf("%-6s %-6s %9.3f %s  (%.3f..%.3f)  added per exec %+7.3f ms  x%.2f\n", w->name, mode_name[m], med[m],
               w->unit, lo[m], hi[m], (med[m] - med[BARE]) / w->per, med[m] / med[BARE]);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 7;
    if (rounds < 1 || rounds > 64)
        rounds = 7;
    char self[4096], lib[4096], dir[] = "/tmp/cutap-bench-startup.XXXXXX";
    if (bench_paths(self, lib, sizeof self) || access(lib, R_OK)) {
        fprintf(stderr, "startup: no libcutap.so beside this program (make lib)\n");
        return 1;
    }
    if (!mkdtemp(dir))
        return 1;
    static char pre[4200], pre2[4200], tr[4200], ct[4200], path[] = "PATH=/usr/bin:/bin";
    snprintf(pre, sizeof pre, "LD_PRELOAD=%s", lib);
    snprintf(tr, sizeof tr, "CUTAP_TRACE=%s/trace", dir);
    snprintf(ct, sizeof ct, "CUTAP_COUNT=%s/stat", dir);
    envs[BARE][0] = path;
    envs[TRACE][0] = path, envs[TRACE][1] = pre, envs[TRACE][2] = tr;
    envs[STAT][0] = path, envs[STAT][1] = pre, envs[STAT][2] = ct;
    if (argc > 2) {
        if (access(argv[2], R_OK)) {
            fprintf(stderr, "startup: %s: cannot read\n", argv[2]);
            return 1;
        }
        snprintf(pre2, sizeof pre2, "LD_PRELOAD=%s", argv[2]);
        envs[TRACE2][0] = path, envs[TRACE2][1] = pre2, envs[TRACE2][2] = tr;
        envs[STAT2][0] = path, envs[STAT2][1] = pre2, envs[STAT2][2] = ct;
        nmodes = NMODES;
    }
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/trace", dir);
    mkdir(sub, 0700);
    snprintf(sub, sizeof sub, "%s/stat", dir);
    mkdir(sub, 0700);

    char *t_argv[] = {"/bin/true", NULL};
    char *l_argv[] = {"/bin/sh", "-c", "i=0; while [ $i -lt 300 ]; do /bin/true; i=$((i+1)); done", NULL};
    static struct work ex = {.name = "exec", .unit = "ms", .per = 1}, lp = {.name = "loop", .unit = "ms", .per = 301},
                       fds = {.name = "fds", .unit = "ms", .per = 1};

    /* 15,000 inherited descriptors: raised limit, copies of /dev/null
     * from 3 up, kept across exec; the limit put back for the others. */
    struct rlimit old, want;
    getrlimit(RLIMIT_NOFILE, &old);
    want = old;
    if (want.rlim_cur < 15100)
        want.rlim_cur = want.rlim_max < 15100 ? want.rlim_max : 15100;
    int have_fds = want.rlim_cur >= 15100 && !setrlimit(RLIMIT_NOFILE, &want);

    for (int r = 0; r < rounds; r++) {
        for (int m = 0; m < nmodes; m++) {
            ex.v[m][r] = timed(t_argv, envs[m], 200);
            lp.v[m][r] = timed(l_argv, envs[m], 1);
        }
    }
    if (have_fds) {
        int null = open("/dev/null", O_RDONLY);
        for (int fd = 3; fd < 15003; fd++)
            if (fd != null && dup2(null, fd) < 0) {
                have_fds = 0;
                break;
            }
        for (int r = 0; r < rounds && have_fds; r++)
            for (int m = 0; m < nmodes; m++)
                fds.v[m][r] = timed(t_argv, envs[m], 50);
        for (int fd = 3; fd < 15003; fd++)
            close(fd);
    }
    setrlimit(RLIMIT_NOFILE, &old);

    printf("cutap start-up, %d rounds (median, min..max of the rounds), %s%s%s\n", rounds, lib,
           nmodes > 3 ? "; ' = " : "", nmodes > 3 ? argv[2] : "");
    row(&ex, rounds);
    row(&lp, rounds);
    if (have_fds)
        row(&fds, rounds);
    else
        printf("fds    (skipped: RLIMIT_NOFILE hard limit below 15,100)\n");
    char rm[4300];
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    return system(rm) ? 1 : 0;
}
