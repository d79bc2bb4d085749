/* Joining GPU work to the calls that enqueued it (issue #31, trace
 * --gpu): CUPTI's correlation id of each call paired with the place of
 * the call's record, through cutap's CUPTI callbacks or, where cutap
 * cannot subscribe, through external ids (record/gpu.c says how and
 * why). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "gpu_internal.h"

/* The way calls are joined (JOIN_*, gpu_internal.h). No lock is held
 * across CUPTI's calls (helper-30: a program's subscription made under
 * the loader's lock waited for a lock held while CUPTI needed the
 * loader's: a hang). */
_Atomic int join_cb;
static void *cb_sub;   /* cutap's CUPTI subscriber (join_cb; a forked child: the parent's, in CUPTI's
                          memory the child got, join_cb 0) */
static int forked;      /* this is a forked child (cb_sub: the parent's) */
static _Atomic int32_t start_tid;   /* the thread subscribing (JOIN_STARTING, JOIN_ASKED) */

/* The functions whose callback ids the CUPTI refused as unknown (an older
 * CUPTI than cutap's list: cuMemcpyBatchAsync's ids are past 12.4's last,
 * their _v2 and v13000 ids past 12.9's): cutap's ids of them (a runtime
 * function's where any version's id was refused: which one a runtime
 * reports is not known here; its driver call decides). An enqueuing
 * call's work is joined through the callback or API record of it or of
 * an enqueuing call inside it (a runtime call's driver call): where the
 * outermost call and every one inside it are of refused functions, it is
 * not, and the header's UNKNOWN_IDS is set (gpu_post), so the reader says
 * why where it matters only. Chosen with the join (cutap's start, or the
 * yield to the program's subscription: one at a time, refusing_lock), read
 * by every enqueuing call. */
#define REFUSED_MAX 32
/* nrefused's high bit: no runtime function's callback was asked for
 * (CUTAP_GPU_DIAG=nort, joined through callbacks): each as if refused,
 * its work joined through its driver call's callback, and said unjoined
 * where that one is refused too. One word for both, so that an enqueuing
 * call reads one (0: nothing refused). */
#define REFUSE_RUNTIME (1u << 31)
static _Atomic uint32_t refused_id[REFUSED_MAX];
static _Atomic unsigned nrefused;
static _Atomic int refusing_lock;

static int is_refused(uint32_t id, int layer)
{
    unsigned n = atomic_load_explicit(&nrefused, memory_order_acquire);
    if ((n & REFUSE_RUNTIME) && layer == CUTAP_LAYER_RUNTIME)
        return 1;
    n &= ~REFUSE_RUNTIME;
    for (unsigned i = 0; i < n; i++)
        if (atomic_load_explicit(&refused_id[i], memory_order_relaxed) == id)
            return 1;
    return 0;
}

/* A recorded enqueuing call opens (bits: how it is joined, below): bit 2
 * where no enqueuing call encloses it, bit 4 where it is of a function the
 * CUPTI refused (gpu_post notes that only if the call ran and made work).
 * The outermost one starts the thread's notes afresh (known where nothing
 * is refused: no guess). */
static void open_call(uint64_t bits, int refused, uint64_t *scratch)
{
    *scratch = bits | (cutap_tls.gpu_open ? 0 : 4) | (refused ? 16 : 0);
    if (!cutap_tls.gpu_open) {
        cutap_tls.gpu_refused = 0;
        cutap_tls.gpu_known = (uint8_t)!refused;
    } else if (!refused) {
        cutap_tls.gpu_known = 1;
    }
    cutap_tls.gpu_open++;
}

/* --- pushing the launching call's place --------------------------------- */
static void gpu_push(uint32_t id, int layer, uint32_t flags, uint64_t w, uint64_t *scratch);
static void gpu_pop(uint64_t scratch, uint32_t flags, uint64_t result, int has_fn);
/* scratch: bit 0 pushed (popped in post), bit 1 paired here or by the
 * callbacks, bit 2 no enqueuing call encloses it (counted in gpu_pushed,
 * in post, if made), bit 3 joined through the callbacks, bit 4 of a
 * function the CUPTI refused (open_call). */
int gpu_pre(cutap_call_t *call, void *ctx, uint64_t *scratch)
{
    (void)ctx;
    int e = errno;   /* (around the program's calls: its errno is kept) */
    int rc = cutap_recorder_client;
    if (rc >= 0)
        gpu_push(call->id, call->layer, call->flags, ((struct cutap_icall *)(void *)call)->scratch[rc], scratch);
    errno = e;
    return CUTAP_PROCEED;
}

/* The same from a trace fast path's --gpu variant (gen/fastpath_generator.py:
 * an enqueuing function whose clients are the recorder and this join): r
 * its record, published; layer the id's, as the generator knew it (no
 * look-up of the id's description a launch). */
uint64_t cutap_fp_gpu_pre(uint32_t id, int layer, struct cutap_rec_call *r)
{
    int e = errno;
    uint64_t scratch = 0;
    gpu_push(id, layer, 0, (uint64_t)(uintptr_t)r, &scratch);
    errno = e;
    return scratch;
}

void cutap_fp_gpu_post(uint64_t scratch, uint64_t result)
{
    int e = errno;
    gpu_pop(scratch, 0, result, 1);
    errno = e;
}


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
void gpu_yield(void)
{
    if (!atomic_load(&gpu_live))
        return;
    int e = errno;
    C.flush_all(FLUSH_FORCED);
    disable_all();
    taken_over(cutap_now_ns());
    errno = e;
}

/* A recorded enqueuing call of id (layer, flags: its cutap_call_t's) opens,
 * w its record's address as the recorder noted it: scratch as gpu_post
 * reads it (left 0: nothing to do after). */
static void gpu_push(uint32_t id, int layer, uint32_t flags, uint64_t w, uint64_t *scratch)
{
    if (!atomic_load_explicit(&gpu_live, memory_order_relaxed))
        return;
    uint64_t taken = __atomic_load_n(&cutap_cupti_client_ns, __ATOMIC_RELAXED);
    if (CUTAP_UNLIKELY(taken > started_ns)) {
        taken_over(taken);
        return;
    }
    int refused = CUTAP_UNLIKELY(atomic_load_explicit(&nrefused, memory_order_relaxed)) && is_refused(id, layer);
    struct rec_thread *t = &cutap_rt;
    char *end = (char *)t->end, *r = (char *)(uintptr_t)w;
    if (!w || (w >> 47) || !end || r < end - rec_file.csize + CUTAP_SLOT || r >= end) {
        if (!refused && cutap_tls.gpu_open)
            cutap_tls.gpu_known = 1;   /* its callback still joins the work to the outermost call */
        return;   /* not recorded (counted, filtered out, no room) */
    }
    const struct cutap_chunk_header *h = (const void *)(end - rec_file.csize);
    uint64_t ext = h->take << 24 | (uint64_t)(r - (end - rec_file.csize)) / CUTAP_SLOT;
    uint32_t cc = cutap_tls.cupti_corr;
    if ((flags & CUTAP_CALL_REPORTED) && cc) {
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
        open_call(2, refused, scratch);
        return;
    }
    if (atomic_load_explicit(&join_cb, memory_order_relaxed) == JOIN_ON) {
        /* CUPTI's entry callbacks inside the call pair their ids with the
         * outermost enqueuing call's place (gpu_callback) */
        if (!cutap_tls.gpu_open) {
            cutap_tls.gpu_ext = ext;
            cutap_tls.gpu_last_corr = 0;
        }
        open_call(2 | 8, refused, scratch);
        return;
    }
    if (C.push(EXT_KIND, ext) == CUPTI_OK) {
        /* counted where no enqueuing call encloses it: CUPTI records no API
         * call made inside another it records (the runtime's driver calls;
         * H100: 7 pairs a round of tests/gpu/workloads/gpu_activity.cu, 13
         * pushes) */
        open_call(1, refused, scratch);
    }
}

void gpu_post(cutap_call_t *call, void *ctx, uint64_t *scratch)
{
    (void)ctx;
    if (!*scratch)
        return;
    int e = errno;
    gpu_pop(*scratch, call->flags, call->result, call->fn || (call->flags & CUTAP_CALL_REPORTED));
    errno = e;
}

/* The call that gpu_push opened (scratch, not 0) ends: flags its
 * cutap_call_t's, result its result, has_fn whether it reached its
 * function (a missing one's never reached CUPTI). */
static void gpu_pop(uint64_t scratch, uint32_t flags, uint64_t result, int has_fn)
{
    uint64_t last;
    if (scratch & 1)
        C.pop(EXT_KIND, &last);
    /* a refused call that ran and made work (not skipped by fault
     * injection, not failed, not captured into a graph: the graph's launch
     * is joined) */
    if (CUTAP_UNLIKELY(scratch & 16) && !(flags & CUTAP_CALL_SKIPPED) && result == CUTAP_CUDA_SUCCESS &&
        !cutap_tls.gpu_capturing)
        cutap_tls.gpu_refused = 1;
    if (cutap_tls.gpu_open && !--cutap_tls.gpu_open) {
        cutap_tls.gpu_ext = 0;
        /* the outermost: it and every enqueuing call inside it of
         * functions the CUPTI does not know: its work is not joined */
        if (CUTAP_UNLIKELY(cutap_tls.gpu_refused) && !cutap_tls.gpu_known && rec_file.hdr &&
            !(__atomic_load_n(&rec_file.hdr->gpu, __ATOMIC_RELAXED) & CUTAP_GPU_ON_UNKNOWN_IDS))
            __atomic_fetch_or(&rec_file.hdr->gpu, CUTAP_GPU_ON_UNKNOWN_IDS, __ATOMIC_RELEASE);
    }
    /* a call skipped (fault injection) or whose function is missing never
     * reached CUPTI; joined through callbacks, a failed one enqueued
     * nothing that could show it was delivered */
    if ((scratch & 4) && !(flags & CUTAP_CALL_SKIPPED) && has_fn &&
        (!(scratch & 8) || (result == CUTAP_CUDA_SUCCESS && !cutap_tls.gpu_capturing)) && rec_file.hdr)
        header_add(&rec_file.hdr->gpu_pushed, 1);
}

/* --- joining through CUPTI's callbacks ----------------------------------- */

/* CUPTI's entry callback of a function that enqueues GPU work, on the
 * calling thread inside the call: its correlation id paired with the place
 * of the outermost enqueuing call the thread has open, as a GPU_CORR meta
 * record in the thread's run (a runtime call's callback and its driver
 * call's carry the same id: written once). No enqueuing call open: a call
 * cutap did not record (or CUPTI's own) is not paired. */
static void gpu_callback(void *ud, int domain, uint32_t cbid, const void *data)
{
    (void)ud, (void)cbid;
    if (!data || (domain != CB_DOMAIN_DRIVER && domain != CB_DOMAIN_RUNTIME) || CB_SITE(data) != CB_ENTER)
        return;
    uint64_t ext = cutap_tls.gpu_ext;
    uint32_t corr = CB_CORR(data);
    if (!ext || corr == cutap_tls.gpu_last_corr || !atomic_load_explicit(&gpu_live, memory_order_relaxed))
        return;
    int e = errno;
    struct cutap_rec_meta *m = (struct cutap_rec_meta *)rec_reserve(1);
    if (m) {
        m->sub = CUTAP_META_GPU_CORR;
        m->nslots = 1;
        m->aux = corr;
        m->key = ext;
        m->clock = 0;
        m->text[0] = 0;
        __atomic_store_n(&m->kind, CUTAP_REC_META, __ATOMIC_RELEASE);
        cutap_tls.gpu_last_corr = corr;
    } else if (rec_file.hdr) {
        header_add(&rec_file.hdr->gpu_lost, 1);   /* (recording stopped, or a handler inside a reservation) */
    }
    errno = e;
}

/* cutap's subscription let go, where it holds one now (JOIN_ON, or
 * `from`): JOIN_RELEASING until cuptiUnsubscribe has returned, which a
 * program's subscription waits for (helper-31: made meanwhile, it was
 * refused). Whether this thread let it go. */
static int let_go(int from)
{
    if (!atomic_compare_exchange_strong(&join_cb, &from, JOIN_RELEASING))
        return 0;
    C.unsubscribe(cb_sub);
    cb_sub = NULL;
    atomic_fetch_and(&nrefused, ~REFUSE_RUNTIME);   /* (the external ids' API records: the runtime's too) */
    atomic_store(&join_cb, JOIN_OFF);
    return 1;
}

/* Turns on, for each function that enqueues GPU work, CUPTI's callbacks
 * (sub: cutap's subscriber) or, without sub, its API records. An id this
 * CUPTI refuses with CUPTI_ERROR_INVALID_PARAMETER is taken for one it
 * does not know (CUPTI documents that result for an invalid id of the
 * callback API, and CUPTI 11.8 and 12.4 gave it for the batched copies'
 * on an H200; for the API records' functions this is assumed, as the
 * fake models it: 11.8 and 12.4 have no such functions) and left
 * out (the refused list above); the others are kept. CUPTI's result: any other
 * refusal, or not one driver id known (the caller then joins another way,
 * and nothing is taken as refused). */
static int enable_ids(void *sub)
{
    unsigned known = 0, unknown = 0, nlist = 0;
    uint32_t list[REFUSED_MAX];
    int busy = atomic_exchange(&refusing_lock, 1);   /* (another join being chosen: its list stands) */
    int r = CUPTI_OK;
    for (int rt = 0; rt < (sub && diag_nort ? 1 : 2) && r == CUPTI_OK; rt++) {
        unsigned n = rt ? cutap_gpu_runtime_ncbids : cutap_gpu_driver_ncbids;
        const uint16_t *ids = rt ? cutap_gpu_runtime_cbids : cutap_gpu_driver_cbids;
        for (unsigned i = 0; i < n && r == CUPTI_OK; i++) {
            int e = sub    ? C.enable_callback(1, sub, rt ? CB_DOMAIN_RUNTIME : CB_DOMAIN_DRIVER, ids[i])
                    : rt ? C.enable_runtime_api(ids[i], 1)
                         : C.enable_driver_api(ids[i], 1);
            if (e == CUPTI_INVALID_PARAMETER)
                unknown++;
            else if (e != CUPTI_OK)
                r = e;
            else
                known += !rt;
            if (e != CUPTI_INVALID_PARAMETER || nlist >= REFUSED_MAX)
                continue;
            const char *name = rt ? cutap_gpu_runtime_names[i] : cutap_gpu_driver_names[i];
            uint32_t id = cutap_lookup(name);
            int dup = id == CUTAP_ID_ALL;
            for (unsigned k = 0; k < nlist && !dup; k++)
                dup = list[k] == id;
            if (!dup)
                list[nlist++] = id;
        }
    }
    if (r == CUPTI_OK && !known)
        r = CUPTI_INVALID_PARAMETER;
    if (!busy) {   /* published whole: read by enqueuing calls meanwhile */
        if (r == CUPTI_OK) {
            for (unsigned k = 0; k < nlist; k++)
                atomic_store_explicit(&refused_id[k], list[k], memory_order_relaxed);
            atomic_store_explicit(&nrefused, nlist | (sub && diag_nort ? REFUSE_RUNTIME : 0), memory_order_release);
        }
        atomic_store(&refusing_lock, 0);
    }
    if (r == CUPTI_OK && unknown)
        cutap_log_debug("--gpu: this CUPTI refused the callback ids of %u of the %u functions that enqueue GPU work "
                        "(cutap's: %u); calls of them alone are not joined",
                        unknown, cutap_gpu_driver_ncbids + cutap_gpu_runtime_ncbids, nlist);
    return r;
}

/* Callbacks of the enqueuing functions, both domains, on a subscriber of
 * cutap's own: 1, or 0 where CUPTI has another subscriber, refuses, or
 * knows none of them (then external ids). */
int join_by_callbacks(void)
{
    if (!C.subscribe || !C.unsubscribe || !C.enable_callback)
        return 0;
    /* the program's cuptiSubscribe from here on finds the yield (helper-29:
     * one made on another thread while cutap subscribed failed): it asks,
     * and waits a while for cutap to let go */
    atomic_store(&start_tid, (int32_t)syscall(SYS_gettid));
    atomic_store(&join_cb, JOIN_STARTING);
    __atomic_store_n(&cutap_cupti_sub_yield, gpu_sub_yield, __ATOMIC_RELEASE);
    void *sub = NULL;
    if (C.subscribe(&sub, gpu_callback, NULL) != CUPTI_OK || !sub) {
        atomic_store(&join_cb, JOIN_OFF);
        return 0;
    }
    int r = enable_ids(sub);
    cb_sub = sub;
    int expect = JOIN_STARTING;
    if (r == CUPTI_OK && atomic_compare_exchange_strong(&join_cb, &expect, JOIN_ON))
        return 1;
    /* refused, or the program asked for CUPTI meanwhile (JOIN_ASKED) */
    if (!let_go(JOIN_STARTING))
        let_go(JOIN_ASKED);
    return 0;
}

/* API records of the enqueuing functions and EXTERNAL_CORRELATION records:
 * what joining through external ids needs. CUPTI's result. */
int join_by_external_ids(void)
{
    if (diag_noapi)
        return CUPTI_OK;   /* CUTAP_GPU_DIAG=noapi: nothing asked for, nothing joined */
    int r = C.enable(K_EXTERNAL_CORRELATION);
    if (r != CUPTI_OK)
        return r;
    /* API records of the enqueuing functions only; all of them where this
     * CUPTI cannot choose (it then records every API call: it costs more) */
    int api = CUPTI_OK;
    if (diag_allapi)
        api = -1;   /* CUTAP_GPU_DIAG=allapi: API records by kind (those of other functions dropped in put) */
    else if (C.enable_driver_api && C.enable_runtime_api)
        api = enable_ids(NULL);
    if (!C.enable_driver_api || !C.enable_runtime_api || api != CUPTI_OK) {
        atomic_store(&nrefused, 0);   /* every API record: every call joined */
        r = C.enable(K_DRIVER);
        if (r == CUPTI_OK)
            r = C.enable(K_RUNTIME);
    }
    return r;
}

/* The program subscribes to CUPTI itself (cupti_watch.c, before its call
 * goes through): CUPTI has one subscriber, so cutap lets its own go and
 * joins through external ids from then on (while CUPTI is still starting,
 * gpu_start does). While cutap is subscribing, it asks and waits up to
 * 2 s for cutap to let go (CUPTI's start takes tens to hundreds of ms): a
 * thread holding what cutap's start waits for (the loader's lock) then
 * goes on, and its subscription may fail as beside any other tool, but
 * nothing hangs. Calls in progress on other
 * threads may stay unjoined (counted: gpu_pushed). In a forked child,
 * where cutap joins nothing, the parent's subscription CUPTI's memory
 * still holds is let go. */
void gpu_sub_yield(void)
{
    int e = errno;
    for (int spins = 0;; spins++) {
        int v = atomic_load(&join_cb);
        if (v == JOIN_ON) {
            if (!let_go(JOIN_ON))
                continue;
            /* (while CUPTI starts, gpu_start enables them: gpu_live 0) */
            int live = atomic_load(&gpu_live);
            int r = live ? join_by_external_ids() : CUPTI_OK;
            if (rec_file.hdr && live && r == CUPTI_OK)
                __atomic_fetch_or(&rec_file.hdr->gpu, CUTAP_GPU_ON_PUSHED, __ATOMIC_RELEASE);
            cutap_log_debug("--gpu: the program subscribed to CUPTI: calls joined through external ids from now "
                            "on%s", r == CUPTI_OK ? "" : " (CUPTI refused their API records: not joined)");
            break;
        }
        if (v == JOIN_OFF) {
            if (forked && cb_sub) {
                C.unsubscribe(cb_sub);   /* the parent's, in the child's copy of CUPTI */
                cb_sub = NULL;
            }
            break;
        }
        if (v == JOIN_STARTING && !atomic_compare_exchange_strong(&join_cb, &v, JOIN_ASKED))
            continue;
        if (v != JOIN_RELEASING && atomic_load(&start_tid) == (int32_t)syscall(SYS_gettid))
            break;   /* from inside cutap's own subscribing (helper-31): it lets go when back, nothing to wait for */
        if (spins >= 2000)
            break;   /* 2 s: cutap's start waits for something this thread holds */
        struct timespec t = {0, 1000000};
        nanosleep(&t, NULL);
    }
    errno = e;
}

/* Every kind and API record cutap may have enabled, off. */
void disable_all(void)
{
    static const int all[] = {K_CONCURRENT_KERNEL, K_MEMCPY, K_MEMSET, K_EXTERNAL_CORRELATION, K_MEMCPY2,
                              K_DRIVER, K_RUNTIME};
    if (!let_go(JOIN_ON)) {   /* CUPTI free for the program's subscriber */
        int v = JOIN_STARTING;
        atomic_compare_exchange_strong(&join_cb, &v, JOIN_ASKED);   /* let go once it has it */
    }
    for (size_t i = 0; C.disable && i < sizeof all / sizeof all[0]; i++)
        C.disable(all[i]);
    for (unsigned i = 0; C.enable_driver_api && i < cutap_gpu_driver_ncbids; i++)
        C.enable_driver_api(cutap_gpu_driver_cbids[i], 0);
    for (unsigned i = 0; C.enable_runtime_api && i < cutap_gpu_runtime_ncbids; i++)
        C.enable_runtime_api(cutap_gpu_runtime_cbids[i], 0);
}

/* A stream capture begun (successfully) or ended (successfully, or
 * invalidated: that ends it too) on this thread. The calls a thread makes
 * while it captures put their work into a graph, not on the GPU: joined
 * through callbacks, nothing could show them delivered, so they are not
 * counted in gpu_pushed. Captures are counted per thread, as PyTorch and JAX make
 * them (helper-30's limits, documented: a launch another thread puts into
 * the captured stream is counted; a capture ended on another thread
 * leaves its thread's later calls uncounted, so a loss among them goes
 * unsaid; a capturing thread's launches on other streams are not
 * counted). */
#define CUDA_ERROR_STREAM_CAPTURE_INVALIDATED 901   /* cuda.h */
void gpu_capture_post(cutap_call_t *call, void *ctx, uint64_t *scratch)
{
    (void)ctx, (void)scratch;
    uint32_t id = call->id;
    if (id == CUTAP_ID_cuStreamEndCapture || id == CUTAP_ID_cuStreamEndCapture_ptsz) {
        if (cutap_tls.gpu_capturing &&
            (call->result == CUTAP_CUDA_SUCCESS || call->result == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED))
            cutap_tls.gpu_capturing--;
    } else if (call->result == CUTAP_CUDA_SUCCESS && !(call->flags & CUTAP_CALL_SKIPPED)) {
        cutap_tls.gpu_capturing++;
    }
}

/* A forked child: it joins nothing (CUPTI does not run there), but the
 * copy of CUPTI's memory it got still holds the parent's subscription,
 * which the child's own cuptiSubscribe must find let go (cb_sub kept:
 * gpu_sub_yield). */
void gpu_join_after_fork(void)
{
    forked = 1;
    atomic_store(&join_cb, JOIN_OFF);
}
