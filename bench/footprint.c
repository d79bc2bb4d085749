/* The cache lines one intercepted call touches, code and data, per object.
 *
 *   bench/footprint.sh            (runs this program under valgrind lackey)
 *
 * A call costs more inside a program than in a loop (issue #27: 3 to 10
 * times in a PyTorch step) because the program's own work evicts what the
 * call needs between calls. What it needs is its footprint: the distinct
 * 64-byte lines of code it runs and of data it reads or writes. This
 * program warms SYM of LIB up (BENCH_LIB, BENCH_SYM: a function taking one
 * pointer; default cuCtxGetCurrent of libcuda.so.1), then makes one call
 * between two markers and prints the markers' addresses and its mappings;
 * bench/footprint.sh counts the lines lackey saw between the markers. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void footprint_mark(int k)
{
    __asm__ volatile("" : : "r"(k) : "memory");
}

int main(void)
{
    const char *lib = getenv("BENCH_LIB") ? getenv("BENCH_LIB") : "libcuda.so.1";
    const char *sym = getenv("BENCH_SYM") ? getenv("BENCH_SYM") : "cuCtxGetCurrent";
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    int (*fn)(void *) = h ? (int (*)(void *))dlsym(h, sym) : NULL;
    if (!fn) {
        fprintf(stderr, "footprint: no %s in %s\n", sym, lib);
        return 1;
    }
    static char out[64];
    for (int i = 0; i < 2000; i++)
        fn(out);
    footprint_mark(1);
    fn(out);
    footprint_mark(2);
    printf("MARK %lx\n", (unsigned long)(void *)footprint_mark);
    FILE *m = fopen("/proc/self/maps", "r");
    char line[512];
    while (m && fgets(line, sizeof line, m))
        printf("MAP %s", line);
    if (m)
        fclose(m);
    return 0;
}
