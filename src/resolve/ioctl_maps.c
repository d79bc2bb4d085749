/* What the device files' mappings are (issue #32): the objects the
 * driver's clients allocated (handle -> class), the RM_MAP_MEMORY a thread
 * just made (which object its next mmap of that descriptor maps: the
 * driver keeps that "mmap context" on the descriptor until the mmap), and
 * the ranges mapped, so that an munmap or mremap of any part of one is
 * recognised and recorded with what it maps.
 *
 * The handle table and the ranges are under locks a thread marks itself
 * as holding before it waits: a signal handler that maps or unmaps on the
 * thread holding one passes through, unnamed or unrecorded, rather than
 * waiting for itself; other threads wait (briefly: a search, a move). Handles: an open
 * hash of 8,192 (client, handle) slots, filled at RM_ALLOC/RM_ALLOC_MEMORY
 * and emptied at RM_FREE (a freed parent's children stay until their
 * handle is reused: the driver hands out fresh ones). An munmap or mremap
 * of memory that is no device mapping costs one load while none exists,
 * a lock and a binary search else. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "resolve_internal.h"
#include "ioctl_internal.h"

/* Takes lock unless this thread holds one of these locks already (a
 * signal handler that interrupted it): 0 then. */
static __thread int holding __attribute__((tls_model("initial-exec")));
static int take(pthread_mutex_t *lock)
{
    if (holding)
        return 0;
    holding = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    pthread_mutex_lock(lock);
    return 1;
}
static void give(pthread_mutex_t *lock)
{
    pthread_mutex_unlock(lock);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    holding = 0;
}

/* --- handles ------------------------------------------------------------- */

#define HANDLES 8192   /* a power of two */
static struct handle {
    uint32_t client, h, cls, used;   /* used: 1 live, 2 freed (a tombstone) */
} handles[HANDLES];
static pthread_mutex_t handle_lock = PTHREAD_MUTEX_INITIALIZER;
CUTAP_FORK_SAFE(handle_lock)
static unsigned handles_live;

static unsigned slot_of(uint32_t client, uint32_t h)
{
    uint64_t k = ((uint64_t)client << 32 | h) * 0x9e3779b97f4a7c15ull;
    return (unsigned)(k >> 51) & (HANDLES - 1);
}

/* The slot holding (client, h), or -1; with put, the slot to fill when it
 * is not there (-1: full). Lock held. */
static int handle_find(uint32_t client, uint32_t h, int put)
{
    int free_slot = -1;
    for (unsigned n = 0, i = slot_of(client, h); n < HANDLES; n++, i = (i + 1) & (HANDLES - 1)) {
        struct handle *e = &handles[i];
        if (!e->used)
            return put ? (free_slot >= 0 ? free_slot : (int)i) : -1;
        if (e->used == 1 && e->client == client && e->h == h)
            return (int)i;
        if (e->used == 2 && free_slot < 0)
            free_slot = (int)i;
    }
    return put ? free_slot : -1;
}

void ioc_handle_put(uint32_t client, uint32_t h, uint32_t cls)
{
    if (!take(&handle_lock))
        return;
    int i = handle_find(client, h, 1);
    if (i >= 0 && (handles[i].used == 1 || handles_live < HANDLES * 3 / 4)) {
        handles_live += handles[i].used != 1;
        handles[i] = (struct handle){client, h, cls, 1};
    }
    give(&handle_lock);
}

void ioc_handle_drop(uint32_t client, uint32_t h)
{
    if (!take(&handle_lock))
        return;
    int i = handle_find(client, h, 0);
    if (i >= 0)
        handles[i].used = 2, handles_live--;
    give(&handle_lock);
}

uint32_t ioc_handle_class(uint32_t client, uint32_t h)
{
    uint32_t cls = 0;
    if (!take(&handle_lock))
        return 0;
    int i = handle_find(client, h, 0);
    if (i >= 0)
        cls = handles[i].cls;
    give(&handle_lock);
    return cls;
}

/* --- the mapping a thread asked the driver for -------------------------- */

static __thread struct {
    int fd;   /* -1: none */
    uint32_t client, h;
} pending __attribute__((tls_model("initial-exec"))) = {-1, 0, 0};

void ioc_map_asked(int fd, uint32_t client, uint32_t h)
{
    pending.fd = fd, pending.client = client, pending.h = h;
}

int ioc_map_take_asked(int fd, struct ioc_map_info *m)
{
    if (pending.fd < 0 || pending.fd != fd)
        return 0;
    pending.fd = -1;
    m->h = pending.h;
    m->cls = ioc_handle_class(pending.client, pending.h);
    return 1;
}

/* --- ranges ----------------------------------------------------------------- */

#define MAX_MAPS 4096
static struct map_range {
    uintptr_t start, end;
    struct ioc_map_info m;
} maps[MAX_MAPS];
static _Atomic unsigned nmaps;
static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;
CUTAP_FORK_SAFE(map_lock)

unsigned ioc_maps_count(void) { return atomic_load_explicit(&nmaps, memory_order_relaxed); }

/* The first range whose end is past a (lock held). */
static unsigned map_find(uintptr_t a)
{
    unsigned lo = 0, hi = atomic_load_explicit(&nmaps, memory_order_relaxed);
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        if (maps[mid].end <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void map_insert(unsigned i, uintptr_t a, uintptr_t b, const struct ioc_map_info *m)
{
    unsigned n = atomic_load_explicit(&nmaps, memory_order_relaxed);
    if (n >= MAX_MAPS)
        return;
    memmove(&maps[i + 1], &maps[i], (n - i) * sizeof *maps);
    maps[i] = (struct map_range){a, b, *m};
    atomic_store_explicit(&nmaps, n + 1, memory_order_release);
}

/* Removes [a, b) from the ranges (lock held): the parts of a range
 * outside it stay (an munmap of the middle leaves two). */
static void map_cut(uintptr_t a, uintptr_t b)
{
    unsigned i = map_find(a);
    while (i < atomic_load_explicit(&nmaps, memory_order_relaxed) && maps[i].start < b) {
        struct map_range r = maps[i];
        unsigned n = atomic_load_explicit(&nmaps, memory_order_relaxed);
        memmove(&maps[i], &maps[i + 1], (n - i - 1) * sizeof *maps);
        atomic_store_explicit(&nmaps, n - 1, memory_order_release);
        if (r.start < a)
            map_insert(i++, r.start, a, &r.m);
        if (r.end > b)
            map_insert(i++, b, r.end, &r.m);
    }
}

static uintptr_t end_of(uintptr_t a, size_t len) { return len > UINTPTR_MAX - a ? UINTPTR_MAX : a + len; }

void ioc_map_put(uintptr_t a, size_t len, const struct ioc_map_info *m)
{
    if (!len || !take(&map_lock))
        return;
    uintptr_t b = end_of(a, len);
    map_cut(a, b);
    map_insert(map_find(a), a, b, m);
    give(&map_lock);
}

int ioc_map_look(uintptr_t a, size_t len, struct ioc_map_info *m, uint64_t *left)
{
    if (!take(&map_lock))
        return 0;
    uintptr_t b = end_of(a, len ? len : 1);
    int found = 0;
    uint64_t keep = 0;
    for (unsigned i = map_find(a), n = atomic_load_explicit(&nmaps, memory_order_relaxed);
         i < n && maps[i].start < b; i++) {
        if (!found)
            *m = maps[i].m;
        found = 1;
        keep += (maps[i].start < a ? a - maps[i].start : 0) + (maps[i].end > b ? maps[i].end - b : 0);
    }
    give(&map_lock);
    if (left)
        *left = keep;
    return found;
}

void ioc_map_gone(uintptr_t a, size_t len)
{
    if (!len)
        return;
    if (!take(&map_lock))
        return;
    map_cut(a, end_of(a, len));
    give(&map_lock);
}
