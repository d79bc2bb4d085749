/* The straight path of a runtime copy's reports (issue #25): their records
 * written in place from a template of the id's plan, as the generated fast
 * paths write theirs (core_internal.h: struct cutap_rp; the frames and
 * the checks are resolve/rt_calls.c's). */
#include <string.h>

#include "writer_internal.h"

/* A template for the straight path of reported runtime calls
 * (core_internal.h): the layout rec_begin writes for a typed call of id
 * with simple outputs or none. Not with native stacks: a call whose stack
 * is asked for takes the fused path (the stacks are chosen at the
 * recorder's start, before any report). */
int cutap_record_rp(uint32_t id, unsigned nargs, struct cutap_rp *rp)
{
    memset(rp, 0, sizeof *rp);
    if (id >= CUTAP_STATIC_COUNT || nargs > 255 || (rec_stack_on && rec_stack_ids[id]) || nargs != cutap_fn(id)->nargs)
        return 0;   /* (a report's count other than the id's description: an older major's variant bound) */
    struct plan p = rec_make_plan(id, nargs, 0);
    if ((p.flags & (PLAN_INSTR | PLAN_IN | PLAN_OUT)) && !(p.flags & PLAN_SIMPLE))
        return 0;
    if (p.flags & PLAN_WORDS)
        return 0;
    rp->nslots = p.nslots;
    rp->nargs = (uint8_t)nargs;
    rp->nsimple = p.nsimple;
    rp->nostatus = !!(p.flags & PLAN_NOSTATUS);
    rp->func = p.flags & PLAN_FUNC ? (uint8_t)(cutap_fn(id)->func_arg + 1) : 0;
    memcpy(rp->out, p.out, sizeof rp->out);
    memcpy(rp->hdr, p.hdr, sizeof rp->hdr);
    rp->dnc = (uint32_t)nargs << 16 | (uint32_t)p.nsimple << 24;
    unsigned rf = p.flags & PLAN_NOSTATUS ? CUTAP_RF_NOSTATUS : 0;
    rp->head = CUTAP_REC_CALL | (uint64_t)rf << 8 | (uint64_t)p.nslots << 16 | (uint64_t)id << 32;
    return 1;
}

void *cutap_record_rp_begin(const struct cutap_rp *rp, uint32_t id, const uint64_t *w, unsigned depth, uint32_t origin)
{
    struct cutap_rec_call *r = cutap_fp_reserve(id, rp->nslots);
    if (__builtin_expect(!r, 0))
        return 0;
    for (unsigned i = 0; i < rp->nargs; i++)
        r->words[i] = w[i];
    for (unsigned k = 0; k < rp->nsimple; k++)
        *(uint64_t *)(void *)((char *)r + rp->out[k].off) = rp->hdr[k];
    uint32_t dnc = (uint32_t)(uint16_t)depth | rp->dnc;
    memcpy(&r->depth, &dnc, sizeof dnc);
    r->origin = origin;
    r->t0 = cutap_rec_clock();
    __atomic_store_n((uint64_t *)(void *)r, rp->head, __ATOMIC_RELEASE);
    return r;
}

void cutap_record_rp_end(const struct cutap_rp *rp, void *rec, const uint64_t *w, uint64_t result)
{
    struct cutap_rec_call *r = rec;
    r->t1 = cutap_rec_clock();
    r->result = result;
    int ok = rp->nostatus || (uint32_t)result == 0;
    if (ok)
        rec_take_simple(r, w, rp->out, rp->nsimple);
    __atomic_store_n(&r->flags, (uint8_t)(r->flags | CUTAP_RF_DONE), __ATOMIC_RELEASE);
    if (__builtin_expect(rp->func && ok, 0))
        rec_name_function(w[rp->func - 1]);
}
