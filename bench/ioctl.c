/* What the ioctl layer costs the calls it does not record, side by side
 * in one run (issue #15: at most 2 ns per non-NVIDIA ioctl).
 *
 *   build/bench/ioctl [N]
 *
 * libcutap.so exports ioctl, close, mmap and munmap (and the opens and
 * dups), so every such call of a traced process passes through it. The
 * program runs itself as children: without cutap, with libcutap.so
 * preloaded and no client, and under the trace recorder (CUTAP_TRACE, as
 * `cutap trace` runs it; nothing of these is recorded: no NVIDIA device
 * file is open). Each child times N calls (default 2 M) of
 *   ioctl(FIONREAD) on a pipe   (the kernel's answer: a few hundred ns),
 *   close(-1)                   (EBADF: the cheapest system call there is),
 *   mmap + munmap of one anonymous page,
 * 7 rounds, median, and, where perf_event_open allows it, the user-space
 * instructions per call (deterministic, unlike the time of a system
 * call). The parent prints the table and the cost added.
 *
 * A second table isolates the wrappers: the same calls answered by
 * build/bench/libnosys.so (no system call), preloaded alone and below
 * libcutap.so, so that the difference is libcutap's pass-through only. */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench_util.h"

enum { OP_IOCTL, OP_CLOSE, OP_MMAP, NOPS };
static const char *const op_names[NOPS] = {"ioctl(pipe, FIONREAD)", "close(-1)", "mmap+munmap (anonymous page)"};

static int child(long n)
{
    int p[2];
    if (pipe(p))
        return 1;
    struct perf_event_attr pa = {.type = PERF_TYPE_HARDWARE, .size = sizeof pa,
                                 .config = PERF_COUNT_HW_INSTRUCTIONS, .exclude_kernel = 1, .exclude_hv = 1};
    int pfd = (int)syscall(SYS_perf_event_open, &pa, 0, -1, -1, 0);
    for (int op = 0; op < NOPS; op++) {
        long m = op == OP_MMAP ? n / 4 : n;
        double r[7], ins = -1;
        for (int k = 0; k < 7; k++) {
            uint64_t i0 = 0, i1 = 0;
            if (pfd >= 0 && read(pfd, &i0, sizeof i0) != sizeof i0)
                pfd = -1;
            uint64_t t0 = cutap_now_ns();
            for (long i = 0; i < m; i++) {
                if (op == OP_IOCTL) {
                    int avail;
                    if (ioctl(p[0], FIONREAD, &avail))
                        return 1;
                } else if (op == OP_CLOSE) {
                    if (!close(-1))
                        return 1;
                } else {
                    void *a = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                    if (a == MAP_FAILED || munmap(a, 4096))
                        return 1;
                }
            }
            uint64_t t1 = cutap_now_ns();
            if (pfd >= 0 && read(pfd, &i1, sizeof i1) == sizeof i1)
                ins = (double)(i1 - i0) / (double)m;
            r[k] = (double)(t1 - t0) / (double)m;
        }
        printf("%.3f %.2f\n", median(r, 7), ins);
    }
    return 0;
}

static int measure(const char *self, const char *preload, const char *mode, long n, double *ns, double *ins)
{
    double v[2 * NOPS];
    if (bench_child(self, preload, mode, n, v, 2 * NOPS))
        return -1;
    for (int op = 0; op < NOPS; op++)
        ns[op] = v[2 * op], ins[op] = v[2 * op + 1];
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 2 && !strcmp(argv[1], "--child"))
        return child(atol(argv[2]));
    long n = argc > 1 ? atol(argv[1]) : 2000000;
    char self[4096], lib[4096];
    if (bench_paths(self, lib, sizeof self))
        return 1;
    char dir[] = "/tmp/cutap-bench-XXXXXX", trace_env[128], rm[160];
    if (!mkdtemp(dir))
        return 1;
    snprintf(trace_env, sizeof trace_env, "CUTAP_TRACE=%s/trace", dir);
    char stub[4096], both[8300];
    snprintf(stub, sizeof stub, "%s", self);
    snprintf(strrchr(stub, '/'), sizeof stub - (size_t)(strrchr(stub, '/') - stub), "/libnosys.so");
    snprintf(both, sizeof both, "%s:%s", lib, stub);
    double b[NOPS], bi[NOPS], p[NOPS], pi[NOPS], t[NOPS], ti[NOPS], sb[NOPS], sbi[NOPS], sp[NOPS], spi[NOPS];
    int bad = measure(self, NULL, NULL, n, b, bi) || measure(self, lib, NULL, n, p, pi) ||
              measure(self, lib, trace_env, n, t, ti);
    int stubbed = access(stub, R_OK) == 0 && !measure(self, stub, NULL, n * 20, sb, sbi) &&
                  !measure(self, both, NULL, n * 20, sp, spi);
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    if (system(rm) || bad) {
        fprintf(stderr, "bench: a run failed\n");
        return 1;
    }
    printf("calls cutap passes on (no NVIDIA device file open), %ld calls x 7 rounds (mmap: n/4), median\n", n);
    printf("%-30s %9s %9s %9s %9s %9s %11s %11s\n", "call", "bare ns", "cutap ns", "added", "trace ns", "added",
           "instr bare", "instr added");
    int met;
    for (int op = 0; op < NOPS; op++) {
        printf("%-30s %9.1f %9.1f %9.2f %9.1f %9.2f %11.1f %11.1f\n", op_names[op], b[op], p[op], p[op] - b[op],
               t[op], t[op] - b[op], bi[op], bi[op] >= 0 ? pi[op] - bi[op] : -1);
    }
    if (stubbed) {
        printf("the same calls answered without a system call (build/bench/libnosys.so below), %ld calls:\n", n * 20);
        printf("%-30s %9s %9s %9s %11s\n", "call", "stub ns", "cutap ns", "added", "instr added");
        for (int op = 0; op < NOPS; op++)
            printf("%-30s %9.2f %9.2f %9.2f %11.1f\n", op_names[op], sb[op], sp[op], sp[op] - sb[op],
                   sbi[op] >= 0 ? spi[op] - sbi[op] : -1);
        met = sp[OP_IOCTL] - sb[OP_IOCTL] <= 2;
    } else {
        met = p[OP_IOCTL] - b[OP_IOCTL] <= 2;   /* within a system call's noise */
    }
    printf("target (issue #15): <= 2 ns added per non-NVIDIA ioctl: %s\n", mark(met));
    return 0;
}
