/* The flight recorder (CUTAP_RING=BYTES, cutap trace --ring): record
 * chunks 0 .. n-1 of the file are a ring, mapped once; a thread that needs
 * a chunk takes the next one after the cursor that no thread holds, and
 * its old records are counted (header overwritten_calls) and cleared. A
 * thread holds its current chunk, and the chunks that hold a record of a
 * call it is still inside (its end is still to be written there): the
 * recorder never reuses them. Names, layers, kernels and counters go to
 * chunks after the ring (META, COUNTER_ENTRIES), which grow as in a plain
 * trace: nothing a record refers to is ever overwritten. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "writer_internal.h"

/* The helper thread clears the next RING_AHEAD chunks ahead of the
 * cursor, off the program's threads. */
#define RING_AHEAD 2
enum { RS_CLEAN = 0, RS_DIRTY = 1, RS_HELD = 2, RS_PREP = 3 };
struct rec_ring rec_ring;

static char *ring_chunk(uint32_t j)
{
    return rec_ring.base + (size_t)j * rec_file.csize;
}

/* Ring chunk j is about to hold new records: its old ones are counted as
 * overwritten, then it is cleared (a fresh record's bytes must be zero).
 * Its magic goes first, so that a reader copying it sees the change
 * (docs/FORMAT.md, "Rings"). */
static void ring_clear(uint32_t j)
{
    char *c = ring_chunk(j);
    struct cutap_chunk_header *h = (struct cutap_chunk_header *)c;
    int had = __atomic_load_n(&h->magic, __ATOMIC_RELAXED) == CUTAP_CHUNK_MAGIC;
    __atomic_store_n(&h->magic, 0, __ATOMIC_RELEASE);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    uint64_t calls = 0;
    unsigned slots = rec_file.csize / CUTAP_SLOT;
    for (unsigned s = 1; had && s < slots;) {
        const struct cutap_rec_call *r = (const struct cutap_rec_call *)(c + (size_t)s * CUTAP_SLOT);
        if (!r->kind || !r->nslots)
            break;
        calls += r->kind == CUTAP_REC_CALL;
        s += r->nslots;
    }
    memset(c, 0, rec_file.csize);
    if (had && rec_file.hdr) {
        __atomic_fetch_add(&rec_file.hdr->overwritten_calls, calls, __ATOMIC_RELAXED);
        __atomic_fetch_add(&rec_file.hdr->overwritten_chunks, 1, __ATOMIC_RELAXED);
    }
}

/* Of a thread's held chunks (list, in the order it took them), which hold
 * the record of a call it is still inside (keep[i] = 1): the last record at
 * each depth, from the outermost, whose DONE flag is not set. Only the
 * thread itself writes them: no race. */
#define RING_MAX_PINS 48
static void ring_open_chunks(const uint32_t *list, unsigned nl, uint8_t *keep)
{
    struct {
        unsigned li;
        const struct cutap_rec_call *r;
    } st[64];
    unsigned top = 0, slots = rec_file.csize / CUTAP_SLOT;
    for (unsigned i = 0; i < nl; i++) {
        const char *c = ring_chunk(list[i]);
        for (unsigned s = 1; s < slots;) {
            const struct cutap_rec_call *r = (const struct cutap_rec_call *)(c + (size_t)s * CUTAP_SLOT);
            if (!r->kind || !r->nslots)
                break;
            if (r->kind == CUTAP_REC_CALL && r->depth >= 64) {
                if (!(__atomic_load_n(&r->flags, __ATOMIC_RELAXED) & CUTAP_RF_DONE))
                    keep[i] = 1;   /* too deep to follow: kept while open */
            } else if (r->kind == CUTAP_REC_CALL) {
                unsigned d = r->depth;
                for (unsigned x = top; x < d; x++)
                    st[x].r = NULL;   /* a level no record of this thread holds */
                st[d].li = i;
                st[d].r = r;
                top = d + 1;
            }
            s += r->nslots;
        }
    }
    for (unsigned x = 0; x < top; x++)
        if (st[x].r && !(__atomic_load_n(&st[x].r->flags, __ATOMIC_RELAXED) & CUTAP_RF_DONE))
            keep[st[x].li] = 1;
}

/* A thread leaves its current ring chunk: it and the chunks it held before
 * go back to the ring, except those still holding a record of a call the
 * thread is inside (cutap_tls.depth > 0; none at depth 0). */
static void ring_leave(struct rec_thread *t, int all)
{
    uint32_t list[RING_MAX_PINS + 1];
    unsigned nl = 0;
    for (uint32_t p = t->ring_pins1; p && nl < RING_MAX_PINS; p = rec_ring.next_pin[p - 1])
        list[nl++] = p - 1;
    if (t->ring_cur1)
        list[nl++] = t->ring_cur1 - 1;
    t->ring_pins1 = t->ring_cur1 = 0;
    uint8_t keep[RING_MAX_PINS + 1] = {0};
    /* (always looked for: a call made from another client's post callback,
     * or from a signal handler, can come at the depth of a call whose
     * record is still open) */
    if (!all)
        ring_open_chunks(list, nl, keep);
    uint32_t head = 0, *link = &head;
    for (unsigned i = 0; i < nl; i++) {
        if (keep[i] && i + 1 < RING_MAX_PINS) {
            *link = list[i] + 1;
            link = &rec_ring.next_pin[list[i]];
        } else
            atomic_store_explicit(&rec_ring.state[list[i]], RS_DIRTY, memory_order_release);
    }
    *link = 0;
    t->ring_pins1 = head;
}

void rec_ring_release_all(struct rec_thread *t)
{
    if (rec_ring.state)
        ring_leave(t, 1);
}

/* After a take: the helper clears (or, on the first lap, populates) the
 * chunks ahead of the cursor. */
static void ring_kick(void)
{
    rec_pf_kick(1);
}

/* The helper's work in a ring file: the next RING_AHEAD chunks after the
 * cursor made ready (populated on the first lap; cleared after, unless the
 * ring is frozen). Returns whether it did anything. */
int rec_ring_prepare(void)
{
    int did = 0;
    uint64_t cur = atomic_load(&rec_ring.cursor);
    for (uint64_t pos = cur; pos < cur + RING_AHEAD; pos++) {
        uint32_t j = (uint32_t)(pos % rec_ring.n);
        if (pos < rec_ring.n) {
            uint64_t p = atomic_load(&rec_ring.populated);
            if (pos >= p) {
                madvise(ring_chunk(j), rec_file.csize, MADV_POPULATE_WRITE);
                atomic_store(&rec_ring.populated, pos + 1);
                did = 1;
            }
            continue;
        }
        uint8_t s = RS_DIRTY;
        if (atomic_load(&cutap_cap_block) & CB_FROZEN)
            break;
        if (atomic_load(&rec_ring.state[j]) == RS_DIRTY && atomic_compare_exchange_strong(&rec_ring.state[j], &s, RS_PREP)) {
            ring_clear(j);
            atomic_store_explicit(&rec_ring.state[j], RS_CLEAN, memory_order_release);
            did = 1;
        }
    }
    return did;
}

/* The next ring chunk for thread t (taken, cleared, its header not yet
 * written); NULL when every chunk is held (more threads inside calls than
 * the ring has chunks) or the ring is frozen and has no fresh chunk. */
char *rec_ring_take(struct rec_thread *t)
{
    if (!rec_ring.base)
        return NULL;
    struct cutap_file_header *fh = rec_file.hdr;
    uint32_t req = fh ? __atomic_load_n(&fh->freeze_request, __ATOMIC_ACQUIRE) : 0;
    if (CUTAP_UNLIKELY(req) && !(atomic_load(&cutap_cap_block) & CB_FROZEN))
        cutap_rec_freeze(req == CUTAP_FREEZE_PEER ? CUTAP_FREEZE_PEER : CUTAP_FREEZE_REQUEST, 0, 0);
    /* the chunk given back is no longer this thread's to write, whether or
     * not a new one is found (dropped first: a signal handler's call
     * between them must not write into a chunk already given back) */
    rec_thread_drop(t);
    ring_leave(t, 0);
    /* a thread whose exit destructor ran already (a later destructor makes
     * a CUDA call): asked again, so that this chunk goes back too */
    if (t->gone)
        rec_thread_exit_again();
    int frozen = !!(atomic_load(&cutap_cap_block) & CB_FROZEN);
    for (uint32_t k = 0; k < 2 * rec_ring.n; k++) {
        uint64_t pos = atomic_fetch_add(&rec_ring.cursor, 1);
        uint32_t j = (uint32_t)(pos % rec_ring.n);
        uint8_t s = atomic_load(&rec_ring.state[j]);
        if ((s != RS_CLEAN && s != RS_DIRTY) || (s == RS_DIRTY && frozen))
            continue;
        if (!atomic_compare_exchange_strong(&rec_ring.state[j], &s, RS_HELD))
            continue;
        if (s == RS_DIRTY)
            ring_clear(j);
        else if (pos < rec_ring.n && pos >= atomic_load(&rec_ring.populated))
            madvise(ring_chunk(j), rec_file.csize, MADV_POPULATE_WRITE);
        t->ring_cur1 = j + 1;
        if (!frozen)
            ring_kick();
        return ring_chunk(j);
    }
    if (!frozen && !atomic_exchange(&rec_ring.warned, 1))
        cutap_warn("the ring (%u chunks of %u KiB) is too small for the threads that hold its chunks: "
                   "calls not recorded", rec_ring.n, rec_file.csize >> 10);
    return NULL;
}

/* CUTAP_RING=BYTES (cutap trace --ring): a ring of that size, in chunks
 * of SIZE/64 rounded down to a power of two, 16 to 256 KiB (a thread
 * holds at least one: small rings keep many chunks). Returns -1 after a
 * warning (nothing is recorded). */
int rec_ring_setup(void)
{
    const char *v = getenv("CUTAP_RING");
    if (!v || !*v)
        return 0;
    char *end;
    errno = 0;
    unsigned long long bytes = strtoull(v, &end, 10);
    if (errno || *end || bytes < (1ull << 20) || bytes > (64ull << 30)) {
        cutap_warn("invalid CUTAP_RING '%s': takes a size in bytes, 1 MiB to 64 GiB; nothing is recorded", v);
        return -1;
    }
    uint32_t cs = 256u * 1024;
    while (cs > 16u * 1024 && (unsigned long long)cs * 64 > bytes)
        cs /= 2;
    uint32_t n = (uint32_t)(bytes / cs);
    void *st = mmap(NULL, (size_t)n * (1 + sizeof(uint32_t)), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (st == MAP_FAILED) {
        cutap_warn("cannot make the ring's table: %s; nothing is recorded", strerror(errno));
        return -1;
    }
    rec_ring.next_pin = st;
    rec_ring.state = (_Atomic uint8_t *)((char *)st + (size_t)n * sizeof(uint32_t));
    rec_ring.n = n;
    rec_file.csize = cs;
    return 0;
}

/* The child maps its own ring (at its first record); the table of the
 * chunks' states is the parent's copy, made clean. */
void rec_ring_after_fork(void)
{
    if (rec_ring.base)
        munmap(rec_ring.base, (size_t)rec_ring.n * rec_file.csize);
    rec_ring.base = NULL;
    if (rec_ring.state) {
        for (uint32_t j = 0; j < rec_ring.n; j++)
            atomic_store_explicit(&rec_ring.state[j], RS_CLEAN, memory_order_relaxed);
        memset(rec_ring.next_pin, 0, (size_t)rec_ring.n * sizeof *rec_ring.next_pin);
    }
    atomic_store(&rec_ring.cursor, 0);
    atomic_store(&rec_ring.takes, 0);
    atomic_store(&rec_ring.populated, 0);
    atomic_store(&rec_ring.warned, 0);
}
