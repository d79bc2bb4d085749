/* A minimal cuBLAS, built as libcublas.so.13 (-DPINNED) and as
 * libcublas.so.12 (tests/tests.mk), for tests/t_old_late.c: only the
 * functions named here, no others (a function of 13.0 missing from the
 * object a layer is bound to).
 *
 * cublasGetFixedPointEmulationMantissaBitCountPointer takes 9 arguments in
 * the .so.12 build (13.0 declares 2; 12.4's headers, none) and prints them
 * all; cublasGetVersion_v2 writes 12 or 13. The .so.13
 * build's constructor calls cublasGetVersion_v2 through the global scope
 * (cutap's export, preloaded), while cutap is still adopting the layer
 * for the program's first call: that call must be recorded, not made. */
#include <stdint.h>
#include <stdio.h>

#define EXPORT __attribute__((visibility("default")))

#ifdef PINNED
EXPORT unsigned cublasGetVersion_v2(void *handle, int *v);
EXPORT unsigned cublasGetVersion_v2(void *handle, int *v)
{
    (void)handle;
    if (v)
        *v = 13;
    return 0;
}

EXPORT unsigned cublasGetFixedPointEmulationMantissaBitCountPointer(void *handle, int **m);
EXPORT unsigned cublasGetFixedPointEmulationMantissaBitCountPointer(void *handle, int **m)
{
    printf("min13 cublasGetFixedPointEmulationMantissaBitCountPointer: %p\n", handle);
    if (m)
        *m = (int *)(uintptr_t)0xa110c;
    return 0;
}

__attribute__((constructor)) static void reenter(void)
{
    int v = -1;
    /* the global scope: cutap's front */
    unsigned rc = cublasGetVersion_v2(NULL, &v);
    printf("min13 constructor: cublasGetVersion_v2 = %u\n", rc);
    fflush(stdout);
}
#else
EXPORT unsigned cublasGetVersion_v2(void *handle, int *v);
EXPORT unsigned cublasGetVersion_v2(void *handle, int *v)
{
    (void)handle;
    if (v)
        *v = 12;
    return 0;
}

EXPORT unsigned cublasGetFixedPointEmulationMantissaBitCountPointer(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
                                                         uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8);
EXPORT unsigned cublasGetFixedPointEmulationMantissaBitCountPointer(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
                                                         uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8)
{
    printf("min12 cublasGetFixedPointEmulationMantissaBitCountPointer: %llx %llx %llx %llx %llx %llx %llx %llx %llx\n", (unsigned long long)a0,
           (unsigned long long)a1, (unsigned long long)a2, (unsigned long long)a3, (unsigned long long)a4,
           (unsigned long long)a5, (unsigned long long)a6, (unsigned long long)a7, (unsigned long long)a8);
    return 0;
}
#endif
