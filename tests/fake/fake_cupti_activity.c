/* The fake libcupti's activity API (with fake_cupti.c, its subscriber API),
 * for `cutap trace --gpu` (src/record/gpu.c) without a GPU. It models what
 * the real CUPTI 13.0 does, as measured on the H100 (issue #31):
 *
 *   - records in the client's buffers: cuptiActivityRegisterCallbacks'
 *     bufferRequested hands one out when a record needs room (none, or too
 *     small: the record is dropped and counted), bufferCompleted gets it
 *     back when it is full (on a thread of the fake's own), at every
 *     period of cuptiActivityFlushPeriod (that thread; 0: none), and at
 *     cuptiActivityFlushAll (the caller's thread, after the deliveries in
 *     progress); cuptiActivityGetNextRecord walks one; context NULL,
 *     stream 0 (the global queue)
 *   - the kinds enabled (cuptiActivityEnable/Disable): CONCURRENT_KERNEL
 *     (or KERNEL), MEMCPY, MEMSET, EXTERNAL_CORRELATION, DRIVER, RUNTIME;
 *     API records of one callback id with cuptiActivityEnableDriverApi /
 *     EnableRuntimeApi (a runtime id also sets the driver's runtime
 *     callback word: the runtime copies then report that call,
 *     tests/fake/fake_tools.c)
 *   - per thread, a stack of external correlation ids per kind
 *     (cuptiActivityPush/PopExternalCorrelationId)
 *   - a tracked API call (of an enabled callback id, driver or runtime;
 *     API records or the subscriber's callbacks: fake_cupti.c's
 *     cuptiEnableCallback) gets a correlation id when it starts; an
 *     EXTERNAL_CORRELATION record
 *     per kind whose stack is not empty then pairs the top id with it; its
 *     API record (kind 4 or 5) is made when it ends; an API call made
 *     while another tracked one is open on the thread (the runtime's
 *     driver calls) is not tracked, as CUPTI does (on the H100, 7
 *     correlations a round of tests/gpu/workloads/gpu_activity.cu's 13
 *     enqueuing calls)
 *   - a driver function's subscriber callbacks, on the calling thread
 *     inside the call: its entry's (and, for a call tracked itself, its
 *     exit's) with the call's correlation id; a call inside another
 *     tracked one gets the outer call's id (on the H200, every kernel of
 *     the GPU suite's workloads carried the id of its driver launch's
 *     callback, runtime launches' included: tests/gpu/gpu_ref.c cb)
 *   - a kernel, copy or memset carries the correlation id of the outermost
 *     tracked call open on the thread that made it (a runtime launch's, not
 *     its driver call's; every node of a graph: the graph launch's); with
 *     none open, an id no record has
 *   - times from cuptiActivityRegisterTimestampCallback's function, else
 *     CLOCK_REALTIME; the GPU's work after the call began and after the
 *     device's previous work, one after the other
 *   - kernel names as strings kept for the process's life.
 * Record layouts: CUDA 13.0's CUpti_ActivityKernel10, Memcpy6, Memset4,
 * API, ExternalCorrelation (the offsets pinned below).
 *
 *   FAKE_CUPTI_NO_ACTIVITY=1  every activity function fails
 *                             (CUPTI_ERROR_NOT_SUPPORTED)
 *   FAKE_CUPTI_DROP=N         N records reported dropped (the first
 *                             cuptiActivityGetNumDroppedRecords; the count
 *                             resets when read, as CUPTI's)
 *   FAKE_CUPTI_NO_TS_CB=1     no timestamp callback (its registration
 *                             fails): CLOCK_REALTIME
 *   FAKE_CUPTI_NO_API_ENABLE=1  no cuptiActivityEnableDriverApi/
 *                             EnableRuntimeApi (they fail, as in a CUPTI
 *                             before 12.6): API records by kind only
 *   FAKE_CUPTI_CBID_MAX=D,R   (fake_cupti.c) API records of callback ids
 *                             above these refused too
 *   FAKE_CUPTI_STEAL_AFTER=N  after N tracked API calls another client
 *                             registers its buffer callbacks (as a
 *                             profiler the program starts does): the
 *                             buffers not yet handed back, and every later
 *                             one, go to it, never to the first client
 *   FAKE_CUPTI_OVERLAP=1      each copy starts 50 ns after the record
 *                             before it and overlaps it on its stream (as
 *                             CUPTI reports some copies, e.g. host-to-host
 *                             ones in XLA programs)
 *   FAKE_CUPTI_LOG=FILE       a line per buffer handed back: "deliver WHY
 *                             records N on THREAD", WHY full, period or
 *                             flush, THREAD fake (the fake's own) or caller
 *   FAKE_CUPTI_TABLES=1       cuptiActivityRegisterCallbacks gets a driver
 *                             export table through cuGetExportTable, as
 *                             CUPTI does while it starts, and says on
 *                             stderr whether it is the driver's own */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cupti_min.h"
#include "fake_activity.h"

enum {
    OK = 0,
    E_INVALID_PARAMETER = 1,
    E_MAX_LIMIT_REACHED = 12,
    E_QUEUE_EMPTY = 18,
    E_INVALID_KIND = 21,
    E_NOT_SUPPORTED = 27,
};
enum {
    K_MEMCPY = 1, K_MEMSET = 2, K_KERNEL = 3, K_DRIVER = 4, K_RUNTIME = 5, K_CONCURRENT_KERNEL = 10,
    K_MEMCPY2 = 22,   /* peer copies between devices: CUPTI reports them as this kind, not MEMCPY */
    K_EXTERNAL_CORRELATION = 39, K_MAX = 64,
};
#define EXT_KINDS 6   /* CUpti_ExternalCorrelationKind: UNKNOWN (1) to CUSTOM2 (5) */

/* --- the records (CUDA 13.0) --------------------------------------------- */
struct kernel10 {
    uint32_t kind;
    uint8_t misc[12];
    uint64_t start, end, completed;
    uint32_t device, context, stream;
    int32_t grid[3], block[3];
    uint32_t static_smem, dynamic_smem, local_per_thread, local_total, correlation, runtime_correlation;
    uint32_t reserved0;
    const char *name;
    uint8_t rest[216 - 112];
};
struct memcpy6 {
    uint32_t kind;
    uint8_t copy_kind, src_kind, dst_kind, flags;
    uint64_t bytes, start, end;
    uint32_t device, context, stream, correlation, runtime_correlation, pad;
    uint64_t reserved0, graph_node;
    uint32_t graph, channel_id, channel_type, pad2;
    uint64_t copy_count;
};
struct ptop4 {   /* CUpti_ActivityMemcpyPtoP4 */
    uint32_t kind;
    uint8_t copy_kind, src_kind, dst_kind, flags;
    uint64_t bytes, start, end;
    uint32_t device, context, stream, src_device, src_context, dst_device, dst_context, correlation;
    uint64_t reserved0, graph_node;
    uint32_t graph, channel_id, channel_type, pad;
    uint64_t copy_count;
};
struct memset4 {
    uint32_t kind, value;
    uint64_t bytes, start, end;
    uint32_t device, context, stream, correlation;
    uint16_t flags, memory_kind;
    uint32_t pad;
    uint64_t reserved0, graph_node;
    uint32_t graph, channel_id, channel_type, pad2;
};
struct api {
    uint32_t kind, cbid;
    uint64_t start, end;
    uint32_t process, thread, correlation, result;
};
struct ext_corr {
    uint32_t kind, ext_kind;
    uint64_t ext_id;
    uint32_t correlation, pad;
};
_Static_assert(sizeof(struct kernel10) == 216 && offsetof(struct kernel10, start) == 16 &&
                   offsetof(struct kernel10, device) == 40 && offsetof(struct kernel10, grid) == 52 &&
                   offsetof(struct kernel10, block) == 64 && offsetof(struct kernel10, correlation) == 92 &&
                   offsetof(struct kernel10, name) == 104,
               "CUpti_ActivityKernel10");
_Static_assert(sizeof(struct memcpy6) == 96 && offsetof(struct memcpy6, device) == 32 &&
                   offsetof(struct memcpy6, correlation) == 44 && offsetof(struct memcpy6, graph_node) == 64 &&
                   offsetof(struct memcpy6, graph) == 72,
               "CUpti_ActivityMemcpy6");
_Static_assert(offsetof(struct ptop4, src_device) == 44 && offsetof(struct ptop4, dst_device) == 52 &&
                   offsetof(struct ptop4, correlation) == 60 && offsetof(struct ptop4, graph_node) == 72 &&
                   offsetof(struct ptop4, graph) == 80,
               "CUpti_ActivityMemcpyPtoP4");
_Static_assert(sizeof(struct memset4) == 88 && offsetof(struct memset4, stream) == 40 &&
                   offsetof(struct memset4, correlation) == 44 && offsetof(struct memset4, graph_node) == 64 &&
                   offsetof(struct memset4, graph) == 72,
               "CUpti_ActivityMemset4");
_Static_assert(sizeof(struct api) == 40 && offsetof(struct api, correlation) == 32, "CUpti_ActivityAPI");
_Static_assert(sizeof(struct ext_corr) == 24 && offsetof(struct ext_corr, correlation) == 16,
               "CUpti_ActivityExternalCorrelation");

static size_t size_of(uint32_t kind)
{
    switch (kind) {
    case K_KERNEL:
    case K_CONCURRENT_KERNEL: return sizeof(struct kernel10);
    case K_MEMCPY: return sizeof(struct memcpy6);
    case K_MEMCPY2: return sizeof(struct ptop4);
    case K_MEMSET: return sizeof(struct memset4);
    case K_DRIVER:
    case K_RUNTIME: return sizeof(struct api);
    case K_EXTERNAL_CORRELATION: return sizeof(struct ext_corr);
    }
    return 0;
}

/* --- settings ------------------------------------------------------------- */
typedef void (*req_fn)(uint8_t **buffer, size_t *size, size_t *max_records);
typedef void (*done_fn)(void *ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid);
static req_fn requested;
static done_fn completed;
static _Atomic int stolen;   /* FAKE_CUPTI_STEAL_AFTER: another client has the buffers */
static uint64_t (*_Atomic ts_fn)(void);
static _Atomic uint8_t kind_on[K_MAX];
#define CBIDS 4096
static _Atomic uint8_t api_on[2][CBIDS];   /* [0] driver, [1] runtime: per callback id */
static _Atomic uint32_t next_corr;
static _Atomic uint64_t dropped;

static int refused(void)
{
    static _Atomic int r = -1;
    int v = atomic_load_explicit(&r, memory_order_relaxed);
    if (v < 0) {
        const char *e = getenv("FAKE_CUPTI_NO_ACTIVITY");
        atomic_store(&r, v = e && !strcmp(e, "1"));
    }
    return v;
}

static uint64_t now(void)
{
    uint64_t (*f)(void) = atomic_load(&ts_fn);
    if (f)
        return f();
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* --- buffers --------------------------------------------------------------- */
#define QUEUE 256
static pthread_mutex_t buf_lock = PTHREAD_MUTEX_INITIALIZER;   /* the current buffer, the queue */
static pthread_cond_t buf_cond = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t deliver_lock = PTHREAD_MUTEX_INITIALIZER;   /* one delivery at a time */
static struct buf {
    uint8_t *p;
    size_t size, used, nrec, max;
    const char *why;   /* why it is handed back */
} cur, queue[QUEUE];
static unsigned nq;
static uint32_t period_ms;
static int worker_started;
static uint64_t dev_free;   /* when the GPU's last work ends (buf_lock) */

static void *worker(void *unused);

/* The current buffer to the queue (buf_lock held): full, or flushed. */
static void retire(const char *why)
{
    if (!cur.p)
        return;
    cur.why = why;
    if (nq < QUEUE)
        queue[nq++] = cur;
    else   /* (never with the tests' sizes) its records are lost, counted */
        atomic_fetch_add(&dropped, cur.nrec);
    memset(&cur, 0, sizeof cur);
}

static void start_worker(void)   /* buf_lock held */
{
    if (worker_started)
        return;
    pthread_t t;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    worker_started = !pthread_create(&t, &at, worker, NULL);
    pthread_attr_destroy(&at);
}

/* Room for a record of size bytes (buf_lock held), or NULL: dropped. */
static void *room(size_t size)
{
    if (cur.p && (cur.used + size > cur.size || (cur.max && cur.nrec >= cur.max))) {
        retire("full");   /* delivered on the fake's thread */
        start_worker();
        pthread_cond_signal(&buf_cond);
    }
    if (!cur.p && requested) {
        uint8_t *p = NULL;
        size_t n = 0, max = 0;
        requested(&p, &n, &max);
        if (p && n >= size)
            cur = (struct buf){.p = p, .size = n, .max = max};
        /* (a buffer too small is not CUPTI's to free: kept by the client) */
    }
    if (!cur.p) {
        atomic_fetch_add(&dropped, 1);
        return NULL;
    }
    void *r = cur.p + cur.used;
    cur.used += size;
    cur.nrec++;
    return r;
}

static void put(const void *rec, size_t size)
{
    pthread_mutex_lock(&buf_lock);
    void *r = room(size);
    if (r)
        memcpy(r, rec, size);
    pthread_mutex_unlock(&buf_lock);
}

static void log_delivery(const struct buf *b, const char *thread)
{
    const char *path = getenv("FAKE_CUPTI_LOG");
    int fd = path && *path ? open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
    if (fd >= 0) {
        dprintf(fd, "deliver %s records %zu on %s\n", b->why, b->nrec, thread);
        close(fd);
    }
}

/* Hands the queued buffers back (with the current one too when why is
 * not NULL: a flush). */
static void deliver(const char *why, const char *thread)
{
    pthread_mutex_lock(&deliver_lock);
    for (;;) {
        pthread_mutex_lock(&buf_lock);
        if (why && !nq && cur.p && cur.used)
            retire(why);
        struct buf b = {0};
        if (nq) {
            b = queue[0];
            memmove(queue, queue + 1, --nq * sizeof queue[0]);
        }
        pthread_mutex_unlock(&buf_lock);
        if (!b.p)
            break;
        log_delivery(&b, thread);
        if (atomic_load(&stolen))
            free(b.p);   /* the other client's: it frees what it gets */
        else if (completed)
            completed(NULL, 0, b.p, b.size, b.used);
    }
    pthread_mutex_unlock(&deliver_lock);
}

static void *worker(void *unused)
{
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&buf_lock);
        uint32_t ms = period_ms;
        if (!nq) {
            if (ms) {
                struct timespec until;
                clock_gettime(CLOCK_REALTIME, &until);
                until.tv_sec += ms / 1000;
                until.tv_nsec += (long)(ms % 1000) * 1000000;
                if (until.tv_nsec >= 1000000000) {
                    until.tv_sec++;
                    until.tv_nsec -= 1000000000;
                }
                pthread_cond_timedwait(&buf_cond, &buf_lock, &until);
            } else
                pthread_cond_wait(&buf_cond, &buf_lock);
        }
        int full = nq > 0;
        pthread_mutex_unlock(&buf_lock);
        deliver(!full && ms ? "period" : NULL, "fake");   /* a period's flush: the current buffer too */
    }
    return NULL;
}

/* --- the calling thread's stacks ------------------------------------------ */
#define DEPTH 64
static __thread uint64_t ext_ids[EXT_KINDS][DEPTH];
static __thread unsigned ext_n[EXT_KINDS];
static __thread struct open_call {
    int domain;
    uint32_t cbid, corr;
    uint64_t start;
} calls[DEPTH];
static __thread unsigned ncalls;

static int tracked(int domain, uint32_t cbid)
{
    return atomic_load_explicit(&kind_on[domain], memory_order_relaxed) ||
           (cbid < CBIDS && atomic_load_explicit(&api_on[domain == K_RUNTIME][cbid], memory_order_relaxed)) ||
           fake_cupti_cb_wanted(domain == K_RUNTIME, cbid);
}

/* A tracked call's correlation id (0: not tracked). */
static uint32_t enter(int domain, uint32_t cbid)
{
    if (!tracked(domain, cbid))
        return 0;
    if (ncalls) {   /* inside another tracked call: not tracked; its end finds the outer call on top */
        if (domain == K_DRIVER && ncalls <= DEPTH)
            fake_cupti_cb(cbid, 0, calls[0].corr);
        return 0;
    }
    uint32_t corr = atomic_fetch_add(&next_corr, 1) + 1;
    const char *st = getenv("FAKE_CUPTI_STEAL_AFTER");
    if (st && *st && corr > strtoul(st, NULL, 10))
        atomic_store(&stolen, 1);
    if (ncalls < DEPTH)
        calls[ncalls] = (struct open_call){domain, cbid, corr, now()};
    ncalls++;
    if (atomic_load_explicit(&kind_on[K_EXTERNAL_CORRELATION], memory_order_relaxed))
        for (uint32_t k = 1; k < EXT_KINDS; k++)
            if (ext_n[k] && ext_n[k] <= DEPTH) {
                struct ext_corr e = {.kind = K_EXTERNAL_CORRELATION, .ext_kind = k, .ext_id = ext_ids[k][ext_n[k] - 1],
                                     .correlation = corr};
                put(&e, sizeof e);
            }
    if (domain == K_DRIVER)
        fake_cupti_cb(cbid, 0, corr);
    return corr;
}

/* Its end: the call's correlation id (0: its start was not seen). */
static uint32_t leave(int domain, uint32_t cbid)
{
    if (!ncalls)
        return 0;   /* its start was not seen */
    if (ncalls > DEPTH) {
        ncalls--;
        return 0;
    }
    struct open_call *c = &calls[ncalls - 1];
    if (c->domain != domain || c->cbid != cbid)
        return 0;   /* not the call open on top: its start was not seen */
    ncalls--;
    if (domain == K_DRIVER)
        fake_cupti_cb(cbid, 1, c->corr);
    if (!atomic_load_explicit(&kind_on[domain], memory_order_relaxed) &&
        !(cbid < CBIDS && atomic_load_explicit(&api_on[domain == K_RUNTIME][cbid], memory_order_relaxed)))
        return c->corr;
    struct api a = {.kind = (uint32_t)domain, .cbid = cbid, .start = c->start, .end = now(),
                    .process = (uint32_t)getpid(), .thread = (uint32_t)syscall(SYS_gettid), .correlation = c->corr};
    put(&a, sizeof a);
    return c->corr;
}
static int act_enter(int domain, uint32_t cbid) { return enter(domain, cbid) != 0; }
static void act_leave(int domain, uint32_t cbid) { leave(domain, cbid); }

/* Kernel names, kept (the driver's may be any string). */
#define NAMES 256
static const char *names[NAMES];
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *keep(const char *s)
{
    const char *r = "fake_kernel";
    pthread_mutex_lock(&names_lock);
    for (int i = 0; s && i < NAMES; i++) {
        if (!names[i]) {
            names[i] = strdup(s);
            r = names[i] ? names[i] : r;
            break;
        }
        if (!strcmp(names[i], s)) {
            r = names[i];
            break;
        }
    }
    pthread_mutex_unlock(&names_lock);
    return r;
}

static void act_work(const struct fake_gpu_work *w)
{
    int kk = atomic_load(&kind_on[K_CONCURRENT_KERNEL]) ? K_CONCURRENT_KERNEL : K_KERNEL;
    int kind = w->type == FAKE_WORK_KERNEL ? kk : w->type == FAKE_WORK_MEMCPY ? K_MEMCPY : K_MEMSET;
    if (w->type == FAKE_WORK_MEMCPY && w->copy_kind == 10)   /* PtoP: its own kind */
        kind = K_MEMCPY2;
    if (!atomic_load(&kind_on[kind]))
        return;
    uint32_t corr = ncalls ? calls[0].corr : atomic_fetch_add(&next_corr, 1) + 1;
    uint64_t dur = w->type == FAKE_WORK_KERNEL ? 1500 : 200 + w->bytes / 16;
    union {
        struct kernel10 k;
        struct memcpy6 c;
        struct ptop4 pp;
        struct memset4 s;
    } r;
    memset(&r, 0, sizeof r);
    const char *name = w->type == FAKE_WORK_KERNEL ? keep(w->name) : NULL;
    uint64_t t = now();
    pthread_mutex_lock(&buf_lock);
    static struct {
        uint32_t stream;
        uint64_t start;
    } last[64];   /* the last record's start on a stream (a stream's slot: its id mod 64) */
    static int overlap = -1;
    if (overlap < 0) {
        const char *o = getenv("FAKE_CUPTI_OVERLAP");
        overlap = o && *o == '1';
    }
    uint64_t start = (t > dev_free ? t : dev_free) + 100, end = start + dur;
    unsigned ls = w->stream % 64;
    if (overlap && w->type == FAKE_WORK_MEMCPY && last[ls].start && last[ls].stream == w->stream) {
        start = last[ls].start + 50;   /* inside the record before it on its stream */
        end = start + dur;
    }
    last[ls].stream = w->stream;
    last[ls].start = start;
    if (end > dev_free)
        dev_free = end;
    if (w->type == FAKE_WORK_KERNEL) {
        r.k = (struct kernel10){.kind = (uint32_t)kind, .start = start, .end = end, .completed = end, .context = 1,
                                .stream = w->stream, .correlation = corr, .name = name};
        for (int i = 0; i < 3; i++)
            r.k.grid[i] = (int32_t)w->grid[i], r.k.block[i] = (int32_t)w->block[i];
        memcpy(r.k.rest + 144 - 112, &w->graph_node, 8);   /* graphNodeId, graphId */
        memcpy(r.k.rest + 156 - 112, &w->graph, 4);
    } else if (w->type == FAKE_WORK_MEMCPY)
        r.c = (struct memcpy6){.kind = K_MEMCPY, .copy_kind = w->copy_kind, .src_kind = w->src_kind,
                               .dst_kind = w->dst_kind, .bytes = w->bytes, .start = start, .end = end, .context = 1,
                               .stream = w->stream, .correlation = corr, .graph_node = w->graph_node,
                               .graph = w->graph, .copy_count = 1};
    if (kind == K_MEMCPY2)
        r.pp = (struct ptop4){.kind = K_MEMCPY2, .copy_kind = w->copy_kind, .src_kind = w->src_kind,
                              .dst_kind = w->dst_kind, .bytes = w->bytes, .start = start, .end = end, .context = 1,
                              .stream = w->stream, .src_device = 0, .dst_device = 1, .correlation = corr,
                              .graph_node = w->graph_node, .graph = w->graph, .copy_count = 1};
    else if (w->type == FAKE_WORK_MEMSET)
        r.s = (struct memset4){.kind = K_MEMSET, .value = w->value, .bytes = w->bytes, .start = start, .end = end,
                               .context = 1, .stream = w->stream, .correlation = corr, .memory_kind = 3,
                               .graph_node = w->graph_node, .graph = w->graph};
    void *p = room(size_of((uint32_t)kind));
    if (p)
        memcpy(p, &r, size_of((uint32_t)kind));
    pthread_mutex_unlock(&buf_lock);
}

static const struct fake_activity_ops ops = {act_enter, act_leave, act_work};

/* The driver is told where to find us (once): from the first enabling on. */
static void attach(void);
void fake_act_attach(void) { attach(); }
static void attach(void)
{
    static _Atomic int done;
    if (atomic_exchange(&done, 1))
        return;
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    void (*f)(const struct fake_activity_ops *) =
        h ? (void (*)(const struct fake_activity_ops *))dlsym(h, "fake_activity_attach") : NULL;
    if (f)
        f(&ops);
}

/* The driver's runtime-callback word of a runtime callback id. */
static void runtime_word(int cbid, int on)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    void (*en)(int, int) = h ? (void (*)(int, int))dlsym(h, "fake_tools_enable") : NULL;
    if (en)
        en(cbid, on);
}

/* The words a subscriber's end cleared that the activity API still wants. */
void fake_act_rewords(void)
{
    if (atomic_load(&kind_on[K_RUNTIME]))
        runtime_word(-1, 1);
    else
        for (int i = 1; i < CBIDS && i < 1024; i++)
            if (atomic_load(&api_on[1][i]))
                runtime_word(i, 1);
}

/* A runtime copy's report (fake_cupti.c's fake_cupti_dispatch): the
 * call's correlation id, which CUPTI's subscribers get too (the same at
 * its entry and its exit, as CUPTI's), or a new one where the activity
 * API does not track the call. */
uint32_t fake_act_runtime(const struct rt_copy_record *r)
{
    uint32_t c = r->site == 0 ? enter(K_RUNTIME, r->cbid) : r->site == 1 ? leave(K_RUNTIME, r->cbid) : 0;
    return c ? c : atomic_fetch_add(&next_corr, 1) + 1;
}

/* FAKE_CUPTI_TABLES=1: as the real CUPTI does while it starts, a driver
 * export table (the fake's FAKE_SIZED) through the public
 * cuGetExportTable; says on stderr whether it got the driver's own table
 * ("FAKE_CUPTI tables driver") or an interposer's copy ("... copy"). */
static void tables_seen(void)
{
    const char *e = getenv("FAKE_CUPTI_TABLES");
    if (!e || strcmp(e, "1"))
        return;
    static const unsigned char sized[16] = {0xfa, 0x4e, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01};
    int (*get)(const void **, const void *) = (int (*)(const void **, const void *))dlsym(RTLD_DEFAULT,
                                                                                           "cuGetExportTable");
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    const void *(*own)(const void *) = h ? (const void *(*)(const void *))dlsym(h, "fake_export_table") : NULL;
    const void *t = NULL;
    if (!get || !own || get(&t, sized) || !t)
        fprintf(stderr, "FAKE_CUPTI tables none\n");
    else
        fprintf(stderr, "FAKE_CUPTI tables %s\n", t == own(sized) ? "driver" : "copy");
}

/* --- the API ----------------------------------------------------------------- */
#define EXPORT __attribute__((visibility("default")))

EXPORT int cuptiActivityRegisterCallbacks(req_fn req, done_fn done)
{
    if (refused())
        return E_NOT_SUPPORTED;
    if (!req || !done)
        return E_INVALID_PARAMETER;
    const char *d = getenv("FAKE_CUPTI_DROP");
    if (d && *d && !requested)
        atomic_fetch_add(&dropped, strtoull(d, NULL, 10));
    requested = req;
    completed = done;
    /* As the real CUPTI does while it starts: calls to the driver through
     * its public entry points (cuGetExportTable there), which an
     * interposer records, made from inside the program's cuInit when a tool
     * starts CUPTI there; and time passes. */
    int (*version)(int *) = (int (*)(int *))dlsym(RTLD_DEFAULT, "cuDriverGetVersion");
    int v;
    if (version)
        version(&v);
    tables_seen();
    struct timespec ts = {0, 300000};
    nanosleep(&ts, NULL);
    return OK;
}

EXPORT int cuptiActivityRegisterTimestampCallback(uint64_t (*f)(void))
{
    const char *e = getenv("FAKE_CUPTI_NO_TS_CB");
    if (refused() || (e && !strcmp(e, "1")))
        return E_NOT_SUPPORTED;
    if (!f)
        return E_INVALID_PARAMETER;
    atomic_store(&ts_fn, f);
    return OK;
}

static int enable(int kind, uint8_t on)
{
    if (refused())
        return E_NOT_SUPPORTED;
    if (!size_of((uint32_t)kind))
        return E_INVALID_KIND;
    atomic_store(&kind_on[kind], on);
    if (kind == K_RUNTIME)
        runtime_word(-1, on);   /* every runtime call reported */
    if (kind == K_DRIVER || kind == K_RUNTIME)
        for (int i = 0; i < CBIDS; i++)
            atomic_store(&api_on[kind == K_RUNTIME][i], on);   /* the kind overrides earlier choices */
    attach();
    return OK;
}
EXPORT int cuptiActivityEnable(int kind) { return enable(kind, 1); }
EXPORT int cuptiActivityDisable(int kind) { return enable(kind, 0); }

static int enable_api(int runtime, uint32_t cbid, uint8_t on)
{
    const char *e = getenv("FAKE_CUPTI_NO_API_ENABLE");
    if (refused() || (e && !strcmp(e, "1")))
        return E_NOT_SUPPORTED;
    if (!cbid || cbid >= CBIDS || cbid > fake_cupti_known_max(runtime))
        return E_INVALID_PARAMETER;
    atomic_store(&api_on[runtime][cbid], on != 0);
    if (runtime)
        runtime_word((int)cbid, on != 0);
    attach();
    return OK;
}
EXPORT int cuptiActivityEnableDriverApi(uint32_t cbid, uint8_t on) { return enable_api(0, cbid, on); }
EXPORT int cuptiActivityEnableRuntimeApi(uint32_t cbid, uint8_t on) { return enable_api(1, cbid, on); }

EXPORT int cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, void **record)
{
    if (refused())
        return E_NOT_SUPPORTED;
    if (!buffer || !record)
        return E_INVALID_PARAMETER;
    uint8_t *p = *record ? (uint8_t *)*record + size_of(*(const uint32_t *)*record) : buffer;
    if (p < buffer || (size_t)(p - buffer) + 4 > valid)
        return E_MAX_LIMIT_REACHED;
    size_t n = size_of(*(const uint32_t *)p);
    if (!n)
        return E_INVALID_KIND;
    if ((size_t)(p - buffer) + n > valid)
        return E_MAX_LIMIT_REACHED;
    *record = p;
    return OK;
}

EXPORT int cuptiActivityFlushAll(uint32_t flag)
{
    (void)flag;
    if (refused())
        return E_NOT_SUPPORTED;
    deliver("flush", "caller");
    return OK;
}

EXPORT int cuptiActivityFlushPeriod(uint32_t ms)
{
    if (refused())
        return E_NOT_SUPPORTED;
    pthread_mutex_lock(&buf_lock);
    period_ms = ms;
    if (ms)
        start_worker();
    pthread_cond_signal(&buf_cond);
    pthread_mutex_unlock(&buf_lock);
    return OK;
}

EXPORT int cuptiActivityGetNumDroppedRecords(void *context, uint32_t stream, size_t *n)
{
    (void)context, (void)stream;
    if (refused())
        return E_NOT_SUPPORTED;
    if (!n)
        return E_INVALID_PARAMETER;
    *n = (size_t)atomic_exchange(&dropped, 0);   /* reset when read */
    return OK;
}

EXPORT int cuptiActivityPushExternalCorrelationId(int kind, uint64_t id)
{
    if (refused())
        return E_NOT_SUPPORTED;
    if (kind <= 0 || kind >= EXT_KINDS)
        return E_INVALID_PARAMETER;
    if (ext_n[kind] < DEPTH)
        ext_ids[kind][ext_n[kind]] = id;
    ext_n[kind]++;
    return OK;
}

EXPORT int cuptiActivityPopExternalCorrelationId(int kind, uint64_t *last)
{
    if (refused())
        return E_NOT_SUPPORTED;
    if (kind <= 0 || kind >= EXT_KINDS)
        return E_INVALID_PARAMETER;
    if (!ext_n[kind])
        return E_QUEUE_EMPTY;
    ext_n[kind]--;
    if (last)
        *last = ext_n[kind] < DEPTH ? ext_ids[kind][ext_n[kind]] : 0;
    return OK;
}

EXPORT int cuptiGetTimestamp(uint64_t *t)
{
    if (!t)
        return E_INVALID_PARAMETER;
    *t = now();
    return OK;
}
