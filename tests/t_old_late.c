/* A layer whose library of another major arrives late (the cases
 * old_major_late, _adopt_race, _reenter, _missing). Built like a CUDA 13 program that references
 * cuBLAS weakly: the references bind to libcutap.so's exports (preloaded),
 * with no libcublas loaded until the program opens one.
 *
 * The function: cublasGetFixedPointEmulationMantissaBitCountPointer
 * (13.0: handle, int ** output), which CUDA 12.4's headers do not declare:
 * cutap records it untyped in a libcublas.so.12, whose (made-up) one takes
 * 9 arguments here.
 *
 *   late SO12    call it (13.0's 2 arguments) before any cuBLAS is loaded
 *                (the layer has no library: not made, status 1), then
 *                open SO12 (libcublas.so.12, the function of 9 arguments)
 *                and call it through dlsym and through the reference, the
 *                13.0 output pointer's register holding an unmapped
 *                address: one id with typed and untyped calls.
 *   race SO12 N  N threads call it with 9 arguments through the
 *                reference while the main thread opens SO12: every call
 *                made reaches the library with exactly the caller's 9
 *                words (a call that took the typed path before the layer
 *                was adopted must not be made with 13.0's signature).
 *   reenter      call cublasGetVersion_v2 with no cuBLAS loaded (not
 *                made, status 1; cutap must not load one: the program
 *                did not), say whether a libcublas is mapped, then open
 *                libcublas.so.13 (a minimal one on LD_LIBRARY_PATH) whose
 *                constructor calls cublasGetVersion_v2 through the
 *                global scope: the layer is adopted from inside the
 *                loader, and that call and the next are made.
 *   missing SO12 open SO12 (no cublasCreate_v2, no cublasGetCudartVersion
 *                in it) and call both through the references: the
 *                layer's status 1 and 0 (no status), recorded.
 *
 *   variant      call cudaMemPrefetchAsync as CUDA 12 declares it (devPtr,
 *                count, int dstDevice, stream) through a weak reference
 *                with no runtime loaded (not made), then open
 *                libcudart.so.12 (the tests' old fake, on LD_LIBRARY_PATH)
 *                and call it again through the same reference: the fake
 *                prints the words it got.
 *
 *   racevariant N  N threads call that cudaMemPrefetchAsync through the
 *                reference while the main thread opens libcudart.so.12:
 *                every call made reaches it with the caller's words whole
 *                (the fake prints them), none through 13.0's signature.
 *
 * Prints "CALL <name>" for each call it makes and "<name> = <status>". */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "dl_util.h"

#define OLD_POISON ((uint64_t)0x18)   /* an address nothing is mapped at */
#define OLD_CALL(n, expr)                                                    \
    do {                                                                     \
        printf("CALL %s\n", n);                                              \
        unsigned r_ = (expr);                                                \
        printf("%s = %u\n", n, r_);                                          \
    } while (0)

unsigned cublasGetFixedPointEmulationMantissaBitCountPointer(void *handle, int **mantissaBitCount) __attribute__((weak));
unsigned cublasGetVersion_v2(void *handle, int *v) __attribute__((weak));
/* CUDA 12's declaration (13.0's differs: the program is a CUDA 12 one) */
unsigned cudaMemPrefetchAsync(const void *devPtr, size_t count, int dstDevice, void *stream) __attribute__((weak));
unsigned cublasCreate_v2(void **handle) __attribute__((weak));
size_t cublasGetCudartVersion(void) __attribute__((weak));

typedef unsigned (*alloc9_t)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
                             uint64_t);
#define ARGS9 0x5a00, OLD_POISON, 0x5a22, 0x5a33, 0x5a44, 0x5a55, 0x5a66, 0x5a77, 0x5a88

static void *open_so(const char *so)
{
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "t_old_late: %s\n", dlerror());
        exit(2);
    }
    return h;
}

static void need(void *p, const char *name)
{
    if (!p) {
        printf("no %s (not under cutap)\n", name);
        exit(3);
    }
}

static atomic_int stop, made, refused, other;

static void *spin(void *arg)
{
    (void)arg;
    alloc9_t f = (alloc9_t)(uintptr_t)cublasGetFixedPointEmulationMantissaBitCountPointer;
    while (!atomic_load(&stop)) {
        unsigned rc = f(ARGS9);
        atomic_fetch_add(rc == 0 ? &made : rc == 1 ? &refused : &other, 1);
    }
    return NULL;
}

static unsigned char *var_buf;

static void *spin_variant(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        unsigned rc = cudaMemPrefetchAsync(var_buf, 0x20, 3, (void *)(uintptr_t)0x123456789abcull);
        atomic_fetch_add(rc == 0 ? &made : rc == 303 ? &refused : &other, 1);
    }
    return NULL;
}

static unsigned char *map_var_buf(void)
{
    unsigned char *b = mmap((void *)(uintptr_t)0x5a5a5a5a0000ull, 4096, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    return b == (void *)(uintptr_t)0x5a5a5a5a0000ull ? b : NULL;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "late") && argc > 2) {
        need((void *)(uintptr_t)cublasGetFixedPointEmulationMantissaBitCountPointer, "cublasGetFixedPointEmulationMantissaBitCountPointer");
        int *p = NULL;
        OLD_CALL("cublasGetFixedPointEmulationMantissaBitCountPointer", cublasGetFixedPointEmulationMantissaBitCountPointer(NULL, &p));
        void *h = open_so(argv[2]);
        alloc9_t f = (alloc9_t)dlsym(h, "cublasGetFixedPointEmulationMantissaBitCountPointer");
        need((void *)(uintptr_t)f, "cublasGetFixedPointEmulationMantissaBitCountPointer in the library");
        OLD_CALL("cublasGetFixedPointEmulationMantissaBitCountPointer", f(ARGS9));
        alloc9_t g = (alloc9_t)(uintptr_t)cublasGetFixedPointEmulationMantissaBitCountPointer;
        OLD_CALL("cublasGetFixedPointEmulationMantissaBitCountPointer", g(ARGS9));
    } else if (!strcmp(mode, "race") && argc > 3) {
        need((void *)(uintptr_t)cublasGetFixedPointEmulationMantissaBitCountPointer, "cublasGetFixedPointEmulationMantissaBitCountPointer");
        int n = atoi(argv[3]);
        pthread_t t[16];
        if (n < 1 || n > 16)
            return 2;
        for (int i = 0; i < n; i++)
            pthread_create(&t[i], NULL, spin, NULL);
        sleep_ms(30);
        void *h = open_so(argv[2]);
        need(dlsym(h, "cublasGetFixedPointEmulationMantissaBitCountPointer"), "cublasGetFixedPointEmulationMantissaBitCountPointer in the library");
        sleep_ms(30);
        atomic_store(&stop, 1);
        for (int i = 0; i < n; i++)
            pthread_join(t[i], NULL);
        printf("race: %d made, %d refused, %d other\n", atomic_load(&made), atomic_load(&refused),
               atomic_load(&other));
    } else if (!strcmp(mode, "variant")) {
        need((void *)(uintptr_t)cudaMemPrefetchAsync, "cudaMemPrefetchAsync");
        unsigned char *buf = map_var_buf();
        if (!buf)
            return 2;
        void *stream = (void *)(uintptr_t)0x123456789abcull;
        OLD_CALL("cudaMemPrefetchAsync", cudaMemPrefetchAsync(buf, 0x20, 3, stream));
        open_so("libcudart.so.12");
        OLD_CALL("cudaMemPrefetchAsync", cudaMemPrefetchAsync(buf, 0x20, 3, stream));
    } else if (!strcmp(mode, "racevariant") && argc > 2) {
        need((void *)(uintptr_t)cudaMemPrefetchAsync, "cudaMemPrefetchAsync");
        int n = atoi(argv[2]);
        pthread_t t[16];
        if (n < 1 || n > 16 || !(var_buf = map_var_buf()))
            return 2;
        for (int i = 0; i < n; i++)
            pthread_create(&t[i], NULL, spin_variant, NULL);
        sleep_ms(30);
        open_so("libcudart.so.12");
        sleep_ms(30);
        atomic_store(&stop, 1);
        for (int i = 0; i < n; i++)
            pthread_join(t[i], NULL);
        printf("race: %d made, %d refused, %d other\n", atomic_load(&made), atomic_load(&refused),
               atomic_load(&other));
    } else if (!strcmp(mode, "reenter")) {
        need((void *)(uintptr_t)cublasGetVersion_v2, "cublasGetVersion_v2");
        int v = -1;
        OLD_CALL("cublasGetVersion_v2", cublasGetVersion_v2(NULL, &v));
        printf("version %d\n", v);
        printf("libcublas mapped: %s\n", mapped("libcublas") ? "yes" : "no");
        fflush(stdout);
        open_so("libcublas.so.13");
        OLD_CALL("cublasGetVersion_v2", cublasGetVersion_v2(NULL, &v));
        printf("version %d\n", v);
    } else if (!strcmp(mode, "missing") && argc > 2) {
        need((void *)(uintptr_t)cublasCreate_v2, "cublasCreate_v2");
        void *h = open_so(argv[2]);
        need(dlsym(h, "cublasGetVersion_v2"), "cublasGetVersion_v2 in the library");
        void *handle = NULL;
        OLD_CALL("cublasCreate_v2", cublasCreate_v2(&handle));
        printf("CALL cublasGetCudartVersion\n");
        printf("cublasGetCudartVersion = %zu\n", cublasGetCudartVersion());
    } else {
        fprintf(stderr, "usage: t_old_late late|race|reenter|missing ...\n");
        return 2;
    }
    printf("done\n");
    return 0;
}
