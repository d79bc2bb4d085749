/* Refreshing an id: where the front's entry of each static id sends its
 * calls (cutap_hot), recomputed whenever the driver's or a layer's state,
 * the clients' masks, the fixups or the recorder's fast paths change; and
 * how a refresh that must not wait (a naming, a signal handler on the
 * thread that holds the lock) is left to the lock's holder. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "core_internal.h"

/* A refresh recomputes where an id's calls go (route_of) whenever what
 * decides it changes; serialised, so a refresh that read an old mask can
 * never store after one that read the new mask (an enabled client would
 * otherwise be bypassed for good). */
static pthread_mutex_t refresh_lock = PTHREAD_MUTEX_INITIALIZER;
static void refresh_child(void);
__attribute__((constructor)) static void refresh_atfork(void) { pthread_atfork(NULL, NULL, refresh_child); }

/* Where calls of id go, from the driver's and the layers' state, the
 * masks and the fixups, the trampolines' switches set on the way; NULL for
 * a dynamic id (its trampoline's switch is all it has). fast: a generated
 * fast path may be named (a refresh, which sets the slot's real function
 * first); else only the general ways (cutap_refresh_fallback). */
static void *route_of(uint32_t id, int fast)
{
    int want = atomic_load(&cutap_mask[id]) != 0;
    if (id >= CUTAP_DRIVER_COUNT && id < CUTAP_STATIC_COUNT && cutap_fn(id)->typed) {
        int k = cutap_fn(id)->layer - CUTAP_FIRST_LIB_LAYER;
        void *resolver = cutap_lib_resolver(id);
        /* The state first: a layer's route is set before its state becomes
         * 1, so a state read as adopted comes with its route. */
        int state = atomic_load(&cutap_lib_state[k]);
        struct cutap_tramp_ctx *route = cutap_lib_route_ctx(id);
        if (resolver && state != 1) {
            /* Not adopted yet (0), or no library loaded yet (-1): the first
             * call must find out which major the layer is before any typed
             * code touches its arguments (a library of an older major may
             * be loaded later, whose signature may be another). */
            return resolver;
        }
        if (route) {
            __atomic_store_n(&route->active, (uint8_t)(want || !route->real), __ATOMIC_RELEASE);
            return cutap_lib_route_stub(id);
        }
    }
    if (id < CUTAP_STATIC_COUNT && cutap_fn(id)->typed) {
        void *real = cutap_static_real(id);
        void *hot = (!want && real && !cutap_fixup[id]) ? real : NULL;
        /* The recorder alone wants it: its generated fast path, if any. */
        uint8_t mask = atomic_load(&cutap_mask[id]);
        int kind = __atomic_load_n(&cutap_fast_kind, __ATOMIC_ACQUIRE);
        /* (a variant of an older major has no fast path: those take the
         * pinned signature) */
        uint8_t fm = atomic_load(&cutap_fast_mask), gb = atomic_load(&cutap_gpu_fast_bit);
        if (fast && want && real && !cutap_fixup[id] && kind && !cutap_variant_of(id) &&
            (kind != 1 || atomic_load_explicit(&cutap_named[id], memory_order_acquire))) {
            if (mask == fm)
                hot = kind == 1 ? cutap_fast_trace[id] : cutap_fast_count[id];
            else if (kind == 1 && fm && gb && mask == (fm | gb))   /* trace --gpu: the join's client too */
                hot = cutap_fast_trace_gpu[id];
        }
        /* the fast paths call the real function from the slot (set before
         * its entry, never cleared: a thread still inside a fast path the
         * entry no longer names calls it) */
        if (fast && real)
            __atomic_store_n(&cutap_hot[id].real, real, __ATOMIC_RELEASE);
        /* none of those: the typed slow path (the front's entry jumps to
         * whatever is here; 0 would mean "core not loaded" to it) */
        return hot ? hot : cutap_static_slow(id);
    }
    struct cutap_tramp_ctx *ctx = cutap_id_ctx(id);
    if (ctx)
        __atomic_store_n(&ctx->active, (uint8_t)(want || !ctx->real), __ATOMIC_RELEASE);
    return id < CUTAP_STATIC_COUNT ? cutap_untyped_stub(id) : NULL;   /* untyped: its trampoline stub, always */
}

static void refresh_locked(uint32_t id)
{
    void *to = route_of(id, 1);
    if (to)
        atomic_store(&cutap_hot[id].to, to);
}

/* The front's entry of static id, while cutap_hot[id] is still 0 (the
 * core was just loaded by this call): the slot set, and where to go. */
void *cutap_core_entry(uint32_t id)
{
    if (id >= CUTAP_STATIC_COUNT)
        return NULL;
    if (cutap_refresh_id(id))
        return cutap_refresh_fallback(id);
    return atomic_load(&cutap_hot[id].to);
}

/* Ids refreshed while the lock was held where waiting for it could
 * deadlock (cutap_refresh_id_named; cutap_refresh_id from a signal
 * handler on the thread that holds it): a bit each, then the flag;
 * whoever holds the lock refreshes them before it lets go, and looks
 * again after (a bit set after that look is set before its setter's
 * trylock, which then finds the lock free or held by another who looks in
 * turn). So no refresh waits for its own thread: not a signal handler on
 * the thread that holds the lock (the first version's blocking naming
 * lock made that a deadlock: helper-25's review), nor a naming behind a
 * holder that never comes back (a handler that longjmps out, a thread
 * stopped by the program's own stop-the-world); and no id is left on the
 * general path because a refresh was under way (a plain trylock did that:
 * helper-24's review, trace_first_names_race). */
static _Atomic uint64_t pending[CUTAP_MAX_IDS / 64];   /* (dynamic ids too: their trampoline's switch) */
static _Atomic int any_pending;

static void drain_locked(void)
{
    while (atomic_exchange(&any_pending, 0))
        for (size_t w = 0; w < sizeof pending / sizeof pending[0]; w++)
            for (uint64_t m = atomic_exchange(&pending[w], 0); m; m &= m - 1)
                refresh_locked((uint32_t)(w * 64 + (unsigned)__builtin_ctzll(m)));
}

static void mark_pending(uint32_t id)
{
    atomic_fetch_or(&pending[id / 64], (uint64_t)1 << (id % 64));
    atomic_store(&any_pending, 1);
    atomic_thread_fence(memory_order_seq_cst);
}

/* Pending ids drained by this thread where it can take the lock, which it
 * does not hold (its mark clear). Trying for it, the thread's mark is set:
 * a handler that comes then leaves its refresh to this thread, which looks
 * again after clearing the mark. Where another holds the lock that holder
 * drains them before it lets go; a mark made after that holder's last look
 * would wait for the next refresh, so the thread tries again, a bounded
 * number of times (helper-27's review), while ids are pending: a holder
 * that never comes back (a thread stopped by the program) is not waited
 * for. */
static void drain_unlocked(struct cutap_thread *t)
{
    for (int tries = 0;; tries++) {
        atomic_thread_fence(memory_order_seq_cst);
        if (!atomic_load(&any_pending) || tries == 64)
            return;
        if (tries > 48)
            sched_yield();
        else if (tries)
            __builtin_ia32_pause();
        t->refreshing = 1;
        atomic_signal_fence(memory_order_seq_cst);
        if (!pthread_mutex_trylock(&refresh_lock)) {
            drain_locked();
            pthread_mutex_unlock(&refresh_lock);
            atomic_signal_fence(memory_order_seq_cst);
            t->refreshing = 0;
            tries = -1;   /* drained: look once more (a handler's, marked meanwhile) */
            continue;
        }
        atomic_signal_fence(memory_order_seq_cst);
        t->refreshing = 0;
    }
}

/* The thread's mark that it holds the lock (or is about to take it) is set
 * before it takes the lock and cleared after it let go: a handler that
 * comes in between finds it and leaves its refresh to this holder, which
 * drains before it lets go and looks again after. */
static void unlock_refresh(struct cutap_thread *t)
{
    drain_locked();
    pthread_mutex_unlock(&refresh_lock);
    atomic_signal_fence(memory_order_seq_cst);
    t->refreshing = 0;
    drain_unlocked(t);
}

/* A forked child (one thread): the lock made anew (a parent's thread may
 * have held it) and the forking thread's mark cleared. Ids a thread of the
 * parent left pending keep their bits: the child's next refresh drains
 * them (not here: the child's other fork handlers, which forget the
 * parent's names, may not have run yet). */
static void refresh_child(void)
{
    pthread_mutex_init(&refresh_lock, NULL);
    cutap_tls.refreshing = 0;
}

int cutap_refresh_id(uint32_t id)
{
    struct cutap_thread *t = &cutap_tls;
    if (t->refreshing) {   /* a signal handler on the holding thread */
        if (id < CUTAP_MAX_IDS)
            mark_pending(id);
        return 1;
    }
    t->refreshing = 1;
    atomic_signal_fence(memory_order_seq_cst);
    pthread_mutex_lock(&refresh_lock);
    refresh_locked(id);
    unlock_refresh(t);
    return 0;
}

int cutap_refresh_id_named(uint32_t id)
{
    if (id >= CUTAP_STATIC_COUNT)
        return -1;
    mark_pending(id);
    struct cutap_thread *t = &cutap_tls;
    if (t->refreshing)
        return 1;   /* a signal handler on the holding thread: the holder refreshes it */
    drain_unlocked(t);   /* (or the lock's holder does) */
    return 0;
}

/* Where a call of static id may go while its refresh is left to another
 * (cutap_refresh_id returned 1): the way the refresh would choose, but
 * never a fast path (whose real function the refresh sets first). */
void *cutap_refresh_fallback(uint32_t id)
{
    return id < CUTAP_STATIC_COUNT ? route_of(id, 0) : NULL;
}

void cutap_fast_trace_forget(void)
{
    for (uint32_t id = 0; id < CUTAP_STATIC_COUNT; id++) {
        void *to = atomic_load(&cutap_hot[id].to);
        if ((cutap_fast_trace[id] && to == cutap_fast_trace[id]) ||
            (cutap_fast_trace_gpu[id] && to == cutap_fast_trace_gpu[id]))
            atomic_store(&cutap_hot[id].to, cutap_static_slow(id));
    }
}

