/* Cost per call on a real GPU, side by side in one run.
 *
 *   build/gpu/overhead [CYCLES]       (bench/gpu/run.sh builds and runs it)
 *
 * The program runs itself as children, one per mode and cycle: bare (no
 * cutap), pass (libcutap.so preloaded, no client), stat (the counting
 * recorder, what `cutap stat` runs), trace (the full recorder, what `cutap
 * trace` runs) and cupti (the CUPTI callback subscriber of tests/gpu,
 * loaded by the driver through CUDA_INJECTION64_PATH; path in
 * $CUTAP_REF_LIB). Each child reaches the driver the way cudart does
 * (dlopen + dlsym) and times, with CLOCK_MONOTONIC:
 *   - cuCtxGetCurrent: 7 rounds of 1 M calls;
 *   - an empty kernel launch: 7 rounds of 20,000 cuLaunchKernel on a
 *     stream, synchronised every 1,000 launches;
 *   - the CPU an empty launch takes: 7 rounds of 20,000 launches,
 *     synchronised every 100, the CPU time the synchronisations took left
 *     out: of the launching thread (lcpu) and of the whole process (pcpu:
 *     CUPTI's and cutap's own threads too). The wall time of a launch is
 *     paced by the GPU (about 3.2 us an empty kernel on the H100); its CPU
 *     time is what a CPU-bound program pays (issue #31);
 *   - cudaGetDevice of libcudart.so.13, opened RTLD_LOCAL and found with
 *     dlsym as frameworks do (the runtime layer's wrapper under cutap):
 *     7 rounds of 1 M calls;
 * and reports each round's ns per call. The parent takes, per mode, the
 * median over all rounds of all cycles, and prints the table and the cost
 * each mode adds to a bare call. Modes are run in turn, CYCLES times
 * (default 3), so slow drifts of the machine hit every mode alike. GPU
 * activity's modes (issue #31) run with CUTAP_GPUREF_LIB set (below). */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../bench_util.h"
#define BENCH_NAME "overhead"
#include "bench_drv.h"


#define ROUNDS 7
#define NCTX 1000000L
#define NLAUNCH 20000L

static uint64_t cpu_ns(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}


/* One child: prints "ctx <ns> ..." and "launch <ns> ..." on stdout. */
static int child(void)
{
    struct bench_drv D;
    char line[4096];
    if (bench_drv_open(&D))
        return 1;
    CUresult (*getcur)(CUcontext *) = D.getcur, (*ssync)(CUstream) = D.ssync;
    CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                       void **, void **) = D.launch;
    CUcontext ctx = D.ctx, cur = NULL;
    CUfunction fn = D.fn;
    CUstream st = D.st;
    for (long i = 0; i < 1000; i++)   /* warm-up */
        getcur(&cur);
    BENCH_CK(launch(fn, 1, 1, 1, 32, 1, 1, 0, st, NULL, NULL));
    BENCH_CK(ssync(st));
    printf("ctx");
    for (int r = 0; r < ROUNDS; r++) {
        uint64_t a = cutap_now_ns();
        for (long i = 0; i < NCTX; i++)
            getcur(&cur);
        printf(" %.3f", (double)(cutap_now_ns() - a) / NCTX);
    }
    printf("\nlaunch");
    for (int r = 0; r < ROUNDS; r++) {
        uint64_t a = cutap_now_ns();
        for (long i = 0; i < NLAUNCH; i++) {
            if (launch(fn, 1, 1, 1, 32, 1, 1, 0, st, NULL, NULL))
                return 1;
            if (i % 1000 == 999)
                BENCH_CK(ssync(st));
        }
        printf(" %.3f", (double)(cutap_now_ns() - a) / NLAUNCH);
    }
    printf("\nlcpu");
    double pcpu[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        uint64_t t0 = cpu_ns(CLOCK_THREAD_CPUTIME_ID), p0 = cpu_ns(CLOCK_PROCESS_CPUTIME_ID), waited = 0;
        for (long i = 0; i < NLAUNCH; i++) {
            if (launch(fn, 1, 1, 1, 32, 1, 1, 0, st, NULL, NULL))
                return 1;
            if (i % 100 == 99) {
                uint64_t w = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
                BENCH_CK(ssync(st));
                waited += cpu_ns(CLOCK_THREAD_CPUTIME_ID) - w;
            }
        }
        uint64_t t1 = cpu_ns(CLOCK_THREAD_CPUTIME_ID), p1 = cpu_ns(CLOCK_PROCESS_CPUTIME_ID);
        printf(" %.3f", (double)(t1 - t0 - waited) / NLAUNCH);
        pcpu[r] = (double)(p1 - p0 - waited) / NLAUNCH;
    }
    printf("\npcpu");
    for (int r = 0; r < ROUNDS; r++)
        printf(" %.3f", pcpu[r]);
    printf("\n");
    void *rt = dlopen("libcudart.so.13", RTLD_NOW | RTLD_LOCAL);
    int (*getdev)(int *) = rt ? (int (*)(int *))dlsym(rt, "cudaGetDevice") : NULL;
    int d = -1;
    if (!getdev || getdev(&d)) {
        fprintf(stderr, "overhead: no libcudart.so.13 / cudaGetDevice: %s\n", rt ? "call failed" : dlerror());
        return 1;
    }
    printf("rt");
    for (int r = 0; r < ROUNDS; r++) {
        uint64_t a = cutap_now_ns();
        for (long i = 0; i < NCTX; i++)
            getdev(&d);
        printf(" %.3f", (double)(cutap_now_ns() - a) / NCTX);
    }
    printf("\n");
    if (cur != ctx)
        return 1;
    /* whether a CUPTI is in this process (nsys's: the nsys mode's sign
     * that it ran; nsys's own lines come after the program's) */
    FILE *maps = fopen("/proc/self/maps", "r");
    int cupti = 0;
    while (maps && fgets(line, sizeof line, maps))
        cupti |= strstr(line, "libcupti") != NULL;
    if (maps)
        fclose(maps);
    printf("cupti %d\nend\n", cupti);
    return 0;
}

/* trace0: trace with the record pages populated on the calling thread
 * (CUTAP_PREFAULT=0), as before the recorder's helper thread; tsame: the
 * helper on the program's CPUs (CUTAP_PAGES=same, as before issue #27),
 * tidle: there as SCHED_IDLE (CUTAP_PAGES=idle); trace: the default (the
 * helper on the CPUs the program may not use) */
enum { BARE, PASS, STAT, TRACE, TSAME, TIDLE, TRACE0, CUPTI, STAT2, TRACE2, TGPU, TGPUNOAPI, TGPUNOTS, TGPUALLAPI,
       TGPUNONE, TGPUPUSH, TGPUWRAP, GPUREF, GPUREFAPI, GPUREFALL, GPUREFCB, NSYS, NMODES };
static const char *const mode_name[NMODES] = {"bare",  "pass",   "stat",   "trace",  "tsame",
                                              "tidle", "trace0", "cupti",  "stat2",  "trace2",
                                              "tgpu",  "tgpuna", "tgpunt", "tgpuaa", "tgpunn", "tgpups", "tgpuwr", "gpuref",
                                              "gpuapi", "gpuall", "gpucb", "nsys"};
/* stat2, trace2: stat and trace of another build (CUTAP_LIBRARY2, e.g. the
 * commit before a change), side by side; skipped when it is not set.
 * With CUTAP_GPUREF_LIB (build/gpu/libgpu_ref.so), GPU activity's cost
 * (issue #31): tgpu trace --gpu (CUTAP_GPU=1), tgpuna without API records
 * asked for, tgpunt on CUPTI's own clock, tgpuaa with API records asked
 * for by kind, not function by function, tgpunn with neither API records
 * nor external ids, tgpups joined through external ids rather than
 * CUPTI's callbacks (CUTAP_GPU_DIAG=noapi, nots, allapi, "nopush noapi":
 * nothing joined, what CUPTI's kernel activity alone costs under cutap,
 * push: the way before callbacks, and where cutap cannot subscribe);
 * tgpuwr CUPTI given cutap's copies of the driver's export tables, as
 * before (CUTAP_GPU_DIAG=wrapped);
 * tgpuna, tgpunt and tgpuaa are of the external ids' way too;
 * gpuref the bare CUPTI activity referee, gpuapi it with API records of
 * the two launch functions (GPU_REF_API=launch: function by function),
 * gpuall of every call (GPU_REF_API=all: by kind), gpucb it with a
 * callback subscriber on the two launch functions, keeping each launch's
 * correlation id (GPU_REF_API=cb: another way to join kernels to calls). */
static int gpu_mode(int m) { return m >= TGPU && m != NSYS; }
static int ref_mode(int m) { return m == GPUREF || m == GPUREFAPI || m == GPUREFALL || m == GPUREFCB; }
static int tgpu_mode(int m) { return m >= TGPU && m <= TGPUWRAP; }
/* nsys: the child under `nsys profile -t cuda` (CUTAP_NSYS: the nsys
 * binary; skipped when it is not set): nsys's API trace and GPU activity,
 * the anchor of issue #31. nsys turns its capture into a report after the
 * program ends (minutes on the device host, where the import fails): the
 * parent reads until the child's last line, then kills nsys's process
 * group and what it started outside it. */

static int nsys_said;   /* the last nsys run's child had a CUPTI loaded */

/* Runs one child in a mode; appends its rounds to ctx[] and launch[]. */
struct series {
    double v[50 * ROUNDS];
    int n;
};
enum { S_CTX, S_LAUNCH, S_RT, S_LCPU, S_PCPU, NSERIES };
static const char *const series_tag[NSERIES] = {"ctx ", "launch ", "rt ", "lcpu ", "pcpu "};

static int run_mode(const char *self, int m, const char *lib, const char *ref, const char *tmp, struct series *s)
{
    int fd[2];
    nsys_said = 0;
    if (pipe(fd))
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        if (m != BARE && m != CUPTI && !ref_mode(m))
            setenv("LD_PRELOAD", m == STAT2 || m == TRACE2 ? getenv("CUTAP_LIBRARY2") : lib, 1);
        if (m == STAT || m == STAT2)
            setenv("CUTAP_COUNT", tmp, 1);
        if (m == TRACE || m == TSAME || m == TIDLE || m == TRACE0 || m == TRACE2 || tgpu_mode(m))
            setenv("CUTAP_TRACE", tmp, 1);
        if (tgpu_mode(m))
            setenv("CUTAP_GPU", "1", 1);
        if (tgpu_mode(m) && m != TGPU)
            setenv("CUTAP_GPU_DIAG",
                   m == TGPUNOAPI    ? "noapi"
                   : m == TGPUNOTS   ? "nots"
                   : m == TGPUALLAPI ? "allapi"
                   : m == TGPUPUSH   ? "push"
                   : m == TGPUWRAP   ? "wrapped"
                                     : "nopush noapi",
                   1);
        if (ref_mode(m)) {
            unsetenv("LD_PRELOAD");
            setenv("CUDA_INJECTION64_PATH", getenv("CUTAP_GPUREF_LIB"), 1);
            setenv("GPU_REF_DIR", tmp, 1);
            if (m != GPUREF)
                setenv("GPU_REF_API", m == GPUREFALL ? "all" : m == GPUREFCB ? "cb" : "launch", 1);
        }
        if (m == TRACE0)
            setenv("CUTAP_PREFAULT", "0", 1);
        if (m == NSYS) {
            char out[4200];
            snprintf(out, sizeof out, "%s/n", tmp);
            setpgid(0, 0);
            setenv("OVERHEAD_CHILD", "1", 1);
            const char *nsys = getenv("CUTAP_NSYS");
            execl(nsys, nsys, "profile", "-t", "cuda", "-o", out, self, (char *)NULL);
            _exit(127);
        }
        if (m == TSAME || m == TIDLE)
            setenv("CUTAP_PAGES", m == TSAME ? "same" : "idle", 1);
        if (m == CUPTI) {
            setenv("CUDA_INJECTION64_PATH", ref, 1);
            setenv("CUTAP_REF_MARK", tmp, 1);   /* the referee says it was loaded */
        }
        setenv("OVERHEAD_CHILD", "1", 1);
        execl(self, self, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    FILE *f = fdopen(fd[0], "r");
    char line[4096];
    while (f && fgets(line, sizeof line, f)) {
        if (!strcmp(line, "end\n"))
            break;
        struct series *dst = NULL;
        for (int k = 0; k < NSERIES && !dst; k++)
            if (!strncmp(line, series_tag[k], strlen(series_tag[k])))
                dst = &s[k];
        if (!dst && m == NSYS && !strcmp(line, "cupti 1\n"))
            nsys_said = 1;   /* nsys's CUPTI was in the child: it ran it */
        if (!dst)
            continue;
        char *p = strchr(line, ' ');
        while (p && *p) {
            char *end;
            double v = strtod(p, &end);
            if (end == p)
                break;
            if (dst->n < 50 * ROUNDS)
                dst->v[dst->n++] = v;
            p = end;
        }
    }
    int st, nsys_ok = 0;
    if (m == NSYS) {   /* the child's last line came: nsys's report is not waited for */
        nsys_ok = !strcmp(line, "end\n");
        kill(-pid, SIGKILL);
        if (system("pkill -KILL -f QdstrmImporter; pkill -KILL -f nsys; sleep 2")) {
            /* (nothing left to kill) */
        }
    }
    if (f)
        fclose(f);
    waitpid(pid, &st, 0);
    if (m == NSYS)
        return nsys_ok ? 0 : -1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* OVERHEAD_MODES: the modes to run, by name, space-separated (bare is
 * always run: the others are measured against it); default all */
static int mode_wanted(int m)
{
    const char *w = getenv("OVERHEAD_MODES");
    if (!w || !*w || m == BARE)
        return 1;
    size_t n = strlen(mode_name[m]);
    for (const char *p = w; (p = strstr(p, mode_name[m])); p += n)
        if ((p == w || p[-1] == ' ') && (p[n] == 0 || p[n] == ' '))
            return 1;
    return 0;
}

/* Whether the mode really ran: a trace file (stat, trace) or the
 * referee's mark (cupti) in its directory. A preload or an injection
 * that silently failed would otherwise read as no cost at all. */
static int mode_took_effect(int m, const char *tmp)
{
    if (m == BARE || m == PASS)
        return 1;
    if (m == NSYS)
        return nsys_said;
    const char *want = m == CUPTI                                      ? "injected."
                       : ref_mode(m)                                    ? "gpu."
                       : m == NSYS                                       ? "n."
                                                                         : NULL;
    DIR *d = opendir(tmp);
    int found = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) && !found) {
        size_t n = strlen(e->d_name);
        found = want ? !strncmp(e->d_name, want, strlen(want)) : n > 6 && !strcmp(e->d_name + n - 6, ".cutap");
    }
    if (d)
        closedir(d);
    return found;
}

int main(int argc, char **argv)
{
    if (getenv("OVERHEAD_CHILD"))
        return child();
    int cycles = argc > 1 ? atoi(argv[1]) : 3;
    if (cycles < 1 || cycles > 50) {
        fprintf(stderr, "usage: %s [CYCLES 1..50]\n", argv[0]);
        return 2;
    }
    const char *lib, *ref;
    char self[4096];
    int bad = bench_parent(&lib, &ref, self, sizeof self);
    if (bad)
        return bad;
    static struct series S[NMODES][NSERIES];
    int failed = 0;
    for (int c = 0; c < cycles; c++)
        for (int m = 0; m < NMODES; m++) {
            if ((m == STAT2 || m == TRACE2) && !getenv("CUTAP_LIBRARY2"))
                continue;
            if (gpu_mode(m) && !getenv("CUTAP_GPUREF_LIB"))
                continue;
            if (m == NSYS && !getenv("CUTAP_NSYS"))
                continue;
            if (!mode_wanted(m))
                continue;
            char tmp[] = "/tmp/cutap-overhead.XXXXXX";
            if (!mkdtemp(tmp))
                return 1;
            if (run_mode(self, m, lib, ref, tmp, S[m])) {
                fprintf(stderr, "overhead: mode %s failed in cycle %d\n", mode_name[m], c);
                failed = 1;
            } else if (!mode_took_effect(m, tmp)) {
                fprintf(stderr, "overhead: mode %s left no sign that it ran (cycle %d)\n", mode_name[m], c);
                failed = 1;
            }
            char cmd[256];
            snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
            if (system(cmd))
                fprintf(stderr, "overhead: could not remove %s\n", tmp);
        }
    double mc[NMODES], ml[NMODES], mr[NMODES], mt[NMODES], mp[NMODES];
    int nctx[NMODES];
    for (int m = 0; m < NMODES; m++) {
        nctx[m] = S[m][S_CTX].n;
        mc[m] = median(S[m][S_CTX].v, S[m][S_CTX].n);
        ml[m] = median(S[m][S_LAUNCH].v, S[m][S_LAUNCH].n);
        mr[m] = median(S[m][S_RT].v, S[m][S_RT].n);
        mt[m] = median(S[m][S_LCPU].v, S[m][S_LCPU].n);
        mp[m] = median(S[m][S_PCPU].v, S[m][S_PCPU].n);
    }
    printf("%-6s %14s %10s %14s %10s %14s %10s %8s\n", "mode", "cuCtxGetCurrent", "added", "empty launch", "added",
           "cudaGetDevice", "added", "rounds");
    for (int m = 0; m < NMODES; m++)
        if (nctx[m])
            printf("%-6s %12.2f ns %+8.2f ns %11.1f ns %+8.1f ns %11.2f ns %+8.2f ns %8d\n", mode_name[m], mc[m],
               mc[m] - mc[BARE], ml[m], ml[m] - ml[BARE], mr[m], mr[m] - mr[BARE], nctx[m]);
    printf("%-6s %14s %10s %14s %10s   (CPU an empty launch takes, synchronisations left out)\n", "mode",
           "thread CPU", "added", "process CPU", "added");
    for (int m = 0; m < NMODES; m++)
        if (nctx[m])
            printf("%-6s %11.1f ns %+8.1f ns %11.1f ns %+8.1f ns\n", mode_name[m], mt[m], mt[m] - mt[BARE], mp[m],
                   mp[m] - mp[BARE]);
    double t = mc[TRACE] - mc[BARE], s = mc[STAT] - mc[BARE], cu = mc[CUPTI] - mc[BARE];
    if (t > 0 && s > 0 && nctx[CUPTI])
        printf("cuCtxGetCurrent: CUPTI adds %.1fx what trace adds, %.1fx what stat adds\n", cu / t, cu / s);
    /* issue #13's targets */
    double clk = tsc_read_ns();
    double tr = mr[TRACE] - mr[BARE], cr = mr[CUPTI] - mr[BARE], tl = ml[TRACE] - ml[BARE], cl = ml[CUPTI] - ml[BARE];
    printf("one rdtsc here: %.1f ns\n", clk);
    /* a target of a mode not run (OVERHEAD_MODES) is said so, never judged */
    int has_t = nctx[BARE] && nctx[TRACE], has_c = has_t && nctx[CUPTI], has_s = nctx[BARE] && nctx[STAT];
#define JUDGE(has, ok) (!(has) ? "not measured" : mark(ok))
    printf("targets (issues #13, #27): cuCtxGetCurrent trace <= 2 clock reads + 15 ns (%.1f): %s; trace <= 55 %% of CUPTI: "
           "cuCtxGetCurrent %.0f %% %s, cudaGetDevice %.0f %% %s, empty launch %.0f %% %s%s; stat <= 3 ns per driver "
           "call: %s; <= 5 ns per runtime call: %s\n",
           2 * clk + 15, JUDGE(has_t, t <= 2 * clk + 15), cu > 0 ? 100 * t / cu : 0, JUDGE(has_c, cu > 0 && t <= 0.55 * cu),
           cr > 0 ? 100 * tr / cr : 0, JUDGE(has_c, cr > 0 && tr <= 0.55 * cr), cl > 0 ? 100 * tl / cl : 0,
           JUDGE(has_c, cl > 0 && tl <= 0.55 * cl), !has_c || cl > 0 ? "" : " (launch: CUPTI added nothing measurable)",
           JUDGE(has_s, s <= 3), JUDGE(has_s, mr[STAT] - mr[BARE] <= 5));
#undef JUDGE
    if (nctx[NSYS]) {   /* issue #31's anchor: what nsys adds to each call, against trace and trace --gpu */
        double nc = mc[NSYS] - mc[BARE], nl = ml[NSYS] - ml[BARE], nr = mr[NSYS] - mr[BARE];
        printf("nsys adds: cuCtxGetCurrent %+.1f ns, empty launch %+.1f ns (its thread's CPU %+.1f ns), cudaGetDevice "
               "%+.1f ns\n", nc, nl, mt[NSYS] - mt[BARE], nr);
        if (nctx[TGPU])
            printf("trace --gpu against nsys: cuCtxGetCurrent %+.1f ns, empty launch %+.1f ns (its thread's CPU %+.1f "
                   "ns), cudaGetDevice %+.1f ns\n",
                   mc[TGPU] - mc[NSYS], ml[TGPU] - ml[NSYS], mt[TGPU] - mt[NSYS], mr[TGPU] - mr[NSYS]);
    }
    if (failed)
        printf("SOME MODES FAILED: the table above is not to be trusted\n");
    return failed;
}
