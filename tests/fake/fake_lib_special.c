/* Behaviour of a few functions of the fake runtime and libraries (see
 * fake_lib_internal.h): they call down, as the real ones do, so that tests
 * can check what cutap makes of nested calls across layers:
 *
 *   cudaMalloc, cudaFree, cudaMemcpy -> cuMemAlloc_v2, cuMemFree_v2,
 *       cuMemcpyHtoD_v2 / cuMemcpyDtoH_v2 (the driver found as the real
 *       cudart finds it: dlopen("libcuda.so.1"), dlsym of
 *       cuGetProcAddress_v2, every other entry point through it; cuInit
 *       on the first call that needs the driver)
 *   cudaGetErrorString               -> a static string (pointer result)
 *   cublasCreate_v2, cudnnCreate     -> cuCtxGetCurrent (dlsym on a
 *       libcuda.so.1 handle, as cuBLAS and cuDNN do)
 *   cublasSgemm_v2, cublasGemmEx     -> cublasLtMatmul (a direct call into
 *       the fake libcublasLt.so.13 this one is linked with: through the PLT,
 *       a versioned reference)
 *   cublasLtMatmul, cudnnConvolutionForward -> cuLaunchKernel (dlsym)
 *   ncclAllReduce                    -> cuLaunchKernelEx (dlsym)
 *
 * The file is compiled into every fake with -DFAKE_LIB_<layer>; each
 * section registers the behaviour of its own layer only. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "fake_lib_internal.h"

#define P(i, T) ((T)(uintptr_t)a[i])

/* A driver entry point from a libcuda.so.1 handle of our own (RTLD_LOCAL):
 * cutap must see these calls through its dlsym. */
__attribute__((unused)) static void *driver_sym(const char *name)
{
    static void *h;
    if (!h && !(h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL))) {
        fprintf(stderr, "fake %s: %s\n", fake_lib_layer, dlerror());
        return NULL;
    }
    return dlsym(h, name);
}

__attribute__((unused)) static int launch(uint64_t stream)
{
    int (*launch_kernel)(uint64_t, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, uint64_t,
                         void **, void **) = driver_sym("cuLaunchKernel");
    return launch_kernel ? launch_kernel(0xfa4e0000ULL, 4, 1, 1, 128, 1, 1, 0, stream, NULL, NULL) : 999;
}

#if defined(FAKE_LIB_runtime)
/* --- libcudart.so.13 ----------------------------------------------------- */
typedef int (*getproc_fn)(const char *, void **, int, uint64_t, int *);
static struct {
    int (*init)(unsigned);
    int (*alloc)(uint64_t *, size_t);
    int (*free_)(uint64_t);
    int (*htod)(uint64_t, const void *, size_t);
    int (*dtoh)(void *, uint64_t, size_t);
    int status;    /* cudaSuccess, or why there is no driver */
} drv;
static pthread_once_t drv_once = PTHREAD_ONCE_INIT;

static void drv_load(void)
{
    drv.status = 35;   /* cudaErrorInsufficientDriver */
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    getproc_fn gp = h ? (getproc_fn)dlsym(h, "cuGetProcAddress_v2") : NULL;
    if (!gp)
        return;
    int st;
    if (gp("cuInit", (void **)&drv.init, 2000, 0, &st) || gp("cuMemAlloc", (void **)&drv.alloc, 3020, 0, &st) ||
        gp("cuMemFree", (void **)&drv.free_, 3020, 0, &st) || gp("cuMemcpyHtoD", (void **)&drv.htod, 3020, 0, &st) ||
        gp("cuMemcpyDtoH", (void **)&drv.dtoh, 3020, 0, &st))
        return;
    drv.status = drv.init(0) ? 3 /* cudaErrorInitializationError */ : 0;
}

static int drv_ready(void)
{
    pthread_once(&drv_once, drv_load);
    return drv.status;
}

/* CUDA_ERROR_INVALID_VALUE -> cudaErrorInvalidValue, others -> cudaErrorMemoryAllocation. */
static uint64_t rt_status(int cu) { return cu == 0 ? 0 : cu == 1 ? 1 : 2; }

static uint64_t do_malloc(const uint64_t *a)
{
    if (!P(0, void **))
        return 1;
    int s = drv_ready();
    if (s)
        return (uint64_t)s;
    uint64_t d = 0;
    int rc = drv.alloc(&d, (size_t)a[1]);
    if (!rc)
        *P(0, void **) = (void *)(uintptr_t)d;
    return rt_status(rc);
}

static uint64_t do_free(const uint64_t *a)
{
    int s = drv_ready();
    return s ? (uint64_t)s : a[0] ? rt_status(drv.free_(a[0])) : 0;
}

static uint64_t do_memcpy(const uint64_t *a)
{
    int s = drv_ready();
    if (s)
        return (uint64_t)s;
    switch ((int)a[3]) {
    case 1: return rt_status(drv.htod(a[0], P(1, const void *), (size_t)a[2]));   /* cudaMemcpyHostToDevice */
    case 2: return rt_status(drv.dtoh(P(0, void *), a[1], (size_t)a[2]));          /* cudaMemcpyDeviceToHost */
    default: return 21;   /* cudaErrorInvalidMemcpyDirection */
    }
}

static uint64_t do_error_string(const uint64_t *a)
{
    static const char *const s[] = {"no error", "invalid argument", "out of memory"};
    return (uint64_t)(uintptr_t)(a[0] < 3 ? s[a[0]] : "unrecognized error code");
}

const struct fake_lib_special fake_lib_specials[] = {
    {CUTAP_ID_cudaMalloc, do_malloc},
    {CUTAP_ID_cudaFree, do_free},
    {CUTAP_ID_cudaMemcpy, do_memcpy},
    {CUTAP_ID_cudaGetErrorString, do_error_string},
};

#elif defined(FAKE_LIB_cublas)
/* --- libcublas.so.13 ----------------------------------------------------- */
/* The fake libcublasLt.so.13's (linked as -l:libcublasLt.so.13; default
 * visibility: the reference goes through the PLT). */
FAKE_EXPORT extern unsigned int cublasLtMatmul(void *, void *, const void *, const void *, void *, const void *, void *,
                                   const void *, const void *, void *, void *, void *, const void *, void *,
                                   unsigned long, void *);

static uint64_t do_create(const uint64_t *a)
{
    int (*cur)(void **) = driver_sym("cuCtxGetCurrent");
    void *ctx = NULL;
    if (!P(0, void **) || !cur || cur(&ctx))
        return 1;   /* CUBLAS_STATUS_NOT_INITIALIZED */
    *P(0, void **) = (void *)0xb1a50000;
    return 0;
}

/* Descriptors in host memory, as the real ones are (the opaque
 * cublasLtMatmulDesc and cublasLtMatrixLayout structs): cutap may read
 * them. */
static uint64_t matmul_desc[32], layout[3][8];

/* cublasSgemm_v2(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc) */
static uint64_t do_sgemm(const uint64_t *a)
{
    return cublasLtMatmul(P(0, void *), matmul_desc, P(6, void *), P(7, void *), layout[0], P(9, void *), layout[1],
                          P(11, void *), P(12, void *), layout[2], P(12, void *), layout[2], NULL, NULL, 0, NULL);
}

/* cublasGemmEx(handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc, ...) */
static uint64_t do_gemm_ex(const uint64_t *a)
{
    return cublasLtMatmul(P(0, void *), matmul_desc, P(6, void *), P(7, void *), layout[0], P(10, void *), layout[1],
                          P(13, void *), P(14, void *), layout[2], P(14, void *), layout[2], NULL, NULL, 0, NULL);
}

const struct fake_lib_special fake_lib_specials[] = {
    {CUTAP_ID_cublasCreate_v2, do_create},
    {CUTAP_ID_cublasSgemm_v2, do_sgemm},
    {CUTAP_ID_cublasGemmEx, do_gemm_ex},
};

#elif defined(FAKE_LIB_cublaslt)
/* --- libcublasLt.so.13 --------------------------------------------------- */
/* cublasLtMatmul(..., workspace, workspaceSizeInBytes, stream): argument 15 is the stream. */
static uint64_t do_matmul(const uint64_t *a) { return launch(a[15]) ? 13 /* EXECUTION_FAILED */ : 0; }

const struct fake_lib_special fake_lib_specials[] = {
    {CUTAP_ID_cublasLtMatmul, do_matmul},
};

#elif defined(FAKE_LIB_cudnn)
/* --- libcudnn.so.9 ------------------------------------------------------- */
static uint64_t do_create(const uint64_t *a)
{
    int (*cur)(void **) = driver_sym("cuCtxGetCurrent");
    void *ctx = NULL;
    if (!P(0, void **) || !cur || cur(&ctx))
        return 1001;   /* CUDNN_STATUS_NOT_INITIALIZED */
    *P(0, void **) = (void *)0xd0500000;
    return 0;
}

static uint64_t do_conv_forward(const uint64_t *a) { (void)a; return launch(0) ? 5000 /* EXECUTION_FAILED */ : 0; }

const struct fake_lib_special fake_lib_specials[] = {
    {CUTAP_ID_cudnnCreate, do_create},
    {CUTAP_ID_cudnnConvolutionForward, do_conv_forward},
};

#elif defined(FAKE_LIB_nccl)
/* --- libnccl.so.2 -------------------------------------------------------- */
struct launch_config {   /* CUlaunchConfig */
    unsigned grid[3], block[3], shared;
    uint64_t stream;
    void *attrs;
    unsigned nattrs;
};

/* ncclAllReduce(sendbuff, recvbuff, count, datatype, op, comm, stream) */
/* FAKE_NCCL_LAUNCHES=K: K launches per all-reduce (default 1); on the
 * communicator 0xb10c it then synchronizes the context (cuCtxSynchronize,
 * which FAKE_BLOCK can make hang): a call that stays open while many
 * nested calls were recorded inside it (tests/t_ring.c). */
static uint64_t do_all_reduce(const uint64_t *a)
{
    int (*launch_ex)(const struct launch_config *, uint64_t, void **, void **) = driver_sym("cuLaunchKernelEx");
    struct launch_config c = {{8, 1, 1}, {512, 1, 1}, 0, a[6], NULL, 0};
    const char *k = getenv("FAKE_NCCL_LAUNCHES");
    long n = k && *k ? atol(k) : 1;
    for (long i = 0; i < n; i++)
        if (!launch_ex || launch_ex(&c, 0xfa4e0100ULL, NULL, NULL))
            return 1;   /* ncclUnhandledCudaError */
    if (a[5] == 0xb10c) {
        int (*sync)(void) = driver_sym("cuCtxSynchronize");
        if (!sync || sync())
            return 1;
    }
    return 0;
}

const struct fake_lib_special fake_lib_specials[] = {
    {CUTAP_ID_ncclAllReduce, do_all_reduce},
};

#else
const struct fake_lib_special fake_lib_specials[] = {{0, NULL}};   /* no behaviour */
#define FAKE_LIB_NONE 1
#endif

#ifdef FAKE_LIB_NONE
const unsigned fake_lib_nspecials = 0;
#else
const unsigned fake_lib_nspecials = sizeof fake_lib_specials / sizeof fake_lib_specials[0];
#endif
