/* What the GPU benchmarks (bench/gpu/overhead.c, abcall.c) share: an
 * empty kernel's PTX, and checks that end the child with a message
 * naming the program (BENCH_NAME). */
#ifndef CUTAP_BENCH_DRV_H
#define CUTAP_BENCH_DRV_H
#include <dlfcn.h>
#include <stdio.h>

typedef int CUresult;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream;
typedef int CUdevice;

static const char bench_empty_ptx[] =
    ".version 8.0\n.target sm_50\n.address_size 64\n"
    ".visible .entry empty()\n{\n ret;\n}\n";

/* var = dlsym(h, name), or return 1 from the caller */
#define BENCH_SYM(h, var, name)                                           \
    do {                                                                  \
        *(void **)&var = dlsym(h, name);                                  \
        if (!var) {                                                       \
            fprintf(stderr, "%s: %s not found\n", BENCH_NAME, name);      \
            return 1;                                                     \
        }                                                                 \
    } while (0)
/* a driver call that must succeed, or return 1 from the caller */
#define BENCH_CK(call)                                                    \
    do {                                                                  \
        CUresult r_ = (call);                                             \
        if (r_) {                                                         \
            fprintf(stderr, "%s: %s = %d\n", BENCH_NAME, #call, r_);      \
            return 1;                                                     \
        }                                                                 \
    } while (0)

/* The driver, reached as cudart reaches it (dlopen + dlsym), with a
 * context current, an empty kernel and a stream. */
struct bench_drv {
    CUresult (*getcur)(CUcontext *), (*ssync)(CUstream),
        (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void **,
                  void **);
    CUcontext ctx;
    CUfunction fn;
    CUstream st;
};
/* 0, or 1 after a message (the caller returns it) */
static inline int bench_drv_open(struct bench_drv *d)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "%s: %s\n", BENCH_NAME, dlerror());
        return 1;
    }
    CUresult (*init)(unsigned), (*devget)(CUdevice *, int), (*retain)(CUcontext *, CUdevice), (*setcur)(CUcontext),
        (*modload)(CUmodule *, const void *), (*getfn)(CUfunction *, CUmodule, const char *),
        (*screate)(CUstream *, unsigned);
    BENCH_SYM(h, init, "cuInit");
    BENCH_SYM(h, devget, "cuDeviceGet");
    BENCH_SYM(h, retain, "cuDevicePrimaryCtxRetain");
    BENCH_SYM(h, setcur, "cuCtxSetCurrent");
    BENCH_SYM(h, d->getcur, "cuCtxGetCurrent");
    BENCH_SYM(h, modload, "cuModuleLoadData");
    BENCH_SYM(h, getfn, "cuModuleGetFunction");
    BENCH_SYM(h, screate, "cuStreamCreate");
    BENCH_SYM(h, d->ssync, "cuStreamSynchronize");
    BENCH_SYM(h, d->launch, "cuLaunchKernel");
    CUdevice dev;
    CUmodule mod;
    BENCH_CK(init(0));   /* (a CUPTI client injected: the driver loads it here) */
    BENCH_CK(devget(&dev, 0));
    BENCH_CK(retain(&d->ctx, dev));
    BENCH_CK(setcur(d->ctx));
    BENCH_CK(modload(&mod, bench_empty_ptx));
    BENCH_CK(getfn(&d->fn, mod, "empty"));
    BENCH_CK(screate(&d->st, 1));
    return 0;
}

/* The parent's settings: libcutap.so (CUTAP_LIBRARY), the CUPTI referee
 * (CUTAP_REF_LIB) and this program's path (to run itself as children);
 * 0, or the exit status after a message. */
#include <stdlib.h>
#include <unistd.h>
static inline int bench_parent(const char **lib, const char **ref, char *self, size_t size)
{
    *lib = getenv("CUTAP_LIBRARY");
    *ref = getenv("CUTAP_REF_LIB");
    if (!*lib || !*ref) {
        fprintf(stderr, "%s: set CUTAP_LIBRARY (libcutap.so) and CUTAP_REF_LIB (libcupti_ref.so)\n", BENCH_NAME);
        return 2;
    }
    ssize_t n = readlink("/proc/self/exe", self, size - 1);
    if (n <= 0)
        return 1;
    self[n] = 0;
    return 0;
}
#endif
