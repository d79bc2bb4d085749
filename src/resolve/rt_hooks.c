/* Every runtime call of every copy of the runtime, without CUPTI
 * (CUTAP_RUNTIME unset, "all" or "hooks": the default; issue #25).
 *
 * The protocol, measured on the H100 and H200 (driver 580, CUDA 13.0;
 * tests/gpu/rt_hooks_probe.cu, docs/HIDDEN_API.md):
 *   - each runtime copy asks the driver for TOOLS_RUNTIME_CALLBACK_HOOKS
 *     once and calls its slot #2(&flags, &n): a driver-owned array of n
 *     (1024) 32-bit words, word c nonzero when runtime callback id c is
 *     wanted. CUPTI's enabling writes these words (cuptiEnableDomain: all,
 *     cuptiEnableCallback: one); the runtime reads them at every call.
 *   - at the entry and at the exit of an API call whose word is set, the
 *     runtime fills a record of its own (struct rt_record below) and calls
 *     #4(context, &record.context_uid, 0, ?, name or NULL, 0), which fills
 *     the context's uid, then #1(cbid, &record, ...), from inside which
 *     CUPTI calls its subscribers. Neither call's result changes what the
 *     runtime does; without a subscriber the driver's #1 does nothing.
 *   - written by hand with no subscriber, the words make the runtime call
 *     #4 and #1 just the same, and the program runs as before, whether the
 *     driver's #4 and #1 are then called or not.
 *
 * So cutap hands each copy, from its copy of the table, a flags array of
 * its own with every word set, and takes the reports in #1: its
 * parameters, name and result are in the record, and the copy that made
 * it is the caller of #1. The shared libcudart whose symbols our wrappers
 * record gets the driver's own array (its calls are not reported twice,
 * and cost nothing more). A CUPTI client in the process (nsys, the PyTorch
 * profiler, a referee) enables words in the driver's array: where the
 * driver's word for a report is set, cutap calls the driver's #4 (with
 * the arguments the runtime gave ours, kept per thread) and #1, so the
 * client gets exactly the reports it asked for; where not, neither.
 * CUTAP_RUNTIME=symbols hands out the driver's array: symbols only.
 * CUTAP_RUNTIME=cupti subscribes to CUPTI instead (resolve/cupti_rt.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "resolve_internal.h"

int cutap_rt_hooks;   /* this mode is on */

#define RECORD_MIN_SIZE (offsetof(struct rt_record, site) + sizeof(uint32_t))

typedef uint64_t (*slot_fn)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
typedef uint64_t (*flags_fn)(void **, size_t *);
static slot_fn real1, real4;
static flags_fn real2;

/* The driver's array (what CUPTI writes) and ours. */
#define OWN_WORDS 4096
static uint32_t own_flags[OWN_WORDS * 2];   /* twice n words: room should a runtime read them wider */
static const volatile uint32_t *_Atomic driver_flags;
static _Atomic size_t driver_words;
static pthread_once_t own_once = PTHREAD_ONCE_INIT;

/* Words 1 to n-1, as the driver's n (the words past n stay 0, as the
 * driver's are not the runtime domain's). */
static size_t own_words;
static void own_fill(void)
{
    for (size_t i = 1; i < own_words && i < OWN_WORDS; i++)
        own_flags[i] = 1;
}

/* Slots 1 and 4 of the copy are cutap's (else its words must not be
 * handed out: the runtime would call slots nobody wraps). */
static _Atomic int protocol_ok;

/* Whether any client wants a runtime call now (a filter that leaves the
 * layer out, or no client at all: the copy gets the driver's words and
 * reports nothing, costing nothing). A client enabled for the runtime
 * layer only after a copy started gets that copy's calls through the
 * shared libcudart's wrappers, not its reports. */
static int runtime_wanted(void)
{
    const struct cutap_layer_desc *d = &cutap_layers[CUTAP_LAYER_RUNTIME - CUTAP_FIRST_LIB_LAYER];
    for (uint32_t i = 0; i < d->count; i++)
        if (atomic_load_explicit(&cutap_mask[d->first + i], memory_order_relaxed))
            return 1;
    return 0;
}

static uint64_t hooks_flags(void **p, size_t *n)
{
    void *origin = __builtin_return_address(0);
    uint64_t rv = real2(p, n);   /* its result, whatever it is, is the runtime's */
    if (!p || !*p || !n)
        return rv;
    atomic_store_explicit(&driver_words, *n, memory_order_relaxed);
    atomic_store_explicit(&driver_flags, (const volatile uint32_t *)*p, memory_order_release);
    if (!cutap_rt_hooks || !atomic_load(&protocol_ok) || !runtime_wanted() || cutap_rt_origin_is_shared(origin))
        return rv;   /* symbols only, nobody wants runtime calls, or the shared libcudart our wrappers record */
    if (*n == 0 || *n > OWN_WORDS) {
        int e = errno;
        const char *path = cutap_object_path(cutap_object_of(origin), NULL);
        cutap_warn("TOOLS_RUNTIME_CALLBACK_HOOKS#2 gave %zu callback words (at most %d expected): the runtime copy "
                   "in %s is not recorded", *n, OWN_WORDS, path ? path : "an unknown object");
        errno = e;
        return rv;
    }
    own_words = *n;
    pthread_once(&own_once, own_fill);
    *p = own_flags;
    return rv;
}

/* Slot calls the reports bring with them. With its words set, a CUDA 13
 * runtime calls TOOLS_TLS#2 just before #4 at the entry and at the exit
 * of every call (measured: two per runtime call, none without the words),
 * from one call site per copy and site: calls the program does not make
 * without cutap. The site of the last slot call made before a #4 since
 * the previous report ended is a candidate if it called TOOLS_TLS#2 from
 * the object and the neighbourhood (INDUCED_NEAR bytes) of the #4 call;
 * seen so twice, it is learned, and its calls then run without a frame
 * (core/dispatch.c, trampoline.S). The first two of each site are
 * recorded. A TOOLS_TLS#2 call of the program's own, or of a library's
 * elsewhere, is never near a runtime copy's #4 call. */
#define INDUCED_NEAR 4096
#define INDUCED_MAX 32
static void *_Atomic induced[INDUCED_MAX];
static void *_Atomic candidate[INDUCED_MAX];
_Atomic uint32_t cutap_induced_n;

int cutap_induced_site(const void *ret)
{
    uint32_t n = atomic_load_explicit(&cutap_induced_n, memory_order_acquire);
    for (uint32_t i = 0; i < n && i < INDUCED_MAX; i++)
        if (atomic_load_explicit(&induced[i], memory_order_relaxed) == ret)
            return 1;
    return 0;
}

static pthread_mutex_t induced_lock = PTHREAD_MUTEX_INITIALIZER;
CUTAP_FORK_SAFE(induced_lock)
static __attribute__((noinline)) void induced_seen(void *ret)
{
    if (cutap_induced_site(ret) || pthread_mutex_trylock(&induced_lock))
        return;   /* (busy: a signal handler's report inside the learning; learned later) */
    uint32_t n = atomic_load(&cutap_induced_n);
    if (!cutap_induced_site(ret) && n < INDUCED_MAX) {
        int known = 0;
        for (uint32_t i = 0; i < INDUCED_MAX && !known; i++)
            known = atomic_load(&candidate[i]) == ret;
        if (known) {
            atomic_store(&induced[n], ret);
            atomic_store_explicit(&cutap_induced_n, n + 1, memory_order_release);
            if (n < CUTAP_TRAMP_SKIP)   /* the first ones: the trampoline's own check */
                cutap_tramp_skip[n] = ret;
        } else {
            for (uint32_t i = 0; i < INDUCED_MAX; i++)
                if (!atomic_load(&candidate[i])) {
                    atomic_store(&candidate[i], ret);
                    break;
                }
        }
    }
    pthread_mutex_unlock(&induced_lock);
}

/* Whether id is a TOOLS_TLS#2's (a slot's id is made when its table is
 * copied: found by name once per id; other slot calls reach here at every
 * report). */
static int is_tls2(uint32_t id)
{
    static _Atomic uint8_t verdict[CUTAP_MAX_IDS - CUTAP_STATIC_COUNT];   /* 0 not yet, 1 yes, 2 no */
    if (id < CUTAP_STATIC_COUNT || id - CUTAP_STATIC_COUNT >= CUTAP_MAX_IDS - CUTAP_STATIC_COUNT)
        return 0;
    _Atomic uint8_t *v = &verdict[id - CUTAP_STATIC_COUNT];
    uint8_t k = atomic_load_explicit(v, memory_order_relaxed);
    if (!k) {
        const char *n = cutap_call_name(id);
        k = n && !strcmp(n, "TOOLS_TLS#2") ? 1 : 2;
        atomic_store_explicit(v, k, memory_order_relaxed);
    }
    return k == 1;
}

/* #4's arguments, kept for the #1 that follows on the same thread. */
#define saved4 (cutap_tls.rt_hook4)

/* A slot call came before this #4 (here: its return address): a
 * candidate for the learning above. */
static __attribute__((noinline)) void slot4_after_slot(void *last, void *here)
{
    cutap_tls.last_slot_ret = NULL;
    uintptr_t d = (uintptr_t)last > (uintptr_t)here ? (uintptr_t)last - (uintptr_t)here
                                                    : (uintptr_t)here - (uintptr_t)last;
    if (d < INDUCED_NEAR && is_tls2(cutap_tls.last_slot_id) && !cutap_induced_site(last)) {
        int e = errno;
        if (cutap_object_of(last) == cutap_object_of(here))
            induced_seen(last);
        errno = e;
    }
}

static uint64_t hooks_slot4(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
    struct cutap_thread *t = &cutap_tls;
    uint64_t *s = t->rt_hook4;
    s[0] = a, s[1] = b, s[2] = c, s[3] = d, s[4] = e, s[5] = f;
    s[6] = 1;   /* kept for this thread's next #1 only */
    if (CUTAP_UNLIKELY(t->last_slot_ret != NULL))   /* learned sites leave none */
        slot4_after_slot(t->last_slot_ret, __builtin_return_address(0));
    return 0;
}

static int driver_wants(uint32_t cbid)
{
    const volatile uint32_t *w = atomic_load_explicit(&driver_flags, memory_order_acquire);
    return w && cbid < atomic_load_explicit(&driver_words, memory_order_relaxed) && w[cbid];
}

/* Whether the reports made at a call site follow the protocol measured
 * (whatever the runtime's version): checked once per site and kind (entry
 * or exit: a site may make both), at its first report of that kind, with
 * reads that cannot fault (front/exec.c's probe): the record readable and
 * of a size that holds the fields read, its callback id #1's, its name a
 * readable string, its parameter struct readable where given, and at an
 * exit the result readable where given. An entry's result field is not
 * read (CUDA 11.8 and 12.4 runtimes leave whatever was on the stack there
 * at some entries: judged by it, their cudaMalloc, cudaFree, ... were
 * lost). A site and kind that fail are never read again: their reports
 * are only passed on to the driver, and cutap says so once. */
#define SITES_MAX 128
static struct {
    const void *_Atomic site;
    _Atomic int ok;
    int kind;
} sites[SITES_MAX];   /* filled in order, never emptied */

static pthread_mutex_t sites_lock = PTHREAD_MUTEX_INITIALIZER;
CUTAP_FORK_SAFE(sites_lock)

static int site_known(const void *site, int kind, int *ok)
{
    for (int i = 0; i < SITES_MAX; i++) {
        const void *s = atomic_load_explicit(&sites[i].site, memory_order_acquire);
        if (!s)
            return 0;
        if (s == site && sites[i].kind == kind) {
            *ok = atomic_load_explicit(&sites[i].ok, memory_order_relaxed);
            return 1;
        }
    }
    return 0;
}

/* The record's kind (0 entry, 1 exit) where this site's reports of it are
 * cutap's to read, else -1. */
static __attribute__((noinline)) int site_check(const void *site, const struct rt_record *r, uint32_t cbid)
{
    int e = errno;   /* the probe's system calls are cutap's, not the program's */
    int form = cutap_readable(r, RECORD_MIN_SIZE) && r->size >= RECORD_MIN_SIZE && r->size < 4096 && r->site <= 1;
    int kind = form ? (int)r->site : 2, ok;
    if (site_known(site, kind, &ok)) {
        errno = e;
        return ok ? kind : -1;
    }
    ok = form && r->cbid == cbid && r->name && cutap_readable_str(r->name) &&
         (!r->params || cutap_readable(r->params, 8)) && (kind == 0 || !r->result || cutap_readable(r->result, 4));
    /* A site's verdict is published before the site (readers find both or
     * neither); a report made while the table is being written, or once it
     * is full, is judged again, not dropped. */
    int known = 0, old = 0, warned = 0;
    if (!pthread_mutex_trylock(&sites_lock)) {
        for (int k = 0; k < 3 && !ok; k++)   /* said once per site */
            warned |= k != kind && site_known(site, k, &old) && !old;
        if (!(known = site_known(site, kind, &old))) {
            for (int i = 0; i < SITES_MAX; i++)
                if (!atomic_load_explicit(&sites[i].site, memory_order_relaxed)) {
                    atomic_store_explicit(&sites[i].ok, ok, memory_order_relaxed);
                    sites[i].kind = kind;
                    atomic_store_explicit(&sites[i].site, site, memory_order_release);
                    break;
                }
        }
        pthread_mutex_unlock(&sites_lock);
    }
    if (known) {
        errno = e;
        return old ? kind : -1;
    }
    if (!ok && !warned) {
        uint64_t base = 0;
        const char *path = cutap_object_path(cutap_object_of(site), &base);
        if (cutap_readable(r, 0x80)) {
            const uint64_t *q = (const uint64_t *)r;
            cutap_log_debug("runtime report at +%#lx, callback id %u: record %016lx %016lx %016lx %016lx %016lx "
                            "%016lx %016lx %016lx %016lx %016lx %016lx %016lx", (unsigned long)((uintptr_t)site - base),
                            cbid, q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7], q[8], q[9], q[10], q[11]);
        }
        cutap_warn("a runtime copy in %s (call site +%#lx) reports its calls in a form cutap does not know%s: "
                   "those reports are not recorded", path ? path : "an unknown object",
                   (unsigned long)((uintptr_t)site - base), kind == 0 ? " (at their entries)" : kind == 1 ? " (at their exits)" : "");
    }
    errno = e;
    return ok ? kind : -1;
}

static uint64_t slot1_general(uint64_t cbid, uint64_t rec, uint64_t c, uint64_t d, uint64_t e, uint64_t f,
                              void *origin, int ours);

/* #1: a report. The common one (a site whose form is known, its id the
 * record's, no CUPTI client wanting it) goes straight to the recorder. */
static uint64_t hooks_slot1(uint64_t cbid, uint64_t rec, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
    void *origin = __builtin_return_address(0);
    const struct rt_record *r = (const struct rt_record *)(uintptr_t)rec;
    struct cutap_thread *t = &cutap_tls;
    /* a site seen to report in the known form, of either kind: its record
     * can be read; the kind of this one must have been checked too */
    int ours = origin == t->rt_site_ok[0] || origin == t->rt_site_ok[1];
    if (CUTAP_LIKELY(ours) && (ours = r->site <= 1 && origin == t->rt_site_ok[r->site]) && r->cbid == (uint32_t)cbid &&
        !driver_wants((uint32_t)cbid)) {
        t->rt_hook4[6] = 0;
        t->last_slot_ret = NULL;   /* the report ends without a slot call of its own */
        return r->site ? cutap_rt_hook_exit(r) : cutap_rt_hook_enter(r, origin);
    }
    /* (origin and ours as arguments, not through the thread's block: a
     * report made by a signal handler in between would overwrite them) */
    return slot1_general(cbid, rec, c, d, e, f, origin, ours);
}

static __attribute__((noinline)) uint64_t slot1_general(uint64_t cbid, uint64_t rec, uint64_t c, uint64_t d,
                                                         uint64_t e, uint64_t f, void *origin, int ours)
{
    const struct rt_record *r = (const struct rt_record *)(uintptr_t)rec;
    if (CUTAP_UNLIKELY(!ours)) {
        int kind = site_check(origin, r, (uint32_t)cbid);
        if ((ours = kind >= 0))
            cutap_tls.rt_site_ok[kind] = origin;
    }
    ours = ours && r->cbid == (uint32_t)cbid;
    int fwd = driver_wants((uint32_t)cbid);
    /* cutap trace --gpu (record/gpu.c) pushes a launch's record to CUPTI
     * in its entry and pops it in its exit: CUPTI's callback must run
     * inside them to pair the launch with its kernels */
    int inside = fwd && cutap_gpu_inside((uint32_t)cbid);
    if (ours && r->site == 0 && inside)
        cutap_rt_report(0, (uint32_t)cbid, r->name, r->params, NULL, origin, r);
    if (ours && r->site != 0 && !inside)   /* the exit: recorded before the CUPTI client's callback runs */
        cutap_rt_report((int)r->site, (uint32_t)cbid, r->name, r->params, r->result, origin, r);
    uint64_t ret = 0;
    uint64_t *s = saved4;
    if (fwd) {
        /* the driver's #4 only with the arguments of the #4 that came just
         * before this #1 on this thread: never with an older call's
         * pointers (a record since gone from the stack) */
        if (s[6] && s[1] == rec + offsetof(struct rt_record, context_uid))
            real4(s[0], s[1], s[2], s[3], s[4], s[5]);
        ret = real1(cbid, rec, c, d, e, f);
    }
    s[6] = 0;
    if (ours && r->site == 0 && !inside)   /* the entry: after it, so the client's work stays outside the call */
        cutap_rt_report(0, (uint32_t)cbid, r->name, r->params, NULL, origin, r);
    if (ours && r->site != 0 && inside)
        cutap_rt_report((int)r->site, (uint32_t)cbid, r->name, r->params, r->result, origin, r);
    cutap_tls.last_slot_ret = NULL;   /* the report ended */
    return ret;
}

/* CUTAP_RUNTIME=floor (a benchmark's anchor): #1 and #4 do nothing. */
static uint64_t floor_slot(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
    (void)a, (void)b, (void)c, (void)d, (void)e, (void)f;
    return 0;
}

/* exporttable.c: the copy of TOOLS_RUNTIME_CALLBACK_HOOKS gets these in
 * slots 1, 2 and 4 (real: the driver's function); NULL leaves the slot. */
void *cutap_rt_hooks_slot(unsigned slot, void *real)
{
    switch (slot) {
    case 1: real1 = (slot_fn)real; break;
    case 2: real2 = (flags_fn)real; return (void *)hooks_flags;
    case 4: real4 = (slot_fn)real; break;
    default: return NULL;
    }
    if (real1 && real4)
        atomic_store(&protocol_ok, 1);
    if (cutap_rt_hooks == 2)
        return (void *)floor_slot;
    return slot == 1 ? (void *)hooks_slot1 : (void *)hooks_slot4;
}
