/* What ran on the GPU (issue #31, `cutap trace --gpu`, CUTAP_GPU=1):
 * kernels, copies and memsets with their execution intervals, from CUPTI's
 * activity API, joined to the calls that launched them.
 *
 * Source. CUPTI's activity API is the one exact source of GPU-side times
 * (the GPU stamps each kernel's start and end itself); events recorded
 * around each launch would add work to the program's streams and cannot
 * see the kernels inside a graph. CUPTI serves one tool per process: the
 * activity API has no subscriber, and a second registration of buffer
 * callbacks silently replaces the first. So cutap does not start it when
 * another CUPTI tool is injected (CUDA_INJECTION64_PATH) and says so; a
 * profiler the program starts later (PyTorch's) takes the buffers over,
 * and cutap's header then shows fewer records than launches.
 *
 * Start. In a post-call fixup of cuInit (as --runtime=cupti subscribes:
 * resolve/cupti_rt.c): CUPTI needs a working driver. CUPTI's timestamps
 * are set to CLOCK_MONOTONIC (cuptiActivityRegisterTimestampCallback,
 * before any kind is enabled: CUPTI maps the GPU's clock onto it), the
 * clock the trace file's pairs relate the record clock to; without that
 * function they stay CLOCK_REALTIME and the header says so.
 *
 * Joining. CUPTI gives each kernel, copy and memset the correlation id of
 * the API call that enqueued it, and, when an external id was pushed on
 * the calling thread during that call, an EXTERNAL_CORRELATION record
 * pairing the two. cutap pushes, around each call that enqueues GPU work
 * (launches, graph launches, copies, memsets, driver and runtime), the
 * place of that call's record in the file: take << 24 | slot. CUPTI makes
 * such pairs only for calls it makes API records of; it is asked for API
 * records of those functions alone (generated/cupti_gpu_cbid.c), not of
 * every call.
 *
 * Writing. CUPTI hands buffers over on its own threads; they are parsed
 * into 64-byte GPU records (include/cutap_format.h) in GPU chunks, under
 * one lock, with the kernel names as GPU_NAME meta records written once.
 * CUPTI's own calls through the driver's export tables are the
 * instrument's, not the program's: not recorded (cutap_cupti_object). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "writer_internal.h"

/* --- CUPTI ABI (cupti_activity.h, cupti_result.h of CUDA 13.0) ---------- */
enum {
    CUPTI_OK = 0,
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
static struct {
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
} C;

/* Field offsets in the records CUPTI 11.8 to 13.0 writes (Kernel8..10,
 * Memcpy5..6, Memset4, ExternalCorrelation, Api): later versions only
 * append fields, so the common prefix is read, never sizeof. */
#define AT(rec, off, type) (*(const type *)(const void *)((const uint8_t *)(rec) + (off)))

int rec_gpu_asked;                 /* CUTAP_GPU=1 */
static _Atomic int gpu_live;       /* CUPTI started: pushes are made */
static int gpu_client = -1;
static int diag_noapi;   /* CUTAP_GPU_DIAG=noapi (rec_gpu_setup) */
static int diag_allapi;  /* CUTAP_GPU_DIAG=allapi */
static cutap_fixup_fn prev_fixup;
static _Atomic int started;        /* tried (once per process) */

/* --- the GPU chunks ----------------------------------------------------- */
static pthread_mutex_t w_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rec_thread w_thread;  /* the GPU chunks' writer: no thread's own */
static struct cutap_rec_call *w_pos, *w_end;

static void header_add(uint64_t *field, uint64_t n)
{
    if (rec_file.hdr && n)
        __atomic_fetch_add(field, n, __ATOMIC_RELAXED);
}

/* n slots in the current GPU chunk (w_lock held), or NULL: recording stopped. */
static void *w_reserve(unsigned n)
{
    if ((size_t)(w_end - w_pos) < n) {
        if (!w_thread.tid)
            w_thread.tid = (int32_t)syscall(SYS_gettid);
        char *c = rec_chunk_take(&w_thread, CUTAP_CHUNK_GPU, 0);
        if (!c)
            return NULL;
        w_pos = (struct cutap_rec_call *)(c + CUTAP_SLOT);
        w_end = (struct cutap_rec_call *)(c + rec_file.csize);
    }
    void *r = w_pos;
    w_pos += n;
    return r;
}

/* Kernel names: index + 1 by the name's 64-bit hash, each written once. */
#define NAMES_MAX 65536u
static uint64_t name_hash[NAMES_MAX * 2];   /* open addressing; 0 = free */
static uint32_t name_index[NAMES_MAX * 2];
static const char *name_text[NAMES_MAX * 2];   /* as written (in the file's mapping) */
static uint32_t nnames;
#define NAME_ROOM ((size_t)MAX_REC_SLOTS * CUTAP_SLOT - offsetof(struct cutap_rec_meta, text) - 1)
#define NAME_SCAN (1u << 20)   /* a name is read this far at most */

/* The text a name is written as: whole, or its first NAME_ROOM - 3 bytes
 * and "..." (the same for two names that share that much, which the
 * whole names' hashes keep apart). */
static int same_name(const char *written, const char *s, size_t len)
{
    if (len <= NAME_ROOM)
        return !strncmp(written, s, len) && !written[len];
    return !strncmp(written, s, NAME_ROOM - 3);
}

static uint32_t name_of(const char *s)
{
    if (!s)
        return 0;
    uint64_t h = 1469598103934665603ull;
    size_t len = 0;
    for (; s[len] && len < NAME_SCAN; len++)
        h = (h ^ (uint8_t)s[len]) * 1099511628211ull;
    h |= 1;
    for (uint32_t i = (uint32_t)h & (NAMES_MAX * 2 - 1);; i = (i + 1) & (NAMES_MAX * 2 - 1)) {
        if (name_hash[i] == h && same_name(name_text[i], s, len))
            return name_index[i];
        if (name_hash[i])
            continue;
        if (nnames >= NAMES_MAX)
            return 0;
        size_t keep = len > NAME_ROOM ? NAME_ROOM - 3 : len;   /* a name longer than a record: cut, marked */
        unsigned ns = (unsigned)((offsetof(struct cutap_rec_meta, text) + keep + (len > keep ? 3 : 0) + 1 +
                                  CUTAP_SLOT - 1) / CUTAP_SLOT);
        struct cutap_rec_meta *m = w_reserve(ns);
        if (!m)
            return 0;
        m->sub = CUTAP_META_GPU_NAME;
        m->nslots = (uint16_t)ns;
        m->aux = nnames;
        m->key = 0;
        m->clock = cutap_rec_clock();
        memcpy(m->text, s, keep);
        if (len > keep)
            memcpy(m->text + keep, "...", 3);
        m->text[keep + (len > keep ? 3 : 0)] = 0;
        __atomic_store_n(&m->kind, CUTAP_REC_META, __ATOMIC_RELEASE);
        name_hash[i] = h;
        name_text[i] = m->text;
        name_index[i] = ++nnames;
        return nnames;
    }
}

/* A GPU record written (w_lock held), its first byte last: 1, or -1 when
 * there was no room. */
static int write_gpu(const struct cutap_rec_gpu *g)
{
    struct cutap_rec_gpu *r = w_reserve(1);
    if (!r)
        return -1;
    memcpy((char *)r + 1, (const char *)g + 1, sizeof *g - 1);
    __atomic_store_n(&r->kind, CUTAP_REC_GPU, __ATOMIC_RELEASE);
    return 1;
}

/* Where the work ran and when: start and end at 16 and 24, then device,
 * context and stream from `at` on (every kind but API records). */
static void place(struct cutap_rec_gpu *g, const void *a, unsigned at)
{
    g->start = AT(a, 16, uint64_t);
    g->end = AT(a, 24, uint64_t);
    g->device = AT(a, at, uint32_t);
    g->context = AT(a, at + 4, uint32_t);
    g->stream = AT(a, at + 8, uint32_t);
}

/* CUTAP_GPU_DIAG=allapi: whether an API record is of a function that
 * enqueues GPU work (the others are dropped, as if never asked for). */
static int api_wanted(uint32_t kind, uint32_t cbid)
{
    const uint16_t *t = kind == K_DRIVER ? cutap_gpu_driver_cbids : cutap_gpu_runtime_cbids;
    unsigned n = kind == K_DRIVER ? cutap_gpu_driver_ncbids : cutap_gpu_runtime_ncbids;
    for (unsigned i = 0; i < n; i++)
        if (t[i] == cbid)
            return 1;
    return 0;
}

/* One CUPTI record as a GPU record (w_lock held); 0 if it is of no kind
 * kept, -1 if there was no room. */
static int put(const void *a)
{
    uint32_t kind = AT(a, 0, uint32_t);
    struct cutap_rec_gpu g = {.nslots = 1};
    switch (kind) {
    case K_KERNEL:
    case K_CONCURRENT_KERNEL:
        g.type = CUTAP_GPU_KERNEL;
        place(&g, a, 40);
        for (int i = 0; i < 3; i++) {
            g.u.k.grid[i] = (uint32_t)AT(a, 52 + 4 * i, int32_t);
            g.u.k.block[i] = (uint32_t)AT(a, 64 + 4 * i, int32_t);
        }
        g.correlation = AT(a, 92, uint32_t);
        g.info = name_of(AT(a, 104, const char *));
        break;
    case K_MEMCPY:
    case K_MEMSET:
    case K_MEMCPY2: {   /* MEMCPY2 (MemcpyPtoP2..4): then the devices, correlation at 60 */
        int p2p = kind == K_MEMCPY2;
        g.type = kind == K_MEMSET ? CUTAP_GPU_MEMSET : CUTAP_GPU_MEMCPY;
        g.info = kind != K_MEMSET ? (uint32_t)AT(a, 4, uint8_t) | (uint32_t)AT(a, 5, uint8_t) << 8 |
                                        (uint32_t)AT(a, 6, uint8_t) << 16 | (uint32_t)AT(a, 7, uint8_t) << 24
                                  : AT(a, 4, uint32_t);
        g.u.m.bytes = AT(a, 8, uint64_t);
        place(&g, a, 32);
        g.correlation = AT(a, p2p ? 60 : 44, uint32_t);
        g.u.m.graph_node = AT(a, p2p ? 72 : 64, uint64_t);
        g.u.m.graph = AT(a, p2p ? 80 : 72, uint32_t);
        if (p2p)   /* source, destination device */
            g.u.m.reserved = (AT(a, 44, uint32_t) & 0xffff) | AT(a, 52, uint32_t) << 16;
        break;
    }
    case K_EXTERNAL_CORRELATION:
        if (AT(a, 4, uint32_t) != EXT_KIND)
            return 0;   /* another tool's ids */
        g.type = CUTAP_GPU_CORR;
        g.start = AT(a, 8, uint64_t);
        g.correlation = AT(a, 16, uint32_t);
        break;
    case K_DRIVER:
    case K_RUNTIME:
        if (CUTAP_UNLIKELY(diag_allapi) && !api_wanted(kind, AT(a, 4, uint32_t)))
            return 0;
        g.type = CUTAP_GPU_API;
        g.info = AT(a, 4, uint32_t);
        g.start = AT(a, 8, uint64_t);
        g.end = AT(a, 16, uint64_t);
        g.device = AT(a, 28, uint32_t);
        g.context = kind == K_RUNTIME;
        g.correlation = AT(a, 32, uint32_t);
        break;
    default:
        return 0;
    }
    return write_gpu(&g);
}

/* Whether put() keeps a record of this kind (what a stopped file loses). */
static int kept_kind(const void *a)
{
    uint32_t k = AT(a, 0, uint32_t);
    return k == K_KERNEL || k == K_CONCURRENT_KERNEL || k == K_MEMCPY || k == K_MEMSET || k == K_MEMCPY2 ||
           k == K_DRIVER || k == K_RUNTIME || (k == K_EXTERNAL_CORRELATION && AT(a, 4, uint32_t) == EXT_KIND);
}

/* --- CUPTI's buffer callbacks (its threads) ----------------------------- */
#define BUF_SIZE (1u << 20)

static void buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    void *p = NULL;
    if (posix_memalign(&p, 8, BUF_SIZE))
        p = NULL;
    *buffer = p;
    *size = p ? BUF_SIZE : 0;
    *max_records = 0;
}

static void buffer_completed(void *ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    (void)ctx, (void)stream, (void)size;
    if (!buffer)
        return;
    uint64_t written = 0, lost = 0;
    const void *a = NULL;
    if (!atomic_load(&gpu_live)) {   /* a start that failed, a forked child: not ours to write */
        free(buffer);
        return;
    }
    sigset_t sigs;
    int blocked = rec_sig_block(&sigs);   /* (also on the program's thread: a forced flush) */
    pthread_mutex_lock(&w_lock);
    int dead = atomic_load(&rec_file.dead) || rec_file_ensure();
    while (valid && C.next_record(buffer, valid, &a) == CUPTI_OK) {
        int k = dead ? (kept_kind(a) ? -1 : 0) : put(a);
        if (k < 0) {
            dead = 1;
            lost++;
        }
        written += k > 0;
    }
    pthread_mutex_unlock(&w_lock);
    rec_sig_restore(blocked, &sigs);
    free(buffer);
    if (rec_file.hdr) {
        header_add(&rec_file.hdr->gpu_records, written);
        header_add(&rec_file.hdr->gpu_lost, lost);
        size_t n = 0;
        if (C.dropped && C.dropped(NULL, 0, &n) == CUPTI_OK)
            header_add(&rec_file.hdr->gpu_dropped, n);
    }
}

/* --- pushing the launching call's place --------------------------------- */
static int gpu_push(cutap_call_t *call, uint64_t *scratch);
/* scratch: bit 0 pushed (popped in post), bit 1 paired here, bit 2 no
 * enqueuing call encloses it (counted in gpu_pushed, in post, if made). */
static int gpu_pre(cutap_call_t *call, void *ctx, uint64_t *scratch)
{
    (void)ctx;
    int e = errno;   /* (around the program's calls: its errno is kept) */
    int k = gpu_push(call, scratch);
    errno = e;
    return k;
}

static uint64_t started_ns;   /* when CUPTI was started (CLOCK_MONOTONIC) */

/* The program's own CUPTI client registered its buffer callbacks after
 * cutap's (src/front/cupti_watch.c): CUPTI now delivers to it. cutap stops
 * (its external ids would reach that client: Kineto warns about each) and
 * says so, once. */
static __attribute__((noinline, cold)) void taken_over(uint64_t at)
{
    int live = 1;
    if (!atomic_compare_exchange_strong(&gpu_live, &live, 0))
        return;
    char why[128];
    snprintf(why, sizeof why, "the program's own CUPTI client took the activity buffers over %.3f s after cutap's "
             "start", (double)(at - started_ns) / 1e9);
    cutap_warn("--gpu: %s; GPU activity after that is not recorded", why);
    if (rec_file.hdr) {
        memcpy(rec_file.hdr->gpu_why, why, sizeof why);
        __atomic_fetch_or(&rec_file.hdr->gpu, CUTAP_GPU_ON_TAKEN, __ATOMIC_RELEASE);
    }
}

/* The program's own client is about to register (src/front/cupti_watch.c,
 * on its thread): what CUPTI holds for cutap is handed to cutap, cutap's
 * kinds are turned off, and cutap stops; then the client gets only what it
 * asks for. */
static void disable_all(void);
static void gpu_yield(void)
{
    if (!atomic_load(&gpu_live))
        return;
    int e = errno;
    C.flush_all(FLUSH_FORCED);
    disable_all();
    taken_over(cutap_now_ns());
    errno = e;
}

static int gpu_push(cutap_call_t *call, uint64_t *scratch)
{
    int rc = cutap_recorder_client;
    if (!atomic_load_explicit(&gpu_live, memory_order_relaxed) || rc < 0)
        return CUTAP_PROCEED;
    uint64_t taken = __atomic_load_n(&cutap_cupti_client_ns, __ATOMIC_RELAXED);
    if (CUTAP_UNLIKELY(taken > started_ns)) {
        taken_over(taken);
        return CUTAP_PROCEED;
    }
    uint64_t w = ((struct cutap_icall *)(void *)call)->scratch[rc];
    struct rec_thread *t = &cutap_rt;
    char *end = (char *)t->end, *r = (char *)(uintptr_t)w;
    if (!w || (w >> 47) || !end || r < end - rec_file.csize + CUTAP_SLOT || r >= end)
        return CUTAP_PROCEED;   /* not recorded (counted, filtered out, no room) */
    const struct cutap_chunk_header *h = (const void *)(end - rec_file.csize);
    uint64_t ext = h->take << 24 | (uint64_t)(r - (end - rec_file.csize)) / CUTAP_SLOT;
    uint32_t cc = cutap_tls.cupti_corr;
    if ((call->flags & CUTAP_CALL_REPORTED) && cc) {
        /* a static runtime's call reported through cutap's CUPTI
         * subscription (--runtime=cupti): CUPTI took the external id before
         * calling us, so the pair is written here, as CUPTI would */
        struct cutap_rec_gpu g = {.nslots = 1, .type = CUTAP_GPU_CORR, .correlation = cc, .start = ext,
                                  .device = EXT_KIND};
        sigset_t old;
        int blocked = rec_sig_block(&old);
        pthread_mutex_lock(&w_lock);
        int ok = !atomic_load(&rec_file.dead) && write_gpu(&g) > 0;
        pthread_mutex_unlock(&w_lock);
        rec_sig_restore(blocked, &old);
        if (rec_file.hdr)
            header_add(ok ? &rec_file.hdr->gpu_records : &rec_file.hdr->gpu_lost, 1);
        *scratch = 2 | (cutap_tls.gpu_open ? 0 : 4);
        cutap_tls.gpu_open++;
        return CUTAP_PROCEED;
    }
    if (C.push(EXT_KIND, ext) == CUPTI_OK) {
        /* counted where no enqueuing call encloses it: CUPTI records no API
         * call made inside another it records (the runtime's driver calls;
         * H100: 7 pairs a round of tests/gpu/workloads/gpu_activity.cu, 13
         * pushes) */
        *scratch = 1 | (cutap_tls.gpu_open ? 0 : 4);
        cutap_tls.gpu_open++;
    }
    return CUTAP_PROCEED;
}

static void gpu_post(cutap_call_t *call, void *ctx, uint64_t *scratch)
{
    (void)ctx;
    if (!*scratch)
        return;
    int e = errno;
    uint64_t last;
    if (*scratch & 1)
        C.pop(EXT_KIND, &last);
    if (cutap_tls.gpu_open)
        cutap_tls.gpu_open--;
    /* a call skipped (fault injection) or whose function is missing never
     * reached CUPTI */
    if ((*scratch & 4) && !(call->flags & CUTAP_CALL_SKIPPED) && (call->fn || (call->flags & CUTAP_CALL_REPORTED)) &&
        rec_file.hdr)
        header_add(&rec_file.hdr->gpu_pushed, 1);
    errno = e;
}

/* --- start and end ------------------------------------------------------ */
static uint64_t monotonic_ns(void)
{
    return cutap_now_ns();
}

static void gpu_failed(int err, const char *fmt, const char *what)
{
    char why[800];
    snprintf(why, sizeof why, fmt, what);
    cutap_warn("--gpu: %s; GPU activity is not recorded", why);
    if (!rec_file_ensure() && rec_file.hdr) {
        char *hw = rec_file.hdr->gpu_why;
        size_t room = sizeof rec_file.hdr->gpu_why;
        rec_file.hdr->gpu_error = err;
        if (strlen(why) < room)
            memcpy(hw, why, strlen(why) + 1);
        else {   /* the header's room, marked cut */
            memcpy(hw, why, room - 4);
            memcpy(hw + room - 4, "...", 4);
        }
        __atomic_fetch_or(&rec_file.hdr->gpu, CUTAP_GPU_ON_FAILED, __ATOMIC_RELEASE);
    }
}

static void gpu_at_exit(void)
{
    if (!atomic_load(&gpu_live))
        return;
    C.flush_all(FLUSH_FORCED);
    if (rec_file.hdr)
        __atomic_fetch_or(&rec_file.hdr->gpu, CUTAP_GPU_ON_FLUSHED, __ATOMIC_RELEASE);
}

static const char *result_name(int r)
{
    const char *s = NULL;
    if (!C.result_string || C.result_string(r, &s) != CUPTI_OK || !s)
        s = "unknown CUPTI error";
    return s;
}

/* Runtime callback ids whose reports CUPTI must see inside cutap's record
 * of the call (resolve/rt_hooks.c). */
#define RT_BITS 4096u
static uint8_t rt_inside[RT_BITS / 8];

int cutap_gpu_inside(uint32_t cbid)
{
    return atomic_load_explicit(&gpu_live, memory_order_relaxed) && cbid < RT_BITS &&
           (rt_inside[cbid / 8] >> (cbid % 8) & 1);
}

static void gpu_start(void)
{
    const char *inj = getenv("CUDA_INJECTION64_PATH");
    if (inj && *inj) {
        gpu_failed(0, "another CUPTI tool is injected (CUDA_INJECTION64_PATH=%s)", inj);
        return;
    }
    if (__atomic_load_n(&cutap_cupti_client_ns, __ATOMIC_ACQUIRE)) {
        gpu_failed(0, "%s", "the program has a CUPTI activity client of its own (a profiler), registered before its "
                            "first cuInit; CUPTI serves one");
        return;
    }
    char why[600];
    void *h = cutap_cupti_open(why, sizeof why);
    if (!h) {
        gpu_failed(0, "libcupti not found (%s)", why);
        return;
    }
#define SYM(field, name) (*(void **)&C.field = cutap_libc_dlsym(h, name))
    SYM(register_callbacks, "cuptiActivityRegisterCallbacks");
    SYM(enable, "cuptiActivityEnable");
    SYM(disable, "cuptiActivityDisable");
    SYM(next_record, "cuptiActivityGetNextRecord");
    SYM(flush_all, "cuptiActivityFlushAll");
    SYM(flush_period, "cuptiActivityFlushPeriod");
    SYM(dropped, "cuptiActivityGetNumDroppedRecords");
    SYM(push, "cuptiActivityPushExternalCorrelationId");
    SYM(pop, "cuptiActivityPopExternalCorrelationId");
    SYM(timestamp_cb, "cuptiActivityRegisterTimestampCallback");
    SYM(enable_driver_api, "cuptiActivityEnableDriverApi");
    SYM(enable_runtime_api, "cuptiActivityEnableRuntimeApi");
    SYM(result_string, "cuptiGetResultString");
#undef SYM
    if (C.register_callbacks)
        atomic_store(&cutap_cupti_object, cutap_object_of((const void *)C.register_callbacks));
    if (!C.register_callbacks || !C.enable || !C.next_record || !C.flush_all || !C.push || !C.pop) {
        gpu_failed(0, "%s lacks the activity API", cutap_cupti_path);
        return;
    }
    uint32_t on = CUTAP_GPU_ON_ASKED;
    const char *diag = getenv("CUTAP_GPU_DIAG");
    if (!C.timestamp_cb || (diag && strstr(diag, "nots")) || C.timestamp_cb(monotonic_ns) != CUPTI_OK)
        on |= CUTAP_GPU_ON_REALTIME;   /* CUPTI's own clock on Linux */
    started_ns = cutap_now_ns() | 1;
    int r = C.register_callbacks(buffer_requested, buffer_completed);
    static const int kinds[] = {K_CONCURRENT_KERNEL, K_MEMCPY, K_MEMSET, K_EXTERNAL_CORRELATION};
    for (size_t i = 0; r == CUPTI_OK && i < sizeof kinds / sizeof kinds[0]; i++)
        r = C.enable(kinds[i]);
    if (r == CUPTI_OK)
        C.enable(K_MEMCPY2);   /* peer copies between devices, where this CUPTI has them */
    /* API records of the enqueuing functions only; all of them where this
     * CUPTI cannot choose (it then records every API call: it costs more) */
    int api = r;
    if (diag_allapi)
        api = -1;   /* CUTAP_GPU_DIAG=allapi: API records by kind (those of other functions dropped in put) */
    else if (!diag_noapi && r == CUPTI_OK && C.enable_driver_api && C.enable_runtime_api) {
        for (unsigned i = 0; api == CUPTI_OK && i < cutap_gpu_driver_ncbids; i++)
            api = C.enable_driver_api(cutap_gpu_driver_cbids[i], 1);
        for (unsigned i = 0; api == CUPTI_OK && i < cutap_gpu_runtime_ncbids; i++)
            api = C.enable_runtime_api(cutap_gpu_runtime_cbids[i], 1);
    }
    if (r == CUPTI_OK && !diag_noapi && (!C.enable_driver_api || !C.enable_runtime_api || api != CUPTI_OK)) {
        r = C.enable(K_DRIVER);
        if (r == CUPTI_OK)
            r = C.enable(K_RUNTIME);
    }
    if (r != CUPTI_OK) {
        /* nothing left collecting: CUPTI would cost the program and
         * deliver to no one (buffer_completed ignores what comes) */
        disable_all();
        gpu_failed(r, "CUPTI's activity API would not start (%s)", result_name(r));
        return;
    }
    const char *fp = getenv("CUTAP_GPU_FLUSH_MS");
    if (C.flush_period)
        C.flush_period(fp && *fp ? (uint32_t)strtoul(fp, NULL, 10) : 500);
    if (!rec_file_ensure() && rec_file.hdr)
        __atomic_fetch_or(&rec_file.hdr->gpu, on | CUTAP_GPU_ON_STARTED, __ATOMIC_RELEASE);
    atexit(gpu_at_exit);
    for (unsigned i = 0; i < cutap_gpu_runtime_ncbids; i++)
        if (cutap_gpu_runtime_cbids[i] < RT_BITS)
            rt_inside[cutap_gpu_runtime_cbids[i] / 8] |= (uint8_t)(1u << (cutap_gpu_runtime_cbids[i] % 8));
    atomic_store(&gpu_live, 1);
    __atomic_store_n(&cutap_cupti_yield, gpu_yield, __ATOMIC_RELEASE);
    cutap_log_debug("GPU activity from CUPTI (%s)", cutap_cupti_path);
}

/* Every kind and API record cutap may have enabled, off. */
static void disable_all(void)
{
    static const int all[] = {K_CONCURRENT_KERNEL, K_MEMCPY, K_MEMSET, K_EXTERNAL_CORRELATION, K_MEMCPY2,
                              K_DRIVER, K_RUNTIME};
    for (size_t i = 0; C.disable && i < sizeof all / sizeof all[0]; i++)
        C.disable(all[i]);
    for (unsigned i = 0; C.enable_driver_api && i < cutap_gpu_driver_ncbids; i++)
        C.enable_driver_api(cutap_gpu_driver_cbids[i], 0);
    for (unsigned i = 0; C.enable_runtime_api && i < cutap_gpu_runtime_ncbids; i++)
        C.enable_runtime_api(cutap_gpu_runtime_cbids[i], 0);
}

static void after_cuinit(cutap_call_t *call)
{
    if (prev_fixup)
        prev_fixup(call);
    if (call->result != CUTAP_CUDA_SUCCESS || atomic_load_explicit(&started, memory_order_relaxed) ||
        atomic_exchange(&started, 1))
        return;
    cutap_run_inside(call, gpu_start);   /* CUPTI's calls while it starts: inside cuInit */
}

static const char *refused;   /* --gpu refused before CUDA started: why */

void rec_gpu_file_made(struct cutap_file_header *h)
{
    if (!rec_gpu_asked)
        return;
    if (refused) {
        snprintf(h->gpu_why, sizeof h->gpu_why, "%s", refused);
        h->gpu |= CUTAP_GPU_ON_FAILED;
    }
    __atomic_fetch_or(&h->gpu, CUTAP_GPU_ON_ASKED, __ATOMIC_RELEASE);
}

/* The functions that enqueue GPU work, both layers (their pushes). */
static const char work_filter[] = "cuLaunch*,cuGraphLaunch*,cuMemcpy*,cuMemset*,cudaLaunch*,__cudaLaunch*,"
                                  "cudaGraphLaunch*,cudaMemcpy*,cudaMemset*,!cuLaunchHostFunc*,!cudaLaunchHostFunc*";

void rec_gpu_setup(void)
{
    const char *g = getenv("CUTAP_GPU");
    if (!g || strcmp(g, "1"))
        return;
    rec_gpu_asked = 1;
    if (rec_ring.n) {
        refused = "not with --ring (GPU records would grow the file past the ring)";
        cutap_warn("--gpu: %s; GPU activity is not recorded", refused);
        return;
    }
    /* CUTAP_GPU_DIAG: what to leave out, to measure what each part costs
     * (bench/gpu/run.sh): "nopush" no external ids pushed, "noapi" no API
     * records asked for (either way records are not joined to calls),
     * "nots" CUPTI's own clock (CLOCK_REALTIME), "allapi" API records of
     * every function asked for by kind rather than function by function */
    const char *diag = getenv("CUTAP_GPU_DIAG");
    diag_noapi = diag && strstr(diag, "noapi");
    diag_allapi = diag && strstr(diag, "allapi");
    if (!(diag && strstr(diag, "nopush"))) {
        gpu_client = cutap_register("gpu-correlation", gpu_pre, gpu_post, NULL);
        if (gpu_client < 0 || cutap_enable_filter(gpu_client, work_filter))
            return;
    }
    prev_fixup = cutap_fixup[CUTAP_ID_cuInit];
    cutap_fixup[CUTAP_ID_cuInit] = after_cuinit;
    cutap_refresh_id(CUTAP_ID_cuInit);   /* cuInit must leave its fast path now */
}

/* A forked child: the parent's CUPTI state does not carry over (CUDA
 * does not either); its GPU chunks were the parent's. */
void rec_gpu_after_fork(void)
{
    pthread_mutex_init(&w_lock, NULL);
    memset(&w_thread, 0, sizeof w_thread);
    w_pos = w_end = NULL;
    atomic_store(&gpu_live, 0);
    if (rec_gpu_asked) {   /* its names are the parent's file's */
        memset(name_hash, 0, sizeof name_hash);
        nnames = 0;
    }
}
