/* Runtime-API calls of a statically linked cudart, through CUPTI
 * (CUTAP_RUNTIME=cupti, `cutap trace --runtime=cupti`).
 *
 * nvcc links cudart statically by default: cudaMalloc & co. are then
 * functions inside the program, called directly, and no symbol of ours can
 * stand in for them. The runtime does report each of its API calls to a
 * CUPTI subscriber of the runtime callback domain (entry and exit, with the
 * function's name and its parameters), so in this mode cutap subscribes to
 * CUPTI and turns each report into a call of layer "runtime" with the same
 * id, argument words and result as our symbol wrapper would record
 * (cutap_external_enter/exit): driver calls the runtime makes inside it
 * nest under it, as they do under a wrapped call.
 *
 * libcupti is opened at run time and never linked, and cupti.h is not
 * included: building cutap needs no CUDA toolkit. The few CUPTI types used
 * are declared below, pinned to the CUDA 13.0 headers.
 *
 * When: CUPTI needs a working driver, and the driver is first usable when
 * cuInit has succeeded. We subscribe in a post-call fixup of cuInit (see
 * cutap_fixup, core/dispatch.c), once per process: that is the moment the
 * driver itself loads CUPTI-based tools given by CUDA_INJECTION64_PATH, so
 * CUPTI is known to work from there; it costs nothing on any other call
 * (a lazy check at "the first driver call after cuInit" would put a test on
 * every call). The fixup runs after the real cuInit returned and after
 * cutap restored the thread's nesting, with no cutap lock held; the
 * driver calls libcupti itself makes while it starts are recorded nested
 * in that cuInit (the program waits for them there, and cuInit's time,
 * read after the fixup, includes them). Runtime calls made before that
 * subscription (those that run before the runtime's first cuInit returns,
 * usually the entry of the first runtime call) are not seen.
 *
 * One call, one record. A shared libcudart adopted as the runtime layer
 * (resolve/libs.c) reports its calls to CUPTI too, and they already reach
 * our wrappers; copies of the runtime linked statically into the program
 * or into libraries (cuDNN, cuBLAS, NCCL, PyTorch's, XLA's) reach no
 * wrapper. The runtime reports a call from inside a call it makes to the
 * driver's TOOLS_RUNTIME_CALLBACK_HOOKS slot 1 (docs/HIDDEN_API.md), which
 * cutap wraps: that frame's return address lies in the copy that made the
 * call. A report from the shared libcudart is dropped; one from any other
 * object is recorded. Without such a frame (the table not wrapped, or
 * `-e` leaving out layer hidden) the copy is not known, and every report
 * is dropped once a shared libcudart is in use, as none may count twice. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resolve_internal.h"

/* --- CUPTI ABI (cupti_result.h, cupti_callbacks.h of CUDA 13.0) -------- */
typedef int cutap_cupti_result;                /* CUptiResult (an enum) */
#define CUTAP_CUPTI_SUCCESS 0
#define CUTAP_CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED 39
#define CUTAP_CUPTI_CB_DOMAIN_RUNTIME_API 2
#define CUTAP_CUPTI_API_ENTER 0
#define CUTAP_CUPTI_API_EXIT 1
typedef void *cutap_cupti_subscriber;          /* CUpti_SubscriberHandle */
/* CUpti_CallbackFunc(userdata, CUpti_CallbackDomain, CUpti_CallbackId, cbdata) */
typedef void (*cutap_cupti_callback)(void *userdata, int domain, uint32_t cbid, const void *cbdata);

/* CUpti_CallbackData, field for field as in cupti_callbacks.h (CUDA 13.0,
 * CUPTI_API_VERSION 130001); the offsets below are those gcc gives the
 * header's own struct. */
struct cutap_cupti_cbdata {
    int callbackSite;                /* CUpti_ApiCallbackSite: CUPTI_API_ENTER / _EXIT */
    const char *functionName;        /* "cudaMalloc": a global constant */
    const void *functionParams;      /* <name>_v<ver>_params: the parameters as a struct */
    void *functionReturnValue;       /* runtime: cudaError_t *, valid at exit */
    const char *symbolName;
    void *context;                   /* CUcontext */
    uint32_t contextUid;
    uint64_t *correlationData;       /* shared by the entry and exit of one call */
    uint32_t correlationId;
};
_Static_assert(offsetof(struct cutap_cupti_cbdata, functionName) == 8 &&
                   offsetof(struct cutap_cupti_cbdata, functionParams) == 16 &&
                   offsetof(struct cutap_cupti_cbdata, functionReturnValue) == 24 &&
                   offsetof(struct cutap_cupti_cbdata, contextUid) == 48 &&
                   offsetof(struct cutap_cupti_cbdata, correlationData) == 56 &&
                   offsetof(struct cutap_cupti_cbdata, correlationId) == 64 &&
                   sizeof(struct cutap_cupti_cbdata) == 72,
               "CUpti_CallbackData layout of cupti_callbacks.h (CUDA 13.0)");

typedef cutap_cupti_result (*subscribe_fn)(cutap_cupti_subscriber *, cutap_cupti_callback, void *);
typedef cutap_cupti_result (*enable_domain_fn)(uint32_t, cutap_cupti_subscriber, int);
typedef cutap_cupti_result (*unsubscribe_fn)(cutap_cupti_subscriber);
typedef cutap_cupti_result (*result_string_fn)(cutap_cupti_result, const char **);
static subscribe_fn p_subscribe;
static enable_domain_fn p_enable_domain;
static unsubscribe_fn p_unsubscribe;
static result_string_fn p_result_string;

int cutap_rt_cupti;   /* --runtime=cupti is on */

/* CUPTI's callback: each runtime report becomes a call (resolve/rt_calls.c),
 * the copy known from the hook frame the report came through. */
static void rt_callback(void *userdata, int domain, uint32_t cbid, const void *data)
{
    (void)userdata;
    const struct cutap_cupti_cbdata *cb = data;
    if (domain != CUTAP_CUPTI_CB_DOMAIN_RUNTIME_API || !cb ||
        (cb->callbackSite != CUTAP_CUPTI_API_ENTER && cb->callbackSite != CUTAP_CUPTI_API_EXIT))
        return;
    /* (--gpu: CUPTI has taken the call's external id already; its
     * correlation id is paired with the call's record directly, gpu.c) */
    cutap_tls.cupti_corr = cb->callbackSite == CUTAP_CUPTI_API_ENTER ? cb->correlationId : 0;
    cutap_rt_cupti_report(cb->callbackSite == CUTAP_CUPTI_API_EXIT, cbid, cb->functionName, cb->functionParams,
                          cb->functionReturnValue, cb->correlationData,
                          cb->callbackSite == CUTAP_CUPTI_API_ENTER ? cutap_hook_caller() : NULL);
    cutap_tls.cupti_corr = 0;
}

/* --- finding libcupti and subscribing ----------------------------------- */
char cutap_cupti_path[512];
#define cupti_path cutap_cupti_path   /* (its name here before record/gpu.c shared it) */

/* CUTAP_CUPTI_LIB, when set, is the one library tried: an explicit choice
 * that fails is reported, not replaced by another CUPTI found elsewhere.
 * Otherwise the loader's search (LD_LIBRARY_PATH, the cache), then the
 * toolkit's usual places. */
static void *cupti_open(char *why, size_t size);

/* CUPTI's constructors run inside cutap's dlopen: what they do is the
 * instrument's (their environment lookups are not recorded). */
void *cutap_cupti_open(char *why, size_t size)
{
    cutap_tls.internal++;
    void *h = cupti_open(why, size);
    cutap_tls.internal--;
    return h;
}

static void *cupti_open(char *why, size_t size)
{
    const char *env = getenv("CUTAP_CUPTI_LIB");
    why[0] = 0;
    if (env && *env) {
        void *h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        if (h)
            snprintf(cupti_path, sizeof cupti_path, "%s", env);
        else
            snprintf(why, size, "CUTAP_CUPTI_LIB=%s: %s", env, dlerror());
        return h;
    }
    const char *home = getenv("CUDA_HOME");
    const char *dirs[] = {NULL, home && *home ? home : NULL, "/usr/local/cuda", "/usr/local/cuda"};
    const char *subs[] = {"", "/extras/CUPTI/lib64", "/extras/CUPTI/lib64", "/lib64"};
    static const char *const names[] = {"libcupti.so.13", "libcupti.so.12", "libcupti.so.11.8", "libcupti.so"};
    /* a libcupti the program loaded already (PyTorch's libtorch_cuda links
     * one): that one, never a second CUPTI beside it */
    for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
        void *h = dlopen(names[n], RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
        if (h) {
            snprintf(cupti_path, sizeof cupti_path, "%s (already loaded)", names[n]);
            return h;
        }
    }
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        if (d && !dirs[d])
            continue;
        for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
            char p[512];
            if (d)
                snprintf(p, sizeof p, "%s%s/%s", dirs[d], subs[d], names[n]);
            else
                snprintf(p, sizeof p, "%s", names[n]);
            void *h = dlopen(p, RTLD_NOW | RTLD_LOCAL);
            if (h) {
                snprintf(cupti_path, sizeof cupti_path, "%s", p);
                return h;
            }
            if (!why[0])
                snprintf(why, size, "%s", dlerror());
        }
    }
    return NULL;
}

static const char *result_name(cutap_cupti_result r)
{
    const char *s = NULL;
    if (p_result_string && p_result_string(r, &s) != CUTAP_CUPTI_SUCCESS)
        s = NULL;
    return s ? s : "unknown CUPTI error";
}

static void subscribe(void)
{
    char why[600];
    void *h = cutap_cupti_open(why, sizeof why);
    if (!h) {
        cutap_warn("--runtime=cupti: libcupti not found (%s); runtime calls are not recorded", why);
        return;
    }
    p_subscribe = (subscribe_fn)cutap_libc_dlsym(h, "cuptiSubscribe");
    p_enable_domain = (enable_domain_fn)cutap_libc_dlsym(h, "cuptiEnableDomain");
    p_unsubscribe = (unsubscribe_fn)cutap_libc_dlsym(h, "cuptiUnsubscribe");
    p_result_string = (result_string_fn)cutap_libc_dlsym(h, "cuptiGetResultString");
    /* CUPTI's own calls through the export tables are the instrument's,
     * not the program's (docs/HIDDEN_API.md: a subscriber makes dozens per
     * runtime call): slot calls made from libcupti pass through unrecorded. */
    if (p_subscribe)
        atomic_store(&cutap_cupti_object, cutap_object_of((const void *)p_subscribe));
    if (!p_subscribe || !p_enable_domain || !p_unsubscribe) {
        cutap_warn("--runtime=cupti: %s lacks cuptiSubscribe/cuptiEnableDomain/cuptiUnsubscribe; runtime calls are "
                   "not recorded", cupti_path);
        return;   /* kept open: unloading a library that may have started threads is not safe */
    }
    cutap_cupti_subscriber sub = NULL;
    cutap_cupti_result r = p_subscribe(&sub, rt_callback, NULL);
    if (r == CUTAP_CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        cutap_warn("--runtime=cupti: CUPTI is already in use by another tool (%s); runtime calls are not recorded",
                   result_name(r));
        return;
    }
    if (r != CUTAP_CUPTI_SUCCESS) {
        cutap_warn("--runtime=cupti: cuptiSubscribe failed (%s, %d); runtime calls are not recorded",
                   result_name(r), r);
        return;
    }
    r = p_enable_domain(1, sub, CUTAP_CUPTI_CB_DOMAIN_RUNTIME_API);
    if (r != CUTAP_CUPTI_SUCCESS) {
        cutap_warn("--runtime=cupti: cuptiEnableDomain(runtime) failed (%s, %d); runtime calls are not recorded",
                   result_name(r), r);
        p_unsubscribe(sub);   /* leave CUPTI free for another tool */
        return;
    }
    /* Never unsubscribed: a call in progress on another thread at exit
     * would otherwise lose its exit report. */
    cutap_log_debug("runtime calls from CUPTI (%s)", cupti_path);
}

static _Atomic int subscribed;   /* 1 once tried (successful or not) */

static void after_cuinit(cutap_call_t *call)
{
    if (call->result != CUTAP_CUDA_SUCCESS || atomic_load_explicit(&subscribed, memory_order_relaxed))
        return;
    if (atomic_exchange(&subscribed, 1))
        return;   /* another thread's cuInit got there first */
    cutap_run_inside(call, subscribe);
}

/* The runtime reports each call from inside two calls it makes through
 * TOOLS_RUNTIME_CALLBACK_HOOKS at its entry and again at its exit (#4,
 * then #1, CUPTI calling back from inside #1: docs/HIDDEN_API.md). Four
 * slot calls per runtime call: recorded, they cost about 1 us a runtime
 * call on the H100 (bench/gpu/rtcall.sh), more than CUPTI itself. In this
 * mode they are not recorded (CUTAP_HOOK_CALLS=1 records them), but #1
 * keeps its trampoline frame, through a client of cutap's own with no
 * callback: that frame is how a report is told to come from a copy in a
 * library or from the shared libcudart (cutap_hook_caller). */
static int hook_client = -1, record_hooks;
_Atomic uint32_t cutap_cupti_object;

void cutap_cupti_hook_slot(uint32_t id, unsigned slot)
{
    if (!cutap_rt_cupti || (slot != 1 && slot != 4) || record_hooks)
        return;
    int rec = cutap_recorder_client;
    if (rec >= 0)
        cutap_enable(rec, id, 0);
    if (slot == 1 && hook_client >= 0)
        cutap_enable(hook_client, id, 1);
}

void cutap_cupti_rt_configure(const char *mode)
{
    /* unset, "all" or "hooks": the runtime copies' own reports
     * (resolve/rt_hooks.c) */
    if (!mode || !*mode || !strcmp(mode, "all") || !strcmp(mode, "hooks")) {
        cutap_rt_hooks = 1;
        return;
    }
    /* "floor", for bench/gpu/rtcall.sh only: the copies are asked for
     * their reports, which cutap then ignores (what the runtime's own
     * reporting costs, cutap's work left out); nothing is recorded */
    if (!strcmp(mode, "floor")) {
        cutap_rt_hooks = 2;
        return;
    }
    if (!strcmp(mode, "symbols"))
        return;
    if (strcmp(mode, "cupti")) {
        cutap_warn("CUTAP_RUNTIME=%s: takes all, symbols or cupti; runtime calls are taken from symbols only", mode);
        return;
    }
    cutap_rt_cupti = 1;
    const char *hc = getenv("CUTAP_HOOK_CALLS");
    record_hooks = hc && !strcmp(hc, "1");
    if (!record_hooks)
        hook_client = cutap_register("cupti-hook-frames", NULL, NULL, NULL);
    cutap_fixup[CUTAP_ID_cuInit] = after_cuinit;
    cutap_refresh_id(CUTAP_ID_cuInit);   /* cuInit must leave its fast path now */
}
