/* What recording the NVIDIA libraries' environment lookups (issue #32)
 * costs a program's own getenv calls, which cutap never records: ns per
 * getenv("HOME") (a set name) and getenv("CUTAP_BENCH_UNSET"), side by
 * side in one run, each mode a child of its own:
 *   bare     no cutap;
 *   front    libcutap.so preloaded, CUDA never touched (the core not
 *            loaded: each call is glibc's plus the front's check, and the
 *            early-lookup cache of its call site);
 *   core     under the recorder (CUTAP_TRACE), the core loaded by a
 *            cuInit of the fake driver first: each call is glibc's plus
 *            the core's cached caller lookup;
 *   off      the same with CUTAP_ENV=0.
 * Best of 7 rounds of 2,000,000 calls per mode, 3 cycles, median.
 *   build/bench/getenv    (make bench; LD_LIBRARY_PATH=build/fake) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"

#define ROUNDS 7
#define N 2000000L

static int child(void)
{
    if (getenv("BENCH_CUINIT")) {
        void *h = dlopen("libcuda.so.1", RTLD_NOW);
        int (*cu_init)(unsigned) = h ? (int (*)(unsigned))dlsym(h, "cuInit") : NULL;
        if (!cu_init || cu_init(0))
            return 1;
    }
    const char *names[2] = {"HOME", "CUTAP_BENCH_UNSET"};
    for (int k = 0; k < 2; k++) {
        double best = 1e30;
        for (int r = 0; r < ROUNDS; r++) {
            uint64_t t0 = cutap_now_ns();
            for (long i = 0; i < N; i++) {
                char *v = getenv(names[k]);
                __asm__ volatile("" : : "r"(v) : "memory");
            }
            double ns = (double)(cutap_now_ns() - t0) / N;
            if (ns < best)
                best = ns;
        }
        printf("%.2f\n", best);
    }
    return 0;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    (void)argc;
    if (getenv("BENCH_CHILD"))
        return child();
    const char *lib = getenv("CUTAP_LIBRARY");
    if (!lib) {
        fprintf(stderr, "getenv: set CUTAP_LIBRARY (build/libcutap.so)\n");
        return 2;
    }
    static const char *const modes[] = {"bare", "front", "core", "off"};
    double v[4][2][3];
    char dir[] = "/tmp/cutap-bench-getenv.XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    for (int c = 0; c < 3; c++)
        for (int m = 0; m < 4; m++) {
            int fd[2];
            if (pipe(fd))
                return 1;
            pid_t pid = fork();
            if (!pid) {
                dup2(fd[1], 1);
                setenv("BENCH_CHILD", "1", 1);
                if (m)
                    setenv("LD_PRELOAD", lib, 1);
                if (m >= 2) {
                    setenv("CUTAP_TRACE", dir, 1);
                    setenv("BENCH_CUINIT", "1", 1);
                }
                if (m == 3)
                    setenv("CUTAP_ENV", "0", 1);
                execl("/proc/self/exe", argv[0], (char *)NULL);
                _exit(127);
            }
            close(fd[1]);
            FILE *f = fdopen(fd[0], "r");
            for (int k = 0; k < 2; k++)
                if (!f || fscanf(f, "%lf", &v[m][k][c]) != 1)
                    v[m][k][c] = -1;
            if (f)
                fclose(f);
            int st;
            waitpid(pid, &st, 0);
            if (!WIFEXITED(st) || WEXITSTATUS(st)) {
                fprintf(stderr, "getenv: mode %s failed\n", modes[m]);
                return 1;
            }
        }
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd))
        fprintf(stderr, "getenv: could not remove %s\n", dir);
    printf("ns per getenv, median of 3 cycles (best of %d x %ld calls each)\n%-6s %12s %8s %12s %8s\n", ROUNDS, N,
           "mode", "set name", "added", "unset name", "added");
    for (int m = 0; m < 4; m++) {
        double med[2];
        for (int k = 0; k < 2; k++) {
            qsort(v[m][k], 3, sizeof v[m][k][0], cmp);
            med[k] = v[m][k][1];
        }
        static double base[2];
        if (!m)
            base[0] = med[0], base[1] = med[1];
        printf("%-6s %12.2f %+8.2f %12.2f %+8.2f\n", modes[m], med[0], med[0] - base[0], med[1], med[1] - base[1]);
    }
    return 0;
}
