/* Parameter blocks of RM controls and allocations (issue #32, `cutap trace
 * --ioctl-params`, CUTAP_IOCTL_PARAMS=1): the ioctl layer names the block
 * of the call under way (cutap_tls.ioc_blk, struct cutap_ioc_blk); the
 * recorder reserves a CUTAP_META_PARAMS record right after the call's
 * record, in the same reservation (so the reader finds it there, and a
 * ring overwrites both together), and copies the block into it before
 * the call and, when the kernel accepted the ioctl, after it.
 *
 * The block is the program's memory, at a pointer the program chose: it
 * is read with process_vm_readv (the ioctl layer's cutap_ioc_safe_read),
 * which fails instead of faulting. Where
 * the system refuses that call (a seccomp profile), nothing is read and
 * the record says so (BEFORE_BAD, AFTER_BAD). */
#define _GNU_SOURCE
#include "writer_internal.h"

static inline size_t rec_bytes(size_t len)
{
    return offsetof(struct cutap_rec_meta, text) + sizeof(struct cutap_params_head) + 2 * len + 1;
}

/* The slots of the block's record for a call record of n slots: the
 * block as large as CUTAP_PARAMS_MAX and a chunk (with the call) allow. */
unsigned rec_blk_slots(const struct cutap_ioc_blk *b, unsigned n)
{
    if (rec_file.csize / CUTAP_SLOT < n + 2)
        return 0;
    size_t len = b->size < CUTAP_PARAMS_MAX ? b->size : CUTAP_PARAMS_MAX;
    size_t room = (size_t)(rec_file.csize / CUTAP_SLOT - 1 - n) * CUTAP_SLOT;
    while (len && rec_bytes(len) > room)
        len /= 2;
    return (unsigned)((rec_bytes(len) + CUTAP_SLOT - 1) / CUTAP_SLOT);
}

/* The record at m (extra slots, reserved behind call record r): its
 * header first, so that the chunk reads whole at once, then the bytes as
 * before the call. */
void rec_blk_begin(struct cutap_rec_call *r, struct cutap_ioc_blk *b, unsigned extra)
{
    struct cutap_rec_meta *m = (struct cutap_rec_meta *)(r + r->nslots);
    size_t room = (size_t)extra * CUTAP_SLOT - offsetof(struct cutap_rec_meta, text) - sizeof(struct cutap_params_head) - 1;
    size_t len = room / 2 < b->size ? room / 2 : b->size;
    if (len > CUTAP_PARAMS_MAX)
        len = CUTAP_PARAMS_MAX;
    struct cutap_params_head h = {b->what, b->kind, 0, (uint16_t)len, b->size, 0, b->ptr};
    m->sub = CUTAP_META_PARAMS;
    m->nslots = (uint16_t)extra;
    m->aux = r->id;
    m->key = r->t0;
    m->clock = r->t0;
    memcpy(m->text, &h, sizeof h);
    __atomic_store_n(&m->kind, CUTAP_REC_META, __ATOMIC_RELEASE);
    uint8_t st = b->size > len ? CUTAP_PARAMS_CUT : 0;
    st |= cutap_ioc_safe_read(m->text + sizeof h, (const void *)(uintptr_t)b->ptr, len) ? CUTAP_PARAMS_BEFORE_BAD : CUTAP_PARAMS_BEFORE;
    __atomic_store_n((uint8_t *)m->text + offsetof(struct cutap_params_head, state), st, __ATOMIC_RELEASE);
    b->rec = m;
}

/* After the call: the bytes as the driver left them, when the kernel
 * accepted the ioctl (b->after). */
void rec_blk_end(struct cutap_ioc_blk *b)
{
    struct cutap_rec_meta *m = b->rec;
    struct cutap_params_head h;
    memcpy(&h, m->text, sizeof h);
    if (!b->after)
        return;
    h.state |= cutap_ioc_safe_read(m->text + sizeof h + h.len, (const void *)(uintptr_t)b->ptr, h.len) ? CUTAP_PARAMS_AFTER_BAD : CUTAP_PARAMS_AFTER;
    __atomic_store_n((uint8_t *)m->text + offsetof(struct cutap_params_head, state), h.state, __ATOMIC_RELEASE);
}
