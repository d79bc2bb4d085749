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
 * the API call that enqueued it. cutap pairs that id with the place of the
 * call's record in the file (take << 24 | slot) in one of two ways:
 *   - callbacks (the default): cutap subscribes to CUPTI's callbacks of the
 *     functions that enqueue GPU work (launches, graph launches, copies,
 *     memsets, driver and runtime: generated/cupti_gpu_cbid.c) and nothing
 *     else. Their entry callback, on the calling thread inside the call,
 *     gets the correlation id; the thread writes the pair with the place
 *     of the outermost enqueuing call it has open (a runtime launch's, not
 *     its driver call's, which CUPTI gives the same id) as a GPU_CORR meta
 *     record into its own run of records: no lock, nothing of CUPTI's on
 *     the call's way. On the H200, every kernel of the GPU suite's
 *     workloads (plain, runtime, cuBLAS, PyTorch, CUDA graphs) carried the
 *     id of a driver launch callback (tests/gpu/gpu_ref.c GPU_REF_API=cb);
 *   - external ids, where CUPTI has another subscriber (one a process; the
 *     program's, or cutap's own --runtime=cupti) or the program subscribes
 *     later (cupti_watch.c: cutap then lets its own go): cutap pushes the
 *     place around each such call (cuptiActivityPushExternalCorrelationId)
 *     and CUPTI writes an EXTERNAL_CORRELATION record pairing the two, for
 *     calls it makes API records of; it is asked for API records of those
 *     functions alone. The push and pop cost a launch about 1.6 us of CPU
 *     on the H200 (bench/gpu/overhead: 3.6 us added to an empty launch's
 *     CPU against 2.2 without them), the callbacks 0.1 us.
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

#include "gpu_internal.h"

struct gpu_cupti rec_gpu_cupti;
int rec_gpu_asked;                 /* CUTAP_GPU=1 */
_Atomic int gpu_live;              /* CUPTI started: pushes are made */
int gpu_client = -1;
int diag_noapi;   /* CUTAP_GPU_DIAG=noapi (rec_gpu_setup) */
int diag_allapi;  /* CUTAP_GPU_DIAG=allapi */
int diag_push;    /* CUTAP_GPU_DIAG=push: external ids, not callbacks */
int diag_nort;    /* CUTAP_GPU_DIAG=nort: callbacks of the driver's functions alone */
static int diag_wrapped;   /* CUTAP_GPU_DIAG=wrapped: CUPTI given cutap's copies of the export tables */
uint64_t started_ns;   /* when CUPTI was started (CLOCK_MONOTONIC) */
static cutap_fixup_fn prev_fixup;
static _Atomic int started;        /* tried (once per process) */

/* --- the GPU chunks ----------------------------------------------------- */
pthread_mutex_t w_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rec_thread w_thread;  /* the GPU chunks' writer: no thread's own */
static struct cutap_rec_call *w_pos, *w_end;

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
int write_gpu(const struct cutap_rec_gpu *g)
{
    struct cutap_rec_gpu *r = w_reserve(1);
    if (!r)
        return -1;
    memcpy((char *)r + 1, (const char *)g + 1, sizeof *g - 1);
    __atomic_store_n(&r->kind, CUTAP_REC_GPU, __ATOMIC_RELEASE);
    return 1;
}

/* Where the work ran and when: start and end, then device, context and
 * stream from `at` on (every kind but API records; cupti_offsets.h). */
static void place(struct cutap_rec_gpu *g, const void *a, unsigned at)
{
    g->start = AT(a, CO_START, uint64_t);
    g->end = AT(a, CO_END, uint64_t);
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
    uint32_t kind = AT(a, CO_KIND, uint32_t);
    struct cutap_rec_gpu g = {.nslots = 1};
    switch (kind) {
    case K_KERNEL:
    case K_CONCURRENT_KERNEL:
        g.type = CUTAP_GPU_KERNEL;
        place(&g, a, CO_K_PLACE);
        for (int i = 0; i < 3; i++) {
            g.u.k.grid[i] = (uint32_t)AT(a, CO_K_GRID + 4 * i, int32_t);
            g.u.k.block[i] = (uint32_t)AT(a, CO_K_BLOCK + 4 * i, int32_t);
        }
        g.correlation = AT(a, CO_K_CORR, uint32_t);
        g.info = name_of(AT(a, CO_K_NAME, const char *));
        break;
    case K_MEMCPY:
    case K_MEMSET:
    case K_MEMCPY2: {   /* MEMCPY2 (MemcpyPtoP2..4): then the devices, correlation at 60 */
        int p2p = kind == K_MEMCPY2;
        g.type = kind == K_MEMSET ? CUTAP_GPU_MEMSET : CUTAP_GPU_MEMCPY;
        g.info = kind != K_MEMSET ? (uint32_t)AT(a, CO_M_INFO, uint8_t) | (uint32_t)AT(a, CO_M_INFO + 1, uint8_t) << 8 |
                                        (uint32_t)AT(a, CO_M_INFO + 2, uint8_t) << 16 |
                                        (uint32_t)AT(a, CO_M_INFO + 3, uint8_t) << 24
                                  : AT(a, CO_M_INFO, uint32_t);
        g.u.m.bytes = AT(a, CO_M_BYTES, uint64_t);
        place(&g, a, CO_M_PLACE);
        g.correlation = AT(a, p2p ? CO_P_CORR : CO_M_CORR, uint32_t);
        g.u.m.graph_node = AT(a, p2p ? CO_P_NODE : CO_M_NODE, uint64_t);
        g.u.m.graph = AT(a, p2p ? CO_P_GRAPH : CO_M_GRAPH, uint32_t);
        if (p2p)   /* source, destination device */
            g.u.m.reserved = (AT(a, CO_P_SRC, uint32_t) & 0xffff) | AT(a, CO_P_DST, uint32_t) << 16;
        break;
    }
    case K_EXTERNAL_CORRELATION:
        if (AT(a, CO_X_KIND, uint32_t) != EXT_KIND)
            return 0;   /* another tool's ids */
        g.type = CUTAP_GPU_CORR;
        g.start = AT(a, CO_X_ID, uint64_t);
        g.correlation = AT(a, CO_X_CORR, uint32_t);
        break;
    case K_DRIVER:
    case K_RUNTIME:
        if (CUTAP_UNLIKELY(diag_allapi) && !api_wanted(kind, AT(a, CO_A_CBID, uint32_t)))
            return 0;
        g.type = CUTAP_GPU_API;
        g.info = AT(a, CO_A_CBID, uint32_t);
        g.start = AT(a, CO_A_START, uint64_t);
        g.end = AT(a, CO_A_END, uint64_t);
        g.device = AT(a, CO_A_THREAD, uint32_t);
        g.context = kind == K_RUNTIME;
        g.correlation = AT(a, CO_A_CORR, uint32_t);
        break;
    default:
        return 0;
    }
    return write_gpu(&g);
}

/* Whether put() keeps a record of this kind (what a stopped file loses). */
static int kept_kind(const void *a)
{
    uint32_t k = AT(a, CO_KIND, uint32_t);
    return k == K_KERNEL || k == K_CONCURRENT_KERNEL || k == K_MEMCPY || k == K_MEMSET || k == K_MEMCPY2 ||
           k == K_DRIVER || k == K_RUNTIME || (k == K_EXTERNAL_CORRELATION && AT(a, CO_X_KIND, uint32_t) == EXT_KIND);
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
    SYM(subscribe, "cuptiSubscribe");
    SYM(unsubscribe, "cuptiUnsubscribe");
    SYM(enable_callback, "cuptiEnableCallback");
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
    static const int kinds[] = {K_CONCURRENT_KERNEL, K_MEMCPY, K_MEMSET};
    for (size_t i = 0; r == CUPTI_OK && i < sizeof kinds / sizeof kinds[0]; i++)
        r = C.enable(kinds[i]);
    if (r == CUPTI_OK)
        C.enable(K_MEMCPY2);   /* peer copies between devices, where this CUPTI has them */
    /* the join: callbacks where CUPTI lets cutap subscribe, else external
     * ids (the diagnostics of the external ids' cost ask for them) */
    if (r == CUPTI_OK && gpu_client >= 0 && !diag_push && !diag_noapi && !diag_allapi && join_by_callbacks()) {
        on |= CUTAP_GPU_ON_CALLBACKS;
    } else if (r == CUPTI_OK) {
        r = join_by_external_ids();
        on |= CUTAP_GPU_ON_PUSHED;
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
    /* the program subscribed while CUPTI started: its yield found
     * gpu_live 0 and left the external ids to here (enabled twice where
     * both saw the other: harmless) */
    if ((on & CUTAP_GPU_ON_CALLBACKS) && atomic_load(&join_cb) != JOIN_ON && join_by_external_ids() == CUPTI_OK &&
        rec_file.hdr)
        __atomic_fetch_or(&rec_file.hdr->gpu, CUTAP_GPU_ON_PUSHED, __ATOMIC_RELEASE);
    __atomic_store_n(&cutap_cupti_yield, gpu_yield, __ATOMIC_RELEASE);
    cutap_log_debug("GPU activity from CUPTI (%s)", cutap_cupti_path);
}

static void after_cuinit(cutap_call_t *call)
{
    if (prev_fixup)
        prev_fixup(call);
    if (call->result != CUTAP_CUDA_SUCCESS || atomic_load_explicit(&started, memory_order_relaxed) ||
        atomic_exchange(&started, 1))
        return;
    /* CUPTI's calls while it starts: inside cuInit; its export tables the
     * driver's own (CUTAP_GPU_DIAG=wrapped: cutap's copies, as before) */
    cutap_tls.real_tables = !diag_wrapped;
    cutap_run_inside(call, gpu_start);
    cutap_tls.real_tables = 0;
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
     * every function asked for by kind rather than function by function,
     * "push" joined through external ids rather than callbacks (the three
     * about external ids imply it), "wrapped" CUPTI given cutap's copies of
     * the driver's export tables, as any caller (after_cuinit) */
    const char *diag = getenv("CUTAP_GPU_DIAG");
    diag_noapi = diag && strstr(diag, "noapi");
    diag_allapi = diag && strstr(diag, "allapi");
    diag_push = diag && strstr(diag, "push") && !strstr(diag, "nopush");
    diag_wrapped = diag && strstr(diag, "wrapped");
    diag_nort = diag && strstr(diag, "nort");
    if (!(diag && strstr(diag, "nopush"))) {
        gpu_client = cutap_register("gpu-correlation", gpu_pre, gpu_post, NULL);
        if (gpu_client < 0)
            return;
        /* (before the ids are asked for: their refresh hands the fast
         * paths' --gpu variants out, which call gpu_pre's and gpu_post's
         * work themselves) */
        atomic_store(&cutap_gpu_fast_bit, (uint8_t)(1u << gpu_client));
        if (cutap_enable_filter(gpu_client, work_filter))
            return;
        int cap = cutap_register("gpu-capture", NULL, gpu_capture_post, NULL);
        if (cap >= 0)
            cutap_enable_filter(cap, "cuStreamBeginCapture*,cuStreamEndCapture*");
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
    gpu_join_after_fork();
    if (rec_gpu_asked) {   /* its names are the parent's file's */
        memset(name_hash, 0, sizeof name_hash);
        nnames = 0;
    }
}
