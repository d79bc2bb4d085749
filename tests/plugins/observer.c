/* Test plugin built with -fvisibility=hidden (tests/tests.mk), as most
 * plugins are: its entry points are exported only through cutap.h's
 * declarations. An observer loaded after tests/plugins/apitest.c (which
 * skips one cuDeviceGetCount): it sees every cuDeviceGetCount, the skipped
 * one with CUTAP_CALL_SKIPPED set in pre and post, and tries to change
 * that call's result in both (which must not reach the caller: t_api
 * checks what it got). It asks result kinds and status names
 * (cutap_call_result_kind, cutap_status_name) of every layer's kind of
 * result. An exit hook prints one "observer:" line.
 * OBSERVER_FAIL=N: its init returns N. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutap.h"

CUTAP_PLUGIN_NEGOTIATE()

static int me = -1, inits;
static const char *api = "ok";
static int pres, posts, skipped_pre, skipped_post, timed;

static int pre(cutap_call_t *c, void *ctx, uint64_t *scratch)
{
    (void)ctx;
    pres++;
    *scratch = 7;
    timed += c->t0 != 0 && c->t1 == 0;   /* cutap_want_time: the start read, the end not yet */
    if (c->flags & CUTAP_CALL_SKIPPED) {
        skipped_pre++;
        c->result = 999;   /* void: the skipping client's result stands */
        return CUTAP_PROCEED;
    }
    return CUTAP_PROCEED;
}

static void post(cutap_call_t *c, void *ctx, uint64_t *scratch)
{
    (void)ctx;
    posts += *scratch == 7;
    timed += c->t0 != 0 && c->t1 >= c->t0;
    if (c->flags & CUTAP_CALL_SKIPPED) {
        skipped_post++;
        c->result = 998;   /* void too */
    }
}

static void at_exit(void *ctx)
{
    (void)ctx;
    printf("observer: inits=%d pre=%d post=%d skipped_pre=%d skipped_post=%d api=%s timed=%d\n", inits, pres, posts,
           skipped_pre, skipped_post, api, timed);
    fflush(stdout);
}

static int kind_is(const char *fn, int kind)
{
    return cutap_call_result_kind(cutap_lookup(fn)) == kind;
}
static int name_is(const char *layer, uint64_t v, const char *want)
{
    const char *n = cutap_status_name(cutap_layer_lookup(layer), v);
    return want ? n && !strcmp(n, want) : !n;
}

/* The result kinds and status names of each kind of layer: "ok", or the
 * first that is wrong. */
static const char *check_api(void)
{
    if (!kind_is("cuMemAlloc_v2", CUTAP_RESULT_STATUS) || !kind_is("cudaMalloc", CUTAP_RESULT_STATUS))
        return "status";
    if (!kind_is("cudaGetErrorString", CUTAP_RESULT_POINTER) || !kind_is("cublasGetCudartVersion", CUTAP_RESULT_VALUE) ||
        !kind_is("nvtxRangePushA", CUTAP_RESULT_VALUE) || !kind_is("nvtxMarkA", CUTAP_RESULT_VOID))
        return "values";
    if (cutap_call_result_kind(CUTAP_ID_ALL) != CUTAP_RESULT_UNKNOWN || !kind_is("CONTEXT_LOCAL_STORAGE#2", CUTAP_RESULT_UNKNOWN))
        return "unknown";
    if (strcmp(cutap_status_name(CUTAP_LAYER_DRIVER, 2) ? cutap_status_name(CUTAP_LAYER_DRIVER, 2) : "", "CUDA_ERROR_OUT_OF_MEMORY") ||
        !name_is("runtime", 2, "cudaErrorMemoryAllocation") || !name_is("cublas", 1, "CUBLAS_STATUS_NOT_INITIALIZED") ||
        !name_is("cublasLt", 0, "CUBLAS_STATUS_SUCCESS") || !name_is("nccl", 0, "ncclSuccess") ||
        !name_is("nvml", 0x0000000100000000ull, "NVML_SUCCESS"))   /* the low 32 bits */
        return "names";
    if (!name_is("nvtx", 0, NULL) || !name_is("runtime", 123456789, NULL) || cutap_status_name(99, 0))
        return "no-names";
    return "ok";
}

int cutap_plugin_init(unsigned api_version)
{
    api = check_api();
    inits++;
    const char *f = getenv("OBSERVER_FAIL");
    if (f && atoi(f))
        return atoi(f);
    if (api_version != CUTAP_API_VERSION || (me = cutap_register("observer", pre, post, NULL)) < 0)
        return 1;
    if (cutap_enable_name(me, "cuDeviceGetCount", 1) || cutap_on_exit(me, at_exit) || cutap_on_exit(-1, at_exit) != -1 ||
        cutap_want_time(me, 1) || cutap_want_time(99, 1) != -1)
        return 2;
    return 0;
}
