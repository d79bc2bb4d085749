/* The recorder's counting mode (`cutap stat`, CUTAP_COUNT): counters per
 * thread and id, in the trace file's COUNTER_ENTRIES chunks, and when a
 * call is timed. The inline part is count_internal.h. */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include "count_internal.h"

/* Calls and errors are counted for every call, but reading the clock twice
 * costs far more than counting (20-25 ns a TSC read on GPU hosts), so not
 * every call is timed. A call is timed when, on its thread:
 *   - its id has had fewer than 16 calls (rare calls are timed exactly);
 *   - its id is slow: the mean of its timed calls is at least 1 us
 *     (total >= cutap_slow_ticks * timed), where two clock reads cost little;
 *   - or the thread's countdown, which every call decrements, reaches
 *     zero; it restarts at a pseudo-random 1..255 (mean 128; CUTAP_STAT_SAMPLE=M:
 *     1..2M-1), so periodic
 *     call patterns cannot alias with the sampling.
 * The first two time a call exactly; a call timed by the countdown alone
 * is a sample that stands for the calls timed by neither (`sampled`,
 * `sampled_total`): the reader adds the exact part and the samples
 * scaled up (docs/FORMAT.md), so a slow first call is not scaled up with
 * them. With CUTAP_STAT_TIMING=all every call is timed (cutap_slow_ticks = 0).
 * The decision is made before the call from the counter and the countdown
 * alone: an untimed call reads no clock and divides nothing. Both paths,
 * the callbacks and the fused path, use the functions below. */

/* Counting mode: entries are cut from the current COUNTER_ENTRIES chunk,
 * shared by every thread, under a lock (once per thread and id). */
static char *ent_chunk;
static unsigned ent_next;
static pthread_mutex_t ent_lock = PTHREAD_MUTEX_INITIALIZER;

/* Uniform in 1..rec_sample_span (255, mean 128, unless CUTAP_STAT_SAMPLE):
 * xorshift64, then the top 32 bits scaled to 0..span-1. */
uint32_t rec_next_interval(struct rec_thread *t)
{
    uint64_t x = t->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    t->rng = x;
    return 1 + (uint32_t)(((x >> 32) * rec_sample_span) >> 32);
}

/* A thread's first call of an id (or its first call): a table, if it has
 * none, and an entry cut from the shared COUNTER_ENTRIES chunk. */
__attribute__((noinline)) struct cutap_counter *rec_counter_slow(struct rec_thread *t, uint32_t id)
{
    if (id >= CUTAP_MAX_IDS || atomic_load_explicit(&rec_file.dead, memory_order_relaxed))
        return NULL;
    /* all of it with the thread's signals blocked (rec_sig_block): a
     * handler's call would otherwise wait on ent_lock held here, or make a
     * second table or entry under this one */
    sigset_t old;
    int blocked = rec_sig_block(&old);
    struct cutap_counter_entry *e = NULL;
    if (rec_file_ensure())
        goto out;
    if (CUTAP_UNLIKELY(!t->tid))
        rec_thread_init(t);
    if (!t->tab) {
        void *m = mmap(NULL, TAB_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            goto out;
        t->tab = m;
    }
    pthread_mutex_lock(&ent_lock);
    if (!ent_chunk || ent_next >= ENTRIES_PER_CHUNK) {
        ent_chunk = rec_chunk_take(t, CUTAP_CHUNK_COUNTER_ENTRIES, 0);
        ent_next = 0;
    }
    if (ent_chunk)
        e = (struct cutap_counter_entry *)(ent_chunk + CUTAP_SLOT) + ent_next++;
    pthread_mutex_unlock(&ent_lock);
    if (!e)
        goto out;
    e->tid = t->tid;
    e->id = id;
    rec_clock_pair(&e->clock, &e->mono_ns);
    prctl(PR_GET_NAME, e->thread_name);
    __atomic_store_n(&e->magic, CUTAP_ENTRY_MAGIC, __ATOMIC_RELEASE);
    t->tab[id] = &e->c;
out:
    rec_sig_restore(blocked, &old);
    return e ? &e->c : NULL;
}




/* Before a timed call: a countdown that reached zero restarts; the first
 * call of an id in the process names it (the first calls are timed). */
__attribute__((noinline)) void rec_count_timed_begin(struct rec_thread *t, uint32_t id)
{
    if (!t->countdown)
        t->countdown = rec_next_interval(t);
    rec_name_id(id);
}



int rec_count_pre(cutap_call_t *call, void *ctx, uint64_t *scratch)
{
    (void)ctx;
    struct rec_thread *t = &cutap_rt;
    struct cutap_counter *c = counter_of(t, call->id);
    unsigned how = c ? count_is_timed(t, c) : 0;
    if (!how) {
        *scratch = 0;
        return CUTAP_PROCEED;
    }
    rec_count_timed_begin(t, call->id);
    *scratch = cutap_rec_clock() | (how == TIMED_SAMPLE ? SCRATCH_SAMPLE : 0);
    return CUTAP_PROCEED;
}

void rec_count_post(cutap_call_t *call, void *ctx, uint64_t *scratch)
{
    (void)ctx;
    uint64_t s = *scratch, t1 = s ? cutap_rec_clock() : 0;
    struct cutap_counter *c = counter_of(&cutap_rt, call->id);
    if (!c) {
        rec_lost_call();
        return;
    }
    if (s)
        count_timed_end(c, t1 - (s & ~SCRATCH_SAMPLE), s & SCRATCH_SAMPLE ? TIMED_SAMPLE : TIMED_EXACT);
    count_call(c, cutap_call_is_error(call));
    if (s)
        count_retag(&cutap_rt, call->id, c);
}

int cutap_rec_count_untyped(uint32_t id)
{
    struct rec_thread *t = &cutap_rt;
    struct cutap_counter **tab = t->tab;
    uintptr_t p;
    uint32_t cd = t->countdown;
    /* as cutap_fp_counter, but a countdown about to pick this call (1), or
     * not started (0), leaves the call to the general path, which samples */
    if (!tab || id >= CUTAP_MAX_IDS ||
        !((p = (uintptr_t)tab[id]) & 1) || cd <= 1)
        return 0;
    t->countdown = cd - 1;
    count_call((struct cutap_counter *)(p - 1), 0);
    return 1;
}

/* cutap_fp_counter's entry not tagged untimed (an id's first calls, a
 * slow id) or the countdown not started: the counter, the countdown
 * taken, for cutap_fp_sample_begin to decide; NULL (the general path)
 * while there is no counter or countdown yet. */
struct cutap_counter *cutap_fp_counter_untagged(uint32_t id)
{
    struct rec_thread *t = &cutap_rt;
    uintptr_t p;
    if (!t->tab || !(p = (uintptr_t)t->tab[id]) || !t->countdown)
        return NULL;
    t->countdown--;
    return (struct cutap_counter *)(p & ~(uintptr_t)1);
}

/* The start time, bit 63 set for a sample (as count_pre's scratch); 0 for
 * an untimed call (the countdown taken, its id fast again). */
uint64_t cutap_fp_sample_begin(uint32_t id, const struct cutap_counter *c)
{
    struct rec_thread *t = &cutap_rt;
    unsigned how = (c->calls < 16) | (c->total >= cutap_slow_ticks * c->timed) | (unsigned)(t->countdown == 0) << 1;
    if (!how)
        return 0;
    rec_count_timed_begin(t, id);
    return cutap_rec_clock() | (how == TIMED_SAMPLE ? SCRATCH_SAMPLE : 0);
}

void cutap_fp_sample_end(uint32_t id, struct cutap_counter *c, uint64_t t0, int error)
{
    if (t0) {
        uint64_t t1 = cutap_rec_clock();
        count_timed_end(c, t1 - (t0 & ~SCRATCH_SAMPLE), t0 & SCRATCH_SAMPLE ? TIMED_SAMPLE : TIMED_EXACT);
    }
    count_call(c, error);
    if (t0)
        count_retag(&cutap_rt, id, c);
}

void rec_count_after_fork(void)
{
    ent_chunk = NULL;
    ent_next = 0;
    pthread_mutex_init(&ent_lock, NULL);
}
