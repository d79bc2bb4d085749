/* What record/gpu.c (CUPTI's start, its buffers, the GPU chunks) and
 * record/gpu_join.c (joining GPU work to the calls that enqueued it)
 * share (issue #31). */
#ifndef CUTAP_GPU_INTERNAL_H
#define CUTAP_GPU_INTERNAL_H
#include <pthread.h>
#include <stdint.h>

#include "cupti_offsets.h"
#include "writer_internal.h"

/* --- CUPTI ABI (cupti_activity.h, cupti_result.h of CUDA 13.0) ---------- */
enum {
    CUPTI_OK = 0,
    CUPTI_INVALID_PARAMETER = 1,
    CUPTI_MAX_LIMIT_REACHED = 12,
    K_MEMCPY = 1,
    K_MEMSET = 2,
    K_KERNEL = 3,
    K_DRIVER = 4,
    K_RUNTIME = 5,
    K_CONCURRENT_KERNEL = 10,
    K_MEMCPY2 = 22,         /* peer-to-peer copies between devices (CUpti_ActivityMemcpyPtoP) */
    K_EXTERNAL_CORRELATION = 39,
    EXT_KIND = 5,   /* CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2: CUSTOM0/1 are Kineto's */
    FLUSH_FORCED = 1,
};
typedef void (*req_fn)(uint8_t **buffer, size_t *size, size_t *max_records);
typedef void (*done_fn)(void *ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid);
struct gpu_cupti {
    int (*register_callbacks)(req_fn, done_fn);
    int (*enable)(int kind);
    int (*disable)(int kind);
    int (*next_record)(uint8_t *buffer, size_t valid, const void **record);
    int (*flush_all)(uint32_t flag);
    int (*flush_period)(uint32_t ms);
    int (*dropped)(void *ctx, uint32_t stream, size_t *n);
    int (*push)(int kind, uint64_t id);
    int (*pop)(int kind, uint64_t *last);
    int (*timestamp_cb)(uint64_t (*)(void));
    int (*enable_driver_api)(uint32_t cbid, uint8_t on);
    int (*enable_runtime_api)(uint32_t cbid, uint8_t on);
    int (*result_string)(int, const char **);
    int (*subscribe)(void **, void (*)(void *, int, uint32_t, const void *), void *);
    int (*unsubscribe)(void *);
    int (*enable_callback)(uint32_t, void *, int, uint32_t);
};
extern struct gpu_cupti rec_gpu_cupti;   /* libcupti's functions (gpu.c, gpu_start) */
#define C rec_gpu_cupti
enum { CB_DOMAIN_DRIVER = 1, CB_DOMAIN_RUNTIME = 2, CB_ENTER = 0 };
/* CUpti_CallbackData's first field and correlationId (cupti_callbacks.h of
 * CUDA 11.8 to 13.0; resolve/cupti_rt.c pins the whole layout) */
#define CB_SITE(d) AT(d, CO_CB_SITE, int)
#define CB_CORR(d) AT(d, CO_CB_CORR, uint32_t)

/* Field offsets in the records CUPTI 11.8 to 13.0 writes (Kernel8..10,
 * Memcpy5..6, Memset4, ExternalCorrelation, Api): later versions only
 * append fields, so the common prefix is read, never sizeof. */
#define AT(rec, off, type) (*(const type *)(const void *)((const uint8_t *)(rec) + (off)))

extern _Atomic int gpu_live;       /* CUPTI started: places are given */
extern int gpu_client;             /* the gpu-correlation client (-1: none) */
extern int diag_noapi;             /* CUTAP_GPU_DIAG=noapi (rec_gpu_setup) */
extern int diag_allapi;            /* CUTAP_GPU_DIAG=allapi */
extern int diag_push;              /* CUTAP_GPU_DIAG=push: external ids, not callbacks */
extern int diag_nort;              /* CUTAP_GPU_DIAG=nort: callbacks of the driver's functions alone */
extern uint64_t started_ns;        /* when CUPTI was started (CLOCK_MONOTONIC) */
/* join_cb (gpu_join.c): calls joined through cutap's CUPTI callbacks
 * (JOIN_ON) or external ids (JOIN_OFF, also before the start); while
 * cutap subscribes (JOIN_STARTING) and the program asked for CUPTI
 * meanwhile (JOIN_ASKED: cutap lets go as soon as it has it); while cutap
 * lets its subscription go (JOIN_RELEASING). */
enum { JOIN_OFF = 0, JOIN_ON = 1, JOIN_STARTING = 2, JOIN_ASKED = 3, JOIN_RELEASING = 4 };
extern _Atomic int join_cb;

static inline void header_add(uint64_t *field, uint64_t n)
{
    if (rec_file.hdr && n)
        __atomic_fetch_add(field, n, __ATOMIC_RELAXED);
}

/* gpu.c: the GPU chunks' lock, and a GPU record written under it (1, or
 * -1: no room) */
extern pthread_mutex_t w_lock;
int write_gpu(const struct cutap_rec_gpu *g);

/* gpu_join.c: the gpu-correlation client's callbacks around each call
 * that enqueues GPU work; the ways of joining (callbacks: 1 when cutap
 * could subscribe; external ids: CUPTI's result); CUPTI handed to the
 * program's activity client (gpu_yield) or subscriber (gpu_sub_yield);
 * every kind and API record off; a forked child's state. */
int gpu_pre(cutap_call_t *call, void *ctx, uint64_t *scratch);
void gpu_post(cutap_call_t *call, void *ctx, uint64_t *scratch);
int join_by_callbacks(void);
int join_by_external_ids(void);
void gpu_yield(void);
void gpu_sub_yield(void);
void disable_all(void);
void gpu_join_after_fork(void);
/* The driver's stream captures begun and not yet ended on the thread
 * (cutap_tls.gpu_capturing; the gpu-capture client's post callback). */
void gpu_capture_post(cutap_call_t *call, void *ctx, uint64_t *scratch);
#endif
