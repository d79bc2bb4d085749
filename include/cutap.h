/*
 * cutap — public C API of libcutap.so (API version 2).
 *
 * libcutap.so is preloaded into a process (LD_PRELOAD, or by `cutap`). It
 * intercepts every CUDA driver entry point, and the runtime and library
 * functions, whichever way the program or its libraries reach them, and
 * runs the callbacks that clients registered here before and after the
 * real call. The built-in tracer, the counters and plugins
 * (CUTAP_PLUGINS) are all clients of this API.
 *
 * Names are the ABI. A call id is a number valid in one process only:
 * ask for it by name (cutap_lookup, cutap_enable_name, cutap_enable_filter)
 * and compare call->id with what you were given; never compile an id in
 * (cutap's tables change with every CUDA header update, and with them the
 * numbers). Layers likewise: cutap_layer_lookup("cublas"). Nothing in
 * this header is a number that changes between cutap builds.
 *
 * Plugins negotiate the interface version with cutap, as Vulkan layers do
 * with the loader: see cutap_plugin_negotiate below.
 */
#ifndef CUTAP_H
#define CUTAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The interface this header describes; cutap serves CUTAP_API_VERSION_MIN
 * to CUTAP_API_VERSION. Version 1 (ids compiled in from generated tables,
 * a scratch array sized by a client limit in cutap_call) is no longer
 * served. Version 3 adds cutap_call's t0 and t1 (cutap_want_time): a
 * plugin that reads them must speak 3 (an older cutap's calls have no
 * such fields); cutap_on_exit, cutap_call_result_kind and
 * cutap_status_name came with it. */
#define CUTAP_API_VERSION 3
#define CUTAP_API_VERSION_MIN 2
/* The release, as `cutap --version` and every trace header give it. */
#define CUTAP_VERSION "0.3.0"

#define CUTAP_PUBLIC __attribute__((visibility("default")))

/* Pass to cutap_enable() to mean every id, present and future. */
#define CUTAP_ID_ALL 0xffffffffu

/* The two layers below the libraries, stable by construction; every other
 * layer by name (cutap_layer_lookup): "runtime", "cublas", "cublasLt",
 * "cudnn", "nccl", "cufft", "curand", "cusparse", "cusolver", "nvrtc",
 * "nvJitLink", "nvtx", "nvml". */
typedef enum cutap_layer {
    CUTAP_LAYER_DRIVER = 0,   /* libcuda.so.1 entry points */
    CUTAP_LAYER_HIDDEN = 1,   /* slots of cuGetExportTable tables */
} cutap_layer_t;

/* Flags of a cutap_call. */
enum {
    /* The signature is unknown (generic trampoline, or a layer of another
     * CUDA major): args[] holds the six integer argument registers as they
     * were, nargs is 6 (0 for a call that was not made), a pre callback
     * cannot change them nor skip the call. */
    CUTAP_CALL_UNTYPED = 1u << 0,
    /* A pre callback skipped the real call; result is what it supplied. */
    CUTAP_CALL_SKIPPED = 1u << 1,
    /* A call cutap did not intercept but was told of: a runtime call
     * reported through CUPTI (--runtime=cupti) by a copy of the runtime
     * linked into the program or a library. fn is then an address in that
     * copy's code (dladdr names its object), or NULL when not known; the
     * call cannot be skipped. */
    CUTAP_CALL_REPORTED = 1u << 2,
    /* Fault injection (cutap trace --inject) chose this call: it was
     * delayed, or skipped with the value injected as its result. */
    CUTAP_CALL_INJECTED = 1u << 3,
};

/* Kinds of argument words (cutap_arg_info.kind). */
enum {
    CUTAP_ARG_INT = 0,     /* signed integer, sign-extended */
    CUTAP_ARG_UINT = 1,    /* unsigned integer, zero-extended */
    CUTAP_ARG_PTR = 2,     /* pointer (also handles such as CUcontext) */
    CUTAP_ARG_ENUM = 3,    /* enumeration, as its integer value */
    CUTAP_ARG_FLOAT = 4,   /* bits of the float in the low 32 bits */
    CUTAP_ARG_DOUBLE = 5,  /* bits of the double */
    CUTAP_ARG_STRUCT = 6,  /* struct passed by value: the word is its address */
};

/* One intercepted call, as callbacks see it. cutap owns it: a client never
 * allocates one nor takes its size. */
typedef struct cutap_call {
    uint32_t id;          /* call id (cutap_lookup) */
    uint16_t layer;       /* cutap_layer_t, or a layer from cutap_layer_lookup */
    uint16_t flags;       /* CUTAP_CALL_* */
    uint32_t nargs;       /* number of words in args */
    uint32_t depth;       /* nesting depth on this thread: 0 = outermost call */
    uint64_t *args;       /* argument words, in declaration order; a pre
                             callback may rewrite them (typed calls only) */
    uint64_t result;      /* post: what the caller receives (CUresult for
                             driver calls, cudaError_t, cublasStatus_t, a
                             pointer, ...); pre: result to return when the
                             callback skips the call */
    void *fn;             /* the real function (CUTAP_CALL_REPORTED: see there) */
    struct cutap_call *parent;  /* enclosing intercepted call on this thread */
    /* API version 3: while a client enabled for the call wants time
     * (cutap_want_time), cutap reads the clock once before the pre
     * callbacks (t0) and once after the real call returns, before the post
     * callbacks (t1): CLOCK_MONOTONIC nanoseconds, shared by every client
     * (no callback needs a clock read of its own). 0 when not read (t1 in
     * pre callbacks, and calls no such client is enabled for). */
    uint64_t t0, t1;
} cutap_call_t;

/* Return values of a pre callback. */
enum {
    CUTAP_PROCEED = 0,    /* call the real function */
    CUTAP_SKIP = 1,       /* do not; the caller gets call->result */
};

/* The order, and what a skip does (every client enabled for the call's id
 * sees it):
 *  - pre callbacks run in registration order, post callbacks in reverse;
 *    cutap's own clients (capture control, stat, log, the recorder, fault
 *    injection) register first, then the plugins in CUTAP_PLUGINS order;
 *  - a pre callback that returns CUTAP_SKIP (typed calls only; an untyped
 *    or reported call cannot be skipped) gives the caller call->result
 *    instead of calling the function. The call is marked
 *    CUTAP_CALL_SKIPPED at once; the later clients' pre callbacks still
 *    run and see the flag (an observer after a limiter sees the denied
 *    calls), but what they return and any result they set are void;
 *  - every client whose pre ran gets its post, skipped calls included (the
 *    flag set). A post callback may rewrite call->result of a call that
 *    was made (the caller receives the last value); a skipped call's
 *    result stays the one the skipping client set.
 * scratch: one word of this client's for this call, zero before pre, kept
 * until its post (e.g. a start time). */
typedef int (*cutap_pre_fn)(cutap_call_t *call, void *ctx, uint64_t *scratch);
typedef void (*cutap_post_fn)(cutap_call_t *call, void *ctx, uint64_t *scratch);

typedef struct cutap_arg_info {
    const char *name;     /* parameter name from the header */
    const char *type;     /* type as spelled in the header */
    int kind;             /* CUTAP_ARG_* */
} cutap_arg_info_t;

/*
 * Register a client. pre and/or post may be NULL. Pre callbacks run in
 * registration order, post callbacks in reverse order. Returns the client
 * handle (>= 0), or -1 when no more clients can be registered: a process
 * has 8 client slots, built-in clients included (the recorder or the
 * counters of `cutap trace`/`cutap stat`, and capture control, logging,
 * fault injection or synchronised launches when asked for), because the
 * set of clients enabled for each id is one byte that every intercepted
 * call reads; a slot is never reused in a process.
 * A new client is enabled for no id.
 */
CUTAP_PUBLIC int cutap_register(const char *name, cutap_pre_fn pre, cutap_post_fn post, void *ctx);

/* Stop a client: none of its callbacks starts after this returns (those
 * already running on other threads finish; keep the plugin loaded). */
CUTAP_PUBLIC int cutap_unregister(int client);

/* Turn a client's callbacks on or off for one id or CUTAP_ID_ALL. Ids with
 * no enabled client cost only the pass-through. Returns 0, or -1 for a bad
 * client or id. For one id it may be called from a signal handler (to
 * toggle tracing on a signal, say): where the handler interrupted its own
 * thread's change of clients, the id's change takes effect when that
 * change is done, without waiting. CUTAP_ID_ALL and the functions below
 * take locks: not from a signal handler. */
CUTAP_PUBLIC int cutap_enable(int client, uint32_t id, int on);
/* The same by name: 0, or -1 when cutap knows no function of that name. */
CUTAP_PUBLIC int cutap_enable_name(int client, const char *name, int on);
/* Turn a client on for the functions a filter selects, present and
 * future (dynamic ids made later too): cutap's filter language
 * (`cutap trace -e`): comma-separated globs on names, layer=NAME, and
 * exclusions with a leading '!'. Returns 0, or -1 for a bad filter (the
 * message goes to cutap's warning channel). */
CUTAP_PUBLIC int cutap_enable_filter(int client, const char *filter);

/* Whether the client wants each call's t0 and t1 read (API version 3);
 * off at registration. Returns 0, or -1 for a bad client. */
CUTAP_PUBLIC int cutap_want_time(int client, int on);

/* fn(ctx) runs once at the normal exit (exit(), return from main; not
 * _exit, a signal or exec) of the process that registered it (a forked
 * child's exit runs none), last registered client first, while cutap
 * still records: a plugin's summary, a shared counter given back. It runs
 * among the process's atexit handlers, possibly after libraries that
 * registered theirs later (the CUDA runtime's) have shut down: make no
 * CUDA call there. NULL removes it. Returns 0, or -1 for a bad client. */
CUTAP_PUBLIC int cutap_on_exit(int client, void (*fn)(void *ctx));

/* Names and metadata. */
CUTAP_PUBLIC uint32_t cutap_call_count(void);                 /* ids in use, dynamic ones included */
CUTAP_PUBLIC const char *cutap_call_name(uint32_t id);        /* exported name, "<TABLE>#<slot>", … */
CUTAP_PUBLIC int cutap_call_layer(uint32_t id);               /* its layer, -1 if unknown */
CUTAP_PUBLIC int cutap_call_nargs(uint32_t id);               /* -1 when the signature is unknown */
CUTAP_PUBLIC const cutap_arg_info_t *cutap_call_arg(uint32_t id, unsigned index);
CUTAP_PUBLIC uint32_t cutap_lookup(const char *name);         /* CUTAP_ID_ALL when unknown */
CUTAP_PUBLIC int cutap_layer_lookup(const char *name);        /* -1 when unknown */
CUTAP_PUBLIC const char *cutap_layer_name(int layer);         /* NULL when unknown */

/* What a call's result is (cutap_call_result_kind). */
enum {
    CUTAP_RESULT_UNKNOWN = 0,   /* untyped: the signature is unknown */
    CUTAP_RESULT_STATUS = 1,    /* a status code of its layer, 0 = success (CUresult, cudaError_t, cublasStatus_t...) */
    CUTAP_RESULT_VALUE = 2,     /* an integer or enum that is no status (a count, a version, a type) */
    CUTAP_RESULT_POINTER = 3,   /* a pointer or handle */
    CUTAP_RESULT_VOID = 4,      /* nothing */
};
CUTAP_PUBLIC int cutap_call_result_kind(uint32_t id);           /* CUTAP_RESULT_*; UNKNOWN for a bad id */
/* The name of a status value of a layer ("CUDA_ERROR_OUT_OF_MEMORY",
 * "cudaErrorMemoryAllocation", "CUBLAS_STATUS_NOT_INITIALIZED"), from the
 * low 32 bits of value; NULL when the layer has no status enum or the
 * value is none of its constants. */
CUTAP_PUBLIC const char *cutap_status_name(int layer, uint64_t value);

/* Name of a cuGetExportTable UUID (16 bytes), or NULL if cutap does not know it. */
CUTAP_PUBLIC const char *cutap_export_table_name(const void *uuid16);

/* Nesting depth of the calling thread: intercepted calls now on its stack. */
CUTAP_PUBLIC unsigned cutap_thread_depth(void);

/*
 * Plugins (CUTAP_PLUGINS=a.so:b.so, loaded in that order) export two
 * functions, declared below with default visibility so that a plugin
 * built with -fvisibility=hidden still exports them:
 *
 *   int cutap_plugin_negotiate(cutap_plugin_negotiate_t *n);
 *       cutap fills struct_size, api_version (the newest it serves),
 *       api_version_min (the oldest) and cutap_version; the plugin sets
 *       api_version to the version it speaks (within the range) and
 *       returns 0, or returns non-zero to decline. Only the fields up to
 *       struct_size exist: a later cutap may add fields at the end.
 *       CUTAP_PLUGIN_NEGOTIATE() defines the usual one (speaks this
 *       header's CUTAP_API_VERSION).
 *   int cutap_plugin_init(unsigned api_version);
 *       called with the negotiated version; returns 0 on success.
 *
 * A plugin without cutap_plugin_negotiate is of API version 1 and is not
 * loaded (its call ids were compiled in): cutap says so.
 *
 * A plugin that cannot be loaded, declines, or whose init returns non-zero
 * is reported (cutap's warning channel: stderr, or the trace's registry
 * under `cutap trace`) and the program runs without it, unless its entry
 * in CUTAP_PLUGINS starts with '+' (CUTAP_PLUGINS=+/opt/limit.so:obs.so):
 * a required plugin that fails stops the process before main, with the
 * reason on stderr and exit status 127, so that a limiter never fails
 * open. A plugin listed twice (the same file) is loaded and initialised
 * once; cutap says so.
 */
typedef struct cutap_plugin_negotiate {
    uint32_t struct_size;
    uint32_t api_version;        /* in: newest served; out: the plugin's */
    uint32_t api_version_min;    /* in: oldest served */
    uint32_t reserved;
    const char *cutap_version;   /* in: CUTAP_VERSION of the library */
} cutap_plugin_negotiate_t;
CUTAP_PUBLIC int cutap_plugin_negotiate(cutap_plugin_negotiate_t *n);
CUTAP_PUBLIC int cutap_plugin_init(unsigned api_version);
typedef int (*cutap_plugin_negotiate_fn)(cutap_plugin_negotiate_t *n);
typedef int (*cutap_plugin_init_fn)(unsigned api_version);
#define CUTAP_PLUGIN_ENTRY "cutap_plugin_init"
#define CUTAP_PLUGIN_NEGOTIATE_ENTRY "cutap_plugin_negotiate"
#define CUTAP_PLUGIN_NEGOTIATE()                                                                  \
    __attribute__((visibility("default"))) int cutap_plugin_negotiate(cutap_plugin_negotiate_t *n); \
    __attribute__((visibility("default"))) int cutap_plugin_negotiate(cutap_plugin_negotiate_t *n)  \
    {                                                                                             \
        if (!n || n->struct_size < 12 || n->api_version < CUTAP_API_VERSION ||                    \
            n->api_version_min > CUTAP_API_VERSION)                                               \
            return -1;                                                                            \
        n->api_version = CUTAP_API_VERSION;                                                       \
        return 0;                                                                                 \
    }

#ifdef __cplusplus
}
#endif

#endif /* CUTAP_H */
