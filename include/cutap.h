/*
 * cutap — public C API of libcutap.so.
 *
 * libcutap.so is preloaded into a process (LD_PRELOAD, or by `cutap`). It
 * intercepts every CUDA driver entry point, whichever way the program or its
 * libraries reach it, and runs the callbacks that clients registered here
 * before and after the real call. The built-in tracer, the counters and
 * plugins (CUTAP_PLUGINS) are all clients of this API.
 *
 * Call ids: every entry point the generator knows (driver exports, then the
 * functions of the runtime and library layers) has a fixed id
 * (CUTAP_ID_<exported name>, include/generated/cutap_ids.h). Functions found
 * at run time (entry points newer than the tables, export-table slots) get
 * ids from CUTAP_ID_DYNAMIC_BASE on; cutap_call_name() names every id.
 */
#ifndef CUTAP_H
#define CUTAP_H

#include <stddef.h>
#include <stdint.h>

#include "generated/cutap_ids.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUTAP_API_VERSION 1

#define CUTAP_PUBLIC __attribute__((visibility("default")))

/* Upper bound of call ids, static and dynamic together. */
#define CUTAP_MAX_IDS 16384
#define CUTAP_ID_DYNAMIC_BASE CUTAP_STATIC_COUNT
/* Pass to cutap_enable() to mean every id, present and future. */
#define CUTAP_ID_ALL 0xffffffffu
/* At most this many clients (built-in ones included). */
#define CUTAP_MAX_CLIENTS 8

/* Layers: the driver, export-table slots, then the runtime and the
 * libraries (CUTAP_LAYER_RUNTIME, CUTAP_LAYER_CUBLAS, ... CUTAP_LAYER_NVTX,
 * generated in cutap_ids.h with CUTAP_LAYER_NAMES). */
typedef enum cutap_layer {
    CUTAP_LAYER_DRIVER = 0,   /* libcuda.so.1 entry points */
    CUTAP_LAYER_HIDDEN = 1,   /* slots of cuGetExportTable tables */
} cutap_layer_t;

/* Flags of a cutap_call. */
enum {
    /* The signature is unknown (generic trampoline): args[] holds the six
     * integer argument registers as they were, nargs is 6, a pre callback
     * cannot change them nor skip the call. */
    CUTAP_CALL_UNTYPED = 1u << 0,
    /* A pre callback skipped the real call; result is what it supplied. */
    CUTAP_CALL_SKIPPED = 1u << 1,
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

typedef struct cutap_call {
    uint32_t id;          /* call id */
    uint16_t layer;       /* cutap_layer_t */
    uint16_t flags;       /* CUTAP_CALL_* */
    uint32_t nargs;       /* number of words in args */
    uint32_t depth;       /* nesting depth on this thread: 0 = outermost call */
    uint64_t *args;       /* argument words, in declaration order; a pre
                             callback may rewrite them (typed calls only) */
    uint64_t result;      /* post: what the caller receives (CUresult for
                             driver calls, cudaError_t, cublasStatus_t, a
                             pointer, ...); pre: result to return when the
                             callback skips the call */
    void *fn;             /* the real function */
    struct cutap_call *parent;  /* enclosing intercepted call on this thread */
    uint64_t scratch[CUTAP_MAX_CLIENTS];  /* one word per client, zero before pre */
} cutap_call_t;

/* Return values of a pre callback. */
enum {
    CUTAP_PROCEED = 0,    /* call the real function */
    CUTAP_SKIP = 1,       /* do not; the caller gets call->result */
};

typedef int (*cutap_pre_fn)(cutap_call_t *call, void *ctx);
typedef void (*cutap_post_fn)(cutap_call_t *call, void *ctx);

typedef struct cutap_arg_info {
    const char *name;     /* parameter name from the header */
    const char *type;     /* type as spelled in the header */
    int kind;             /* CUTAP_ARG_* */
} cutap_arg_info_t;

/*
 * Register a client. pre and/or post may be NULL. Pre callbacks run in
 * registration order, post callbacks in reverse order. Returns the client
 * handle (>= 0, also its index into cutap_call.scratch) or -1 when the table
 * is full. A new client is enabled for no id: call cutap_enable().
 */
CUTAP_PUBLIC int cutap_register(const char *name, cutap_pre_fn pre, cutap_post_fn post, void *ctx);

/* Turn a client's callbacks on or off for one id or CUTAP_ID_ALL. Ids with
 * no enabled client cost only the pass-through. Returns 0, or -1 for a bad
 * client or id. */
CUTAP_PUBLIC int cutap_enable(int client, uint32_t id, int on);

/* Names and metadata. */
CUTAP_PUBLIC uint32_t cutap_call_count(void);                 /* ids in use, dynamic ones included */
CUTAP_PUBLIC const char *cutap_call_name(uint32_t id);        /* exported name, "<TABLE>#<slot>", … */
CUTAP_PUBLIC int cutap_call_layer(uint32_t id);               /* cutap_layer_t, -1 if unknown */
CUTAP_PUBLIC int cutap_call_nargs(uint32_t id);               /* -1 when the signature is unknown */
CUTAP_PUBLIC const cutap_arg_info_t *cutap_call_arg(uint32_t id, unsigned index);
CUTAP_PUBLIC uint32_t cutap_lookup(const char *name);         /* CUTAP_ID_ALL when unknown */

/* Name of a cuGetExportTable UUID (16 bytes), or NULL if cutap does not know it. */
CUTAP_PUBLIC const char *cutap_export_table_name(const void *uuid16);

/* Nesting depth of the calling thread: intercepted calls now on its stack. */
CUTAP_PUBLIC unsigned cutap_thread_depth(void);

/* Plugins named in CUTAP_PLUGINS export this; it returns 0 on success. */
typedef int (*cutap_plugin_init_fn)(unsigned api_version);
#define CUTAP_PLUGIN_ENTRY "cutap_plugin_init"

#ifdef __cplusplus
}
#endif

#endif /* CUTAP_H */
