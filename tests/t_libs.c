/* End-to-end program on the fake runtime and libraries ($(BUILD)/fakelibs,
 * tests/fake/fake_lib_*.c): runtime and cuBLAS calls that call down into
 * cuBLASLt and the driver (tests/fake/fake_lib_special.c), for the nesting
 * tests. It prints "CALL <name>" for every call it makes itself, each
 * result, and at the end which CUDA libraries are loaded, so the runner
 * can compare a bare run with a run under cutap.
 *
 *   t_libs_{lazy,now,pie} link [dev]  direct calls: linked with the fake
 *                                   libcudart.so.13 and libcublas.so.13
 *                                   (PLT, versioned references)
 *   t_libs_dl soname|DIR [rt]       dlopen("libcudart.so.13") (or
 *                                   DIR/libcudart.so.13) and libcublas.so.13,
 *                                   RTLD_LOCAL; dlsym, and dlvsym with the
 *                                   libraries' version names. With rt: the
 *                                   runtime only, cuBLAS is never opened.
 *   ... dev                         the GEMMs on device memory (cudaMalloc)
 * Both look cudaGetErrorString up once more with dlvsym and the version
 * the real library gives it (from the global scope when linked, else from
 * the handle). With EXPECT_CUTAP=1 every function looked up must be
 * cutap's wrapper, not the fake's own (and, bare, the fake's own).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake/fake_lib_internal.h"

static int failures;
static int expect_cutap;
#define CHECK(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

/* The functions used, with their ABI types (as the generated wrappers). */
#define FUNCS(X) \
    X(rt, unsigned int, cudaMalloc, (void **, unsigned long)) \
    X(rt, unsigned int, cudaMemcpy, (void *, const void *, unsigned long, unsigned int)) \
    X(rt, const char *, cudaGetErrorString, (unsigned int)) \
    X(rt, unsigned int, cudaFree, (void *)) \
    X(blas, unsigned int, cublasCreate_v2, (void **)) \
    X(blas, unsigned int, cublasSgemm_v2, (void *, unsigned int, unsigned int, int, int, int, const float *, \
                                           const float *, int, const float *, int, const float *, float *, int)) \
    X(blas, unsigned int, cublasGemmEx, (void *, unsigned int, unsigned int, int, int, int, const void *, \
                                         const void *, unsigned int, int, const void *, unsigned int, int, \
                                         const void *, void *, unsigned int, int, unsigned int, int)) \
    X(blas, unsigned int, cublasDestroy_v2, (void *))

#ifdef LINKED
#define DECL(lib, ret, name, params) ret name params;
FUNCS(DECL)
#endif
static struct {
#define MEMBER(lib, ret, name, params) ret (*name) params;
    FUNCS(MEMBER)
} F;
static int use_dl;

#ifdef LINKED
#define CALL(name, ...) (printf("CALL %s\n", #name), use_dl ? F.name(__VA_ARGS__) : name(__VA_ARGS__))
#else
#define CALL(name, ...) (printf("CALL %s\n", #name), F.name(__VA_ARGS__))
#endif

/* Looks name up in h: with a version, dlvsym. Under cutap: cutap's
 * wrapper; bare: the fake's own function. */
static void *lookup(void *h, const char *name, const char *version)
{
    void *p = version ? dlvsym(h, name, version) : dlsym(h, name);
    CHECK(p, "%s%s%s: %s", name, version ? "@" : "", version ? version : "", dlerror());
    fake_lib_api_fn api = (fake_lib_api_fn)dlsym(h, "fake_lib_api");
    CHECK(api, "fake_lib_api: %s", dlerror());
    if (p && api) {
        void *own = api()->real_address(name);
        if (expect_cutap)
            CHECK(p != own, "%s: dlsym gave the library's own function, not cutap's wrapper", name);
        else
            CHECK(p == own, "%s: dlsym gave %p, not the library's own function %p", name, p, own);
    }
    return p;
}

static void *open_lib(const char *where, const char *soname)
{
    char path[4096];
    if (strcmp(where, "soname"))
        snprintf(path, sizeof path, "%s/%s", where, soname);
    void *h = dlopen(strcmp(where, "soname") ? path : soname, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "t_libs: %s\n", dlerror());
        exit(2);
    }
    return h;
}

/* cudaGetErrorString once more, looked up with dlvsym and the version the
 * real library gives it: from the global scope (linked) or the handle. */
static const char *(*error_string_v)(unsigned int);

static void runtime_calls(void)
{
    void *d = NULL;
    unsigned r = CALL(cudaMalloc, &d, 4096);
    printf("cudaMalloc = %u ptr=%p\n", r, d);
    CHECK(r == 0 && d, "cudaMalloc");
    r = CALL(cudaMalloc, NULL, 16);
    printf("cudaMalloc(NULL) = %u\n", r);
    CHECK(r == 1, "cudaMalloc(NULL)");
    static char host[4096];
    r = CALL(cudaMemcpy, d, host, sizeof host, 1);
    printf("cudaMemcpy htod = %u\n", r);
    r = CALL(cudaMemcpy, host, d, sizeof host, 2);
    printf("cudaMemcpy dtoh = %u\n", r);
    const char *s = CALL(cudaGetErrorString, 1);
    printf("cudaGetErrorString(1) = \"%s\"\n", s ? s : "(null)");
    CHECK(s && !strcmp(s, "invalid argument"), "cudaGetErrorString");
    printf("CALL cudaGetErrorString\n");
    s = error_string_v(2);
    printf("cudaGetErrorString(2) = \"%s\"\n", s ? s : "(null)");
    CHECK(s && !strcmp(s, "out of memory"), "cudaGetErrorString through dlvsym");
    r = CALL(cudaFree, d);
    printf("cudaFree = %u\n", r);
}

/* Matrices in host memory, or (dev) in device memory, as in a real
 * program: there the fake driver's device pointers, which are unmapped
 * addresses (no process may read them, cutap included). */
static void blas_calls(int dev)
{
    void *h = NULL;
    unsigned r = CALL(cublasCreate_v2, &h);
    printf("cublasCreate_v2 = %u handle=%p\n", r, h);
    CHECK(r == 0 && h, "cublasCreate_v2");
    static float hA[16], hB[16], hC[16];
    float *A = hA, *B = hB, *C = hC;
    if (dev) {
        void *d = NULL;
        r = CALL(cudaMalloc, &d, 3 * sizeof hA);
        CHECK(r == 0 && d, "cudaMalloc");
        A = d;
        B = A + 16;
        C = B + 16;
    }
    float alpha = 1, beta = 0;
    r = CALL(cublasSgemm_v2, h, 0, 0, 4, 4, 4, &alpha, A, 4, B, 4, &beta, C, 4);
    printf("cublasSgemm_v2 = %u\n", r);
    CHECK(r == 0, "cublasSgemm_v2");
    r = CALL(cublasGemmEx, h, 0, 0, 4, 4, 4, &alpha, A, 0, 4, B, 0, 4, &beta, C, 0, 4, 68, -1);
    printf("cublasGemmEx = %u\n", r);
    r = CALL(cublasDestroy_v2, h);
    printf("cublasDestroy_v2 = %u\n", r);
}

/* The CUDA libraries in the process, by file name, sorted. */
static int add_loaded(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    const char *n = info->dlpi_name, *b = n ? strrchr(n, '/') : NULL;
    b = b ? b + 1 : n;
    if (b && ((!strncmp(b, "libcu", 5) && strncmp(b, "libcutap", 8)) || !strncmp(b, "libnccl", 7) ||
              !strncmp(b, "libnv", 5))) {
        char *list = data;
        if (strlen(list) + strlen(b) + 2 < 4096) {
            strcat(list, " ");
            strcat(list, b);
        }
    }
    return 0;
}

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void print_loaded(void)
{
    char list[4096] = "", *names[64];
    int n = 0;
    dl_iterate_phdr(add_loaded, list);
    for (char *t = strtok(list, " "); t && n < 64; t = strtok(NULL, " "))
        names[n++] = t;
    qsort(names, (size_t)n, sizeof *names, cmp);
    printf("loaded:");
    for (int i = 0; i < n; i++)
        printf(" %s", names[i]);
    printf("\n");
}

int main(int argc, char **argv)
{
    expect_cutap = getenv("EXPECT_CUTAP") && *getenv("EXPECT_CUTAP") == '1';
    const char *mode = argc > 1 ? argv[1] : "";
    int rt_only = 0, dev = 0;
    for (int i = 2; i < argc; i++) {
        rt_only |= !strcmp(argv[i], "rt");
        dev |= !strcmp(argv[i], "dev");
    }
    if (!strcmp(mode, "link")) {
#ifndef LINKED
        fprintf(stderr, "t_libs: built without the libraries: no link mode\n");
        return 2;
#endif
        error_string_v = dlvsym(RTLD_DEFAULT, "cudaGetErrorString", "libcudart.so.13");
        CHECK(error_string_v, "dlvsym(RTLD_DEFAULT, cudaGetErrorString, libcudart.so.13): %s", dlerror());
        void *rt = dlopen("libcudart.so.13", RTLD_NOW | RTLD_NOLOAD);
        fake_lib_api_fn api = rt ? (fake_lib_api_fn)dlsym(rt, "fake_lib_api") : NULL;
        CHECK(api, "libcudart.so.13 not loaded");
        if (api && (api()->real_address("cudaGetErrorString") == (void *)error_string_v) == expect_cutap)
            CHECK(0, "cudaGetErrorString@libcudart.so.13 is %s", expect_cutap ? "the library's own" : "not the library's own");
        if (failures)
            return 1;
    } else if (argc > 1) {
        use_dl = 1;
        void *rt = open_lib(mode, "libcudart.so.13");
        F.cudaMalloc = lookup(rt, "cudaMalloc", "libcudart.so.13");
        F.cudaMemcpy = lookup(rt, "cudaMemcpy", NULL);
        F.cudaGetErrorString = lookup(rt, "cudaGetErrorString", NULL);
        F.cudaFree = lookup(rt, "cudaFree", "libcudart.so.13");
        error_string_v = lookup(rt, "cudaGetErrorString", "libcudart.so.13");
        if (!rt_only) {
            void *blas = open_lib(mode, "libcublas.so.13");
            F.cublasCreate_v2 = lookup(blas, "cublasCreate_v2", NULL);
            F.cublasSgemm_v2 = lookup(blas, "cublasSgemm_v2", "libcublas.so.13");
            F.cublasGemmEx = lookup(blas, "cublasGemmEx", NULL);
            F.cublasDestroy_v2 = lookup(blas, "cublasDestroy_v2", NULL);
        }
        if (failures)
            return 1;
    } else {
        fprintf(stderr, "usage: t_libs link|soname|DIR [rt] [dev]\n");
        return 2;
    }
    runtime_calls();
    if (!rt_only)
        blas_calls(dev);
    print_loaded();
    return failures ? 1 : 0;
}
