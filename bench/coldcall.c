/* What a recorded call adds when the program's own work between calls
 * has cooled the caches, inside one process (issue #27), on any driver.
 *
 *   build/bench/coldcall [PAIRS]          (make bench-cold)
 *
 * In a PyTorch step cutap's calls cost 3 to 10 times what they cost in a
 * loop: between two calls the framework runs its own code and touches its
 * own data, so the lines of code and data a call needs (bench/footprint.sh)
 * are no longer in the nearest caches. This program measures that cost
 * where no GPU is needed. Each child runs under cutap (stat, then trace)
 * and alternates windows with the recording client off (cutap_enable(0,
 * CUTAP_ID_ALL, 0): the pass-through) and on, ABBA, PAIRS times (default
 * 60). A window makes 2,000 calls of SYM of LIB (BENCH_LIB, BENCH_SYM: a
 * function taking one pointer; default cuCtxGetCurrent of libcuda.so.1),
 * and after each call the same work in both ways:
 *   warm   none;
 *   cold   COLD_CODE_KB (default 16) of code run, a window that moves on
 *          through COLD_CODE_SPAN_KB (default 2048) of code (one jump per
 *          64-byte line), and COLD_DATA_KB (default 16) of data read and
 *          written, a window that moves on through COLD_DATA_SPAN_KB
 *          (default 4096, a power of 2): about a framework's work between
 *          two CUDA calls in a CPU-bound step (1 to 2 us).
 * The added cost per call is on - off of each pair; the parent prints its
 * median over the pairs with the 95 % interval of the median, per client
 * and warmth, and the ratio cold/warm. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench_util.h"

#define CALLS 2000
#define MAXP 1000
static unsigned char *dbuf, *code;
static size_t dlines, clines, dat, cat_, CODE_BYTES, DATA_BYTES;

/* Code: 64-byte blocks, each a short jump to the next, every clines-th a
 * return: calling a window's first block runs one instruction per line. */
static int make_code(void)
{
    code = mmap(NULL, CODE_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code == MAP_FAILED)
        return -1;
    size_t nb = CODE_BYTES / 64;
    for (size_t j = 0; j < nb; j++) {
        unsigned char *b = code + j * 64;
        memset(b, 0xCC, 64);
        if ((j + 1) % clines == 0 || j + 1 == nb)
            b[0] = 0xC3;   /* ret */
        else
            b[0] = 0xEB, b[1] = 62;   /* jmp +62: the next block */
    }
    return mprotect(code, CODE_BYTES, PROT_READ | PROT_EXEC);
}

static void work(void)
{
    for (size_t k = 0; k < dlines; k++, dat = (dat + 64) & (DATA_BYTES - 1))
        dbuf[dat]++;
    if (clines) {
        ((void (*)(void))(code + cat_ * 64))();
        cat_ += clines;
        if ((cat_ + clines) * 64 > CODE_BYTES)
            cat_ = 0;
    }
}

static int (*fn)(void *);
static double window(int cold)
{
    static char out[64];
    uint64_t a = cutap_now_ns();
    if (cold)
        for (int i = 0; i < CALLS; i++)
            fn(out), work();
    else
        for (int i = 0; i < CALLS; i++)
            fn(out);
    return (double)(cutap_now_ns() - a) / CALLS;
}

static int child(int pairs)
{
    const char *lib = getenv("BENCH_LIB") ? getenv("BENCH_LIB") : "libcuda.so.1";
    const char *sym = getenv("BENCH_SYM") ? getenv("BENCH_SYM") : "cuCtxGetCurrent";
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    fn = h ? (int (*)(void *))dlsym(h, sym) : NULL;
    int (*en)(int, uint32_t, int) = (int (*)(int, uint32_t, int))dlsym(RTLD_DEFAULT, "cutap_enable");
    if (!fn || !en) {
        fprintf(stderr, "coldcall: no %s in %s, or not under cutap\n", sym, lib);
        return 1;
    }
    const char *ck = getenv("COLD_CODE_KB"), *dk = getenv("COLD_DATA_KB");
    const char *cs = getenv("COLD_CODE_SPAN_KB"), *ds = getenv("COLD_DATA_SPAN_KB");
    clines = (size_t)(ck ? atol(ck) : 16) * 1024 / 64;
    dlines = (size_t)(dk ? atol(dk) : 16) * 1024 / 64;
    CODE_BYTES = (size_t)(cs ? atol(cs) : 2048) * 1024;
    DATA_BYTES = (size_t)(ds ? atol(ds) : 4096) * 1024;
    if ((DATA_BYTES & (DATA_BYTES - 1)) || CODE_BYTES < 4096) {
        fprintf(stderr, "coldcall: COLD_DATA_SPAN_KB must be a power of 2, COLD_CODE_SPAN_KB at least 4\n");
        return 1;
    }
    if (clines * 64 > CODE_BYTES / 2 || dlines * 64 > DATA_BYTES / 2 || !(dbuf = calloc(DATA_BYTES, 1)) ||
        (clines && make_code())) {
        fprintf(stderr, "coldcall: cannot set up the work\n");
        return 1;
    }
    for (int i = 0; i < 3; i++)
        window(1), window(0);
    for (int p = 0; p < pairs; p++) {
        double v[2][2];   /* cold, on */
        for (int cold = 0; cold < 2; cold++)
            for (int k = 0; k < 2; k++) {
                int on = (p & 1) ? 1 - k : k;   /* ABBA */
                if (en(0, 0xFFFFFFFFu, on))
                    return 1;
                v[cold][on] = window(cold);
            }
        printf("pair %d %.3f %.3f %.3f %.3f\n", p, v[0][0], v[0][1], v[1][0], v[1][1]);
    }
    en(0, 0xFFFFFFFFu, 1);
    return 0;
}

int main(int argc, char **argv)
{
    int pairs = argc > 1 ? atoi(argv[1]) : 60;
    if (getenv("COLDCALL_CHILD"))
        return child(pairs);
    if (pairs < 4 || pairs > MAXP) {
        fprintf(stderr, "usage: %s [PAIRS 4..%d]\n", argv[0], MAXP);
        return 2;
    }
    char self[4096], lib[4096];
    if (bench_paths(self, lib, sizeof self))
        return 1;
    static const char *const clients[2] = {"stat", "trace"};
    static double add[2][MAXP], base[2][MAXP];
    printf("added per call, warm and with the program's work between calls (%s KB code, %s KB data), median of "
           "%d pairs (95 %% interval)\n",
           getenv("COLD_CODE_KB") ? getenv("COLD_CODE_KB") : "16", getenv("COLD_DATA_KB") ? getenv("COLD_DATA_KB") : "16",
           pairs);
    printf("%-6s %26s %26s %8s %12s\n", "client", "warm", "cold", "ratio", "cold off ns");
    int failed = 0;
    for (int c = 0; c < 2; c++) {
        char tmp[] = "/tmp/cutap-coldcall.XXXXXX", cmd[8400];
        if (!mkdtemp(tmp))
            return 1;
        snprintf(cmd, sizeof cmd, "env COLDCALL_CHILD=1 LD_PRELOAD=%s %s=%s %s %d", lib, c ? "CUTAP_TRACE" : "CUTAP_COUNT",
                 tmp, self, pairs);
        FILE *f = popen(cmd, "r");
        char line[512];
        int n = 0;
        while (f && fgets(line, sizeof line, f)) {
            double v[4];
            if (sscanf(line, "pair %*d %lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3]) == 4 && n < MAXP) {
                add[0][n] = v[1] - v[0], add[1][n] = v[3] - v[2], base[0][n] = v[2];
                n++;
            }
        }
        if (!f || pclose(f) != 0 || n != pairs) {
            fprintf(stderr, "coldcall: %s child failed (%d of %d pairs)\n", clients[c], n, pairs);
            failed = 1;
        }
        snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
        if (system(cmd))
            fprintf(stderr, "coldcall: could not remove %s\n", tmp);
        if (!n)
            continue;
        double m[2], lo[2], hi[2], b, bl, bh;
        for (int w = 0; w < 2; w++)
            med_ci(add[w], n, &m[w], &lo[w], &hi[w]);
        med_ci(base[0], n, &b, &bl, &bh);
        printf("%-6s %+8.2f ns (%+6.2f..%+6.2f) %+8.2f ns (%+6.2f..%+6.2f) %8.1f %12.1f\n", clients[c], m[0], lo[0],
               hi[0], m[1], lo[1], hi[1], m[0] > 0 ? m[1] / m[0] : 0, b);
    }
    return failed;
}
