/* Counting mode's inline part (count.c has the rest), shared by the
 * callbacks and the fused path (calls.c). */
#ifndef CUTAP_COUNT_INTERNAL_H
#define CUTAP_COUNT_INTERNAL_H
#include "writer_internal.h"

/* A thread's first call of an id (or its first call): a table, if it has
 * none, and an entry cut from the shared COUNTER_ENTRIES chunk. */
struct cutap_counter *rec_counter_slow(struct rec_thread *t, uint32_t id);
/* Before a timed call: a countdown that reached zero restarts; the first
 * call of an id in the process names it (the first calls are timed). */
void rec_count_timed_begin(struct rec_thread *t, uint32_t id);
/* The callbacks (rec_register). */
int rec_count_pre(cutap_call_t *call, void *ctx, uint64_t *scratch);
void rec_count_post(cutap_call_t *call, void *ctx, uint64_t *scratch);
/* A forked child: the parent's entries are not its own. */
void rec_count_after_fork(void);

/* The thread's counter of an id; NULL when recording has stopped. A
 * table entry's bit 0 says that the counter's next calls are untimed
 * unless the countdown says otherwise (record_internal.h, the generated
 * counting fast paths). */
static inline struct cutap_counter *counter_of(struct rec_thread *t, uint32_t id)
{
    struct cutap_counter **tab = t->tab, *c;
    if (CUTAP_LIKELY(tab && (c = tab[id])))
        return (struct cutap_counter *)((uintptr_t)c & ~(uintptr_t)1);
    return rec_counter_slow(t, id);
}

/* After a timed call of id (the only calls that change what decides
 * timing, besides the countdown): whether its next calls may be untimed
 * (not among its first 16, not a slow id), as count_is_timed decides. */
static inline void count_retag(struct rec_thread *t, uint32_t id, struct cutap_counter *c)
{
    if (!t->tab || id >= CUTAP_MAX_IDS)
        return;
    int fast = c->calls >= 16 && c->total < cutap_slow_ticks * c->timed;
    t->tab[id] = (struct cutap_counter *)((uintptr_t)c | (uintptr_t)fast);
}

/* Before the call: 0 untimed, else TIMED_EXACT (first calls, slow id)
 * and/or TIMED_SAMPLE (the countdown reached zero). */
enum { TIMED_EXACT = 1, TIMED_SAMPLE = 2 };
static inline unsigned count_is_timed(struct rec_thread *t, const struct cutap_counter *c)
{
    uint32_t cd = t->countdown - 1;
    t->countdown = cd;
    unsigned exact = (c->calls < 16) | (c->total >= cutap_slow_ticks * c->timed);
    return exact | (unsigned)(cd == 0) << 1;
}

/* After a timed call; how: count_is_timed's answer. */
static inline void count_timed_end(struct cutap_counter *c, uint64_t dt, unsigned how)
{
    if (!c->timed || dt < c->min)
        c->min = dt;
    if (dt > c->max)
        c->max = dt;
    c->total += dt;
    c->timed++;
    if (how == TIMED_SAMPLE) {
        c->sampled++;
        c->sampled_total += dt;
    }
}

/* After every call: calls last. */
static inline void count_call(struct cutap_counter *c, int error)
{
    cutap_fp_count(c, error);   /* (one instruction each: signal-safe) */
}

/* scratch: 0 for an untimed call; else the start time, bit 63 set for a
 * sample (the clocks are far from 0 and from 2^63 while a process runs). */
#define SCRATCH_SAMPLE (1ull << 63)

#endif
