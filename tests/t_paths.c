/* End-to-end program for every way a call reaches the driver. It checks the
 * results it gets, checks with the fake driver that each call really ran,
 * and prints "CALL <exported name>" for every driver call it makes, so the
 * runner can compare that with what cutap recorded.
 *
 *   t_paths plt                    direct calls through the PLT
 *   t_paths dlopen LIB local|global   dlopen(LIB) + dlsym
 *   t_paths dlvsym                 dlopen + dlvsym
 *   t_paths reopen                 dlopen, dlclose, dlopen again
 *   t_paths procaddr               cuGetProcAddress(_v2): versions, flags, errors
 *   t_paths future                 entry points cutap's tables do not know
 *   t_paths hidden                 calls through cuGetExportTable tables
 *   t_paths nested                 a driver call that makes a driver call
 *   t_paths exec                   cuInit, then exec "t_paths plt"
 * With EXPECT_CUTAP=1 it also checks that pointers it got are cutap's.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuda_min.h"
#include "../src/common/integrity_hash.h"
#include "dl_util.h"
#include "fake/fake_internal.h"

static int failures;
static int expect_cutap;
#define CHECK(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static void called(const char *name) { printf("CALL %s\n", name); }

/* The call really reached the driver exactly once more. */
#define RAN(name, before) CHECK(fake_count_name(name) == (before) + 1, "%s did not run in the driver", name)

static const char *symname(void *p);
int main(int argc, char **argv);
static const char *symname(void *p)
{
    Dl_info i;
    return p && dladdr(p, &i) && i.dli_sname ? i.dli_sname : "?";
}

/* Under cutap a driver pointer must be cutap's wrapper. One exception: a
 * non-PIE program that calls name directly owns the canonical address of
 * that function (its PLT entry), and every address of it in the process,
 * cutap's included, is that one; the PLT entry leads to cutap's wrapper. */
static void check_wrapped(void *p, const char *name)
{
    if (!expect_cutap)
        return;
    void *canonical = dlsym(RTLD_DEFAULT, name);
    int ok = !strcmp(object_of(p), "libcutap.so") ||
             (p == canonical && !strcmp(object_of(p), object_of((void *)main)) && !strcmp(symname(p), name));
    CHECK(ok, "%s: pointer %p is in %s, not libcutap.so", name, p, object_of(p));
}

struct api {
    CUresult (*init)(unsigned);
    CUresult (*version)(int *);
    CUresult (*count)(int *);
    CUresult (*ctx)(CUcontext *);
    CUresult (*alloc)(CUdeviceptr *, size_t);
    CUresult (*free_)(CUdeviceptr);
    CUresult (*errname)(CUresult, const char **);
};

/* The same sequence whatever the path: results, NULL outputs, a forced
 * driver error. */
static void exercise(const struct api *a)
{
    uint64_t b;
    b = fake_count_name("cuInit");
    CHECK(a->init(0) == CUDA_SUCCESS, "cuInit");
    called("cuInit"); RAN("cuInit", b);

    int v = 0;
    b = fake_count_name("cuDriverGetVersion");
    CHECK(a->version(&v) == CUDA_SUCCESS && v == 13000, "cuDriverGetVersion gave %d", v);
    called("cuDriverGetVersion"); RAN("cuDriverGetVersion", b);
    CHECK(a->version(NULL) == CUDA_ERROR_INVALID_VALUE, "cuDriverGetVersion(NULL)");
    called("cuDriverGetVersion");

    int n = 0;
    CHECK(a->count(&n) == CUDA_SUCCESS && n == 1, "cuDeviceGetCount");
    called("cuDeviceGetCount");

    CUcontext c = NULL;
    CHECK(a->ctx(&c) == CUDA_SUCCESS && c == (CUcontext)0xc0ffee00, "cuCtxGetCurrent gave %p", c);
    called("cuCtxGetCurrent");
    CHECK(a->ctx(NULL) == CUDA_ERROR_INVALID_VALUE, "cuCtxGetCurrent(NULL)");
    called("cuCtxGetCurrent");

    CUdeviceptr p = 0;
    b = fake_count_name("cuMemAlloc_v2");
    CHECK(a->alloc(&p, 4096) == CUDA_SUCCESS && p >= 0x7f0000000000ULL, "cuMemAlloc_v2 gave %llx", (unsigned long long)p);
    called("cuMemAlloc_v2"); RAN("cuMemAlloc_v2", b);
    CHECK(a->alloc(NULL, 8) == CUDA_ERROR_INVALID_VALUE, "cuMemAlloc_v2(NULL)");
    called("cuMemAlloc_v2");

    fake_set_result(CUTAP_ID_cuMemFree_v2, 700);   /* CUDA_ERROR_ILLEGAL_ADDRESS */
    CHECK(a->free_(p) == 700, "forced driver error did not reach the caller");
    called("cuMemFree_v2");
    fake_set_result(CUTAP_ID_cuMemFree_v2, 0);

    const char *s = NULL;
    CHECK(a->errname(1, &s) == CUDA_SUCCESS && s && !strcmp(s, "CUDA_ERROR_INVALID_VALUE"), "cuGetErrorName");
    called("cuGetErrorName");
    CHECK(a->errname(1, NULL) == CUDA_ERROR_INVALID_VALUE, "cuGetErrorName(NULL)");
    called("cuGetErrorName");
}

static void *sym(void *h, const char *name)
{
    void *p = dlsym(h, name);
    CHECK(p != NULL, "dlsym %s: %s", name, dlerror());
    check_wrapped(p, name);
    return p;
}

static void api_from(void *h, struct api *a)
{
    a->init = (CUresult (*)(unsigned))sym(h, "cuInit");
    a->version = (CUresult (*)(int *))sym(h, "cuDriverGetVersion");
    a->count = (CUresult (*)(int *))sym(h, "cuDeviceGetCount");
    a->ctx = (CUresult (*)(CUcontext *))sym(h, "cuCtxGetCurrent");
    a->alloc = (CUresult (*)(CUdeviceptr *, size_t))sym(h, "cuMemAlloc_v2");
    a->free_ = (CUresult (*)(CUdeviceptr))sym(h, "cuMemFree_v2");
    a->errname = (CUresult (*)(CUresult, const char **))sym(h, "cuGetErrorName");
}

static void mode_plt(void)
{
    struct api a = {cuInit, cuDriverGetVersion, cuDeviceGetCount, cuCtxGetCurrent, cuMemAlloc_v2, cuMemFree_v2, cuGetErrorName};
    exercise(&a);
}

static void mode_dlopen(const char *lib, const char *scope)
{
    void *h = dlopen(lib, RTLD_NOW | (scope && !strcmp(scope, "global") ? RTLD_GLOBAL : RTLD_LOCAL));
    CHECK(h != NULL, "dlopen %s: %s", lib, dlerror());
    if (!h)
        return;
    struct api a;
    api_from(h, &a);
    exercise(&a);
}

/* dlvsym: driver names on a handle are resolved like dlsym (the fake has
 * no symbol versions, so any version fails there, with and without cutap;
 * t_dlonly checks a versioned driver); other names go to glibc unchanged. */
static void mode_dlvsym(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    CHECK(dlvsym(h, "cuInit", "NO_SUCH_VERSION") == NULL, "dlvsym with a version the driver lacks");
    CHECK(dlerror() != NULL, "dlerror after a failed dlvsym");
    void *pf = dlvsym(RTLD_DEFAULT, "printf", "GLIBC_2.2.5");
    CHECK(pf == dlsym(RTLD_DEFAULT, "printf") && pf != NULL, "dlvsym of a libc function");
    CHECK(dlvsym(RTLD_NEXT, "printf", "GLIBC_2.2.5") == pf, "dlvsym RTLD_NEXT of a libc function");
}

static void mode_reopen(void)
{
    for (int round = 0; round < 3; round++) {
        void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        CHECK(h != NULL, "dlopen round %d", round);
        CUresult (*ver)(int *) = (CUresult (*)(int *))sym(h, "cuDriverGetVersion");
        int v = 0;
        CHECK(ver && ver(&v) == 0 && v == 13000, "round %d", round);
        called("cuDriverGetVersion");
        CHECK(dlclose(h) == 0, "dlclose");
        /* A pointer taken before dlclose still works: cutap keeps the
         * driver loaded (its own reference) and its wrappers stay valid. */
        if (expect_cutap && ver) {
            CHECK(ver(&v) == 0, "old pointer after dlclose");
            called("cuDriverGetVersion");
        }
    }
}

static void mode_procaddr(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    CUresult (*gpa)(const char *, void **, int, uint64_t, int *) =
        (CUresult (*)(const char *, void **, int, uint64_t, int *))sym(h, "cuGetProcAddress_v2");
    if (!gpa)
        return;
    /* Every entry of the driver's version table, plain and per-thread: the
     * caller gets (the wrapper of) exactly the variant the driver chose. */
    unsigned checked = 0;
    for (unsigned i = 0; i < fake_procaddr_count; i++) {
        const struct fake_procaddr *e = &fake_procaddr_table[i];
        void *p = NULL;
        int st = -1;
        CUresult r = gpa(e->base, &p, e->version, e->flavour ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM : 0, &st);
        called("cuGetProcAddress_v2");
        CHECK(r == 0 && st == 0 && p, "%s@%d: r=%d st=%d", e->base, e->version, r, st);
        CHECK(!strcmp(symname(p), e->export_name), "%s@%d flags %d: got %s, want %s", e->base, e->version,
              e->flavour, symname(p), e->export_name);
        check_wrapped(p, e->export_name);
        checked++;
    }
    printf("procaddr: %u table entries checked\n", checked);

    struct { const char *sym; int ver; uint64_t flags; const char *want; } cases[] = {
        {"cuMemcpyHtoD", 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "cuMemcpyHtoD_v2_ptds"},
        {"cuMemcpyHtoD", 12000, 0, "cuMemcpyHtoD_v2"},
        {"cuMemcpyHtoD", 12000, CU_GET_PROC_ADDRESS_LEGACY_STREAM, "cuMemcpyHtoD_v2"},
        {"cuMemcpyHtoD", 2000, 0, "cuMemcpyHtoD"},
        {"cuMemcpyHtoD", 3020, 0, "cuMemcpyHtoD_v2"},
        {"cuLaunchKernel", 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "cuLaunchKernel_ptsz"},
        {"cuMemAlloc", 13000, 0, "cuMemAlloc_v2"},
        {"cuGetProcAddress", 12000, 0, "cuGetProcAddress_v2"},
        {"cuGetProcAddress", 11030, 0, "cuGetProcAddress"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        void *p = NULL;
        int st = -1;
        CUresult r = gpa(cases[i].sym, &p, cases[i].ver, cases[i].flags, &st);
        called("cuGetProcAddress_v2");
        CHECK(r == 0 && !strcmp(symname(p), cases[i].want), "%s@%d/%llu: got %s, want %s", cases[i].sym,
              cases[i].ver, (unsigned long long)cases[i].flags, symname(p), cases[i].want);
        check_wrapped(p, cases[i].want);
    }
    /* Errors and NULLs pass through unchanged. */
    void *p = (void *)1;
    int st = -1;
    CHECK(gpa("cuMemAlloc", &p, 1000, 0, &st) == CUDA_ERROR_NOT_FOUND && p == NULL && st == 2, "version too low: st=%d", st);
    called("cuGetProcAddress_v2");
    p = (void *)1;
    CHECK(gpa("cuNoSuchFunction", &p, 13000, 0, &st) == CUDA_ERROR_NOT_FOUND && p == NULL && st == 1, "unknown symbol");
    called("cuGetProcAddress_v2");
    CHECK(gpa("", &p, 13000, 0, &st) == CUDA_ERROR_NOT_FOUND && p == NULL, "empty symbol");
    called("cuGetProcAddress_v2");
    CHECK(gpa("cuInit", NULL, 13000, 0, &st) == CUDA_ERROR_INVALID_VALUE, "NULL pfn");
    called("cuGetProcAddress_v2");
    CHECK(gpa(NULL, &p, 13000, 0, NULL) == CUDA_ERROR_INVALID_VALUE, "NULL symbol");
    called("cuGetProcAddress_v2");
    CHECK(gpa("cuInit", &p, 13000, 0, NULL) == 0 && p, "NULL symbolStatus");
    called("cuGetProcAddress_v2");

    /* The legacy entry point, and calls through what it returns. */
    CUresult (*gpa1)(const char *, void **, int, uint64_t) =
        (CUresult (*)(const char *, void **, int, uint64_t))sym(h, "cuGetProcAddress");
    CUresult (*ctx)(CUcontext *) = NULL;
    CHECK(gpa1 && gpa1("cuCtxGetCurrent", (void **)&ctx, 4000, 0) == 0, "legacy cuGetProcAddress");
    called("cuGetProcAddress");
    CHECK(!strcmp(symname((void *)ctx), "cuCtxGetCurrent"), "legacy gave %s", symname((void *)ctx));
    check_wrapped((void *)ctx, "cuCtxGetCurrent");
    CUcontext c = NULL;
    uint64_t b = fake_count_name("cuCtxGetCurrent");
    CHECK(ctx && ctx(&c) == 0 && c == (CUcontext)0xc0ffee00, "call through cuGetProcAddress pointer");
    called("cuCtxGetCurrent"); RAN("cuCtxGetCurrent", b);
}

typedef uint64_t (*untyped_fn)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, double, double);
int cuMemGetAttribute(FAKE_UNTYPED_PARAMS);

/* The 10 words the driver must see: 8 integers (2 on the stack), 2 doubles. */
static void check_untyped_args(const char *what, uint32_t want_id)
{
    uint32_t id;
    uint64_t a[16];
    unsigned n = fake_last(&id, a);
    CHECK(id == want_id && n == 10, "%s: driver saw id %u n %u", what, id, n);
    for (unsigned i = 0; i < 8 && n == 10; i++)
        CHECK(a[i] == 0x1111111111111111ULL * (i + 1), "%s: argument %u is %llx", what, i, (unsigned long long)a[i]);
    CHECK(n == 10 && a[8] == fake_d2w(2.5) && a[9] == fake_d2w(-0.75), "%s: double arguments", what);
    CHECK(fake_last_stack_aligned(), "%s: misaligned stack in the driver", what);
}

#define U8ARGS 0x1111111111111111ULL, 0x2222222222222222ULL, 0x3333333333333333ULL, 0x4444444444444444ULL, \
               0x5555555555555555ULL, 0x6666666666666666ULL, 0x7777777777777777ULL, 0x8888888888888888ULL, 2.5, -0.75

static void mode_future(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    untyped_fn f = (untyped_fn)dlsym(h, "cuFutureFunction");
    CHECK(f != NULL, "dlsym cuFutureFunction");
    if (!f)
        return;
    if (expect_cutap)
        CHECK((void *)f != fake_real_address("cuFutureFunction"), "cuFutureFunction was not given a trampoline");
    uint64_t r = f(U8ARGS);
    called("cuFutureFunction");
    CHECK(r == 0x1111111111111111ULL * 3 + 0x8888888888888888ULL + 0, "cuFutureFunction returned %llx", (unsigned long long)r);
    check_untyped_args("cuFutureFunction", FAKE_ID_FUTURE);

    CUresult (*gpa)(const char *, void **, int, uint64_t, int *) =
        (CUresult (*)(const char *, void **, int, uint64_t, int *))dlsym(h, "cuGetProcAddress_v2");
    void *p = NULL;
    int st;
    CHECK(gpa("cuFutureFunction", &p, 13010, 0, &st) == 0 && p == (void *)f, "cuGetProcAddress(cuFutureFunction) gave %p, dlsym %p", p, (void *)f);
    called("cuGetProcAddress_v2");
    CHECK(gpa("cuFutureFunction", &p, 13000, 0, &st) == CUDA_ERROR_NOT_FOUND && st == 2, "cuFutureFunction at 13000");
    called("cuGetProcAddress_v2");

    /* An export no header declares: linked directly, and through dlsym. */
    int r2 = cuMemGetAttribute(U8ARGS);
    called("cuMemGetAttribute");
    CHECK(r2 == (int)(uint32_t)(0x1111111111111111ULL ^ 0x8888888888888888ULL), "cuMemGetAttribute returned %d", r2);
    check_untyped_args("cuMemGetAttribute", CUTAP_ID_cuMemGetAttribute);
    untyped_fn g = (untyped_fn)dlsym(h, "cuMemGetAttribute_v2");
    check_wrapped((void *)g, "cuMemGetAttribute_v2");
    CHECK(g && (int)g(U8ARGS) == r2, "cuMemGetAttribute_v2");
    called("cuMemGetAttribute_v2");
    check_untyped_args("cuMemGetAttribute_v2", CUTAP_ID_cuMemGetAttribute_v2);
}

static void mode_hidden(void)
{
    static const unsigned char sized[16] = {0xfa, 0x4e, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01};
    static const unsigned char nosize[16] = {0xfa, 0x4e, 0x00, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02};
    static const unsigned char cudart[16] = {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9};
    static const unsigned char unknown[16] = {1, 2, 3};
    const uintptr_t *t = NULL;
    CHECK(cuGetExportTable((const void **)&t, sized) == 0 && t && t[0] == 32, "sized table");
    called("cuGetExportTable");
    if (!t)
        return;
    const uintptr_t *t2 = NULL;
    CHECK(cuGetExportTable((const void **)&t2, sized) == 0 && t2 == t, "the same table twice");
    called("cuGetExportTable");
    CHECK(((int (*)(int))t[1])(41) == 42, "slot 1");
    printf("CALL FAKE_SIZED#1\n");
    uint64_t r = ((uint64_t (*)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, double, double))t[2])(U8ARGS);
    printf("CALL FAKE_SIZED#2\n");
    CHECK(r == 0x1111111111111111ULL * 36 + (uint64_t)(int64_t)(2.5 * -0.75), "slot 2 returned %llx", (unsigned long long)r);
    check_untyped_args("FAKE_SIZED#2", FAKE_ID_SLOT_BASE + 1);
    CHECK(((double (*)(double))t[3])(1.25) == 2.5, "slot 3 (double in, double out)");
    printf("CALL FAKE_SIZED#3\n");

    const uintptr_t *n = NULL;
    CHECK(cuGetExportTable((const void **)&n, nosize) == 0 && n, "table without size word");
    called("cuGetExportTable");
    CHECK(n && ((int (*)(int))n[0])(21) == 42, "no-size slot 0");
    printf("CALL FAKE_NOSIZE#0\n");
    CHECK(n && ((int (*)(void))n[1])() == 11, "no-size slot 1");
    printf("CALL FAKE_NOSIZE#1\n");

    const uintptr_t *c = NULL;
    CHECK(cuGetExportTable((const void **)&c, cudart) == 0 && c && ((int (*)(int))c[1])(1) == 2, "CUDART_INTERFACE table");
    called("cuGetExportTable");
    /* wrapped by default where cutap matched the driver's integrity answer */
    int wrapped = c && c != fake_export_table(cudart);
    CHECK(!getenv("EXPECT_WRAPPED_CUDART") || !expect_cutap || wrapped, "CUDART_INTERFACE wrapped");
    if (wrapped)
        printf("CALL CUDART_INTERFACE#1\n");

    /* The runtime's integrity check, as the real runtime makes it: the
     * driver's answer must be the hash of the tables this program holds
     * (copies, when cutap wraps them), else a runtime refuses them (error
     * 103). */
    static const unsigned char integrity[16] = {0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b,
                                                0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2};
    const uintptr_t *ic = NULL;
    CHECK(cuGetExportTable((const void **)&ic, integrity) == 0 && ic && ic[0] == 24, "INTEGRITY_CHECK table");
    called("cuGetExportTable");
    if (ic && c) {
        uint64_t got[2] = {0, 0}, want[2], secs = (uint64_t)time(NULL);
        CHECK(((int (*)(uint32_t, uint64_t, uint64_t *))ic[1])(13002, secs, got) == 0, "integrity_check");
        if (ic != fake_export_table(integrity))
            printf("CALL INTEGRITY_CHECK#1\n");
        int dv = 0, n = 0;
        CHECK(cuDriverGetVersion(&dv) == 0 && cuDeviceGetCount(&n) == 0 && n == 1, "driver version, devices");
        called("cuDriverGetVersion");
        called("cuDeviceGetCount");
        struct cutap_integrity_dev dev;
        CHECK(cuDeviceGetUuid(dev.uuid, 0) == 0 && cuDeviceGetAttribute(&dev.pci_domain, 50, 0) == 0 &&
                  cuDeviceGetAttribute(&dev.pci_bus, 33, 0) == 0 && cuDeviceGetAttribute(&dev.pci_device, 34, 0) == 0,
              "device uuid, PCI location");
        called("cuDeviceGetUuid");
        for (int k = 0; k < 3; k++)
            called("cuDeviceGetAttribute");
        cutap_integrity_hash((uint32_t)dv, 13002, (uint32_t)getpid(), (uint32_t)(uintptr_t)pthread_self(),
                             (uint64_t)(uintptr_t)c, (uint64_t)(uintptr_t)ic, (uint64_t)ic[1], secs, &dev, 1, want);
        if (getenv("FAKE_INTEGRITY_OTHER"))
            want[0] ^= 1;   /* the fake driver's other hash, which this "runtime" knows too */
        CHECK(!memcmp(got, want, sizeof got), "the integrity check passes for the tables this program holds");
    }

    const void *u = (const void *)1;
    CHECK(cuGetExportTable(&u, unknown) == CUDA_ERROR_NOT_FOUND && u == NULL, "unknown table");
    called("cuGetExportTable");
    CHECK(cuGetExportTable(NULL, sized) == CUDA_ERROR_INVALID_VALUE, "NULL table pointer");
    called("cuGetExportTable");
    CHECK(cuGetExportTable(&u, NULL) == CUDA_ERROR_INVALID_VALUE, "NULL uuid");
    called("cuGetExportTable");
}

static void mode_nested(void)
{
    CHECK(cuProfilerStart() == 0, "cuProfilerStart");
    called("cuProfilerStart");
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    expect_cutap = getenv("EXPECT_CUTAP") != NULL;
    const char *mode = argc > 1 ? argv[1] : "plt";
    static const struct { const char *name; void (*run)(void); } modes[] = {
        {"plt", mode_plt}, {"dlvsym", mode_dlvsym}, {"reopen", mode_reopen}, {"procaddr", mode_procaddr},
        {"future", mode_future}, {"hidden", mode_hidden}, {"nested", mode_nested},
    };
    int known = 0;
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++)
        if (!strcmp(mode, modes[i].name))
            modes[i].run(), known = 1;
    if (known) {
        /* ran above */
    } else if (!strcmp(mode, "dlopen")) {
        mode_dlopen(argc > 2 ? argv[2] : "libcuda.so.1", argc > 3 ? argv[3] : "local");
    } else if (!strcmp(mode, "exec")) {
        CHECK(cuInit(0) == 0, "cuInit before exec");
        called("cuInit");
        fflush(stdout);
        execl("/proc/self/exe", argv[0], "plt", (char *)NULL);
        perror("exec");
        return 1;
    } else {
        fprintf(stderr, "t_paths: unknown mode %s\n", mode);
        return 2;
    }
    if (failures)
        fprintf(stderr, "t_paths %s: %d checks failed\n", mode, failures);
    return failures ? 1 : 0;
}
