/* What the device files' mappings are (issue #32): the objects the
 * driver's clients allocated (handle -> class), the RM_MAP_MEMORY a thread
 * just made (which object its next mmap of that descriptor maps: the
 * driver keeps that "mmap context" on the descriptor until the mmap), and
 * the ranges mapped, so that an munmap, mremap or MAP_FIXED mapping of any
 * part of one is recognised and recorded with what it maps.
 *
 * Never harm: nothing here waits without bound, and nothing here has
 * thread-local storage of its own (the core is dlopened: its static TLS
 * would come from glibc's small surplus that later dlopens share; the
 * thread's pending request lives in the front's cutap_tls).
 * - The ranges are read without a lock (a sequence count: a reader that
 *   sees them change retries a few times, then answers "not a device
 *   mapping", so an ordinary munmap never waits for anyone, not even for
 *   a thread that was cancelled or longjmp'd out while changing them, or
 *   a lock a fork left held).
 * - Changes (device mappings made, unmapped, moved: rare) and the handle
 *   table take their lock with a bounded number of tries; when it cannot
 *   be had (a signal handler on the thread that holds it, a holder that
 *   never came back) the change is not made: the trace may then name a
 *   mapping wrongly or not at all, the program is untouched.
 * Ranges are whole pages, as the kernel maps them. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "resolve_internal.h"
#include "ioctl_internal.h"

#define PAGE 4096u

/* --- handles: open addressing, linear probing, deletion by shifting ---- */

#define HANDLES 8192   /* a power of two */
static struct handle {
    uint32_t client, h, cls, used;
} handles[HANDLES];
static pthread_mutex_t handle_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned handles_live;

static unsigned home_of(uint32_t client, uint32_t h)
{
    uint64_t k = ((uint64_t)client << 32 | h) * 0x9e3779b97f4a7c15ull;
    return (unsigned)(k >> 51) & (HANDLES - 1);
}

/* The slot of (client, h), or of the empty slot where it would go (lock
 * held; the table is never full: at most 3/4 of it live). */
static unsigned handle_slot(uint32_t client, uint32_t h)
{
    unsigned i = home_of(client, h);
    while (handles[i].used && !(handles[i].client == client && handles[i].h == h))
        i = (i + 1) & (HANDLES - 1);
    return i;
}

void ioc_handle_put(uint32_t client, uint32_t h, uint32_t cls)
{
    if (!cutap_lock_bounded(&handle_lock))
        return;
    unsigned i = handle_slot(client, h);
    if (handles[i].used || handles_live < HANDLES * 3 / 4) {
        handles_live += !handles[i].used;
        handles[i] = (struct handle){client, h, cls, 1};
    }
    pthread_mutex_unlock(&handle_lock);
}

void ioc_handle_drop(uint32_t client, uint32_t h)
{
    if (!cutap_lock_bounded(&handle_lock))
        return;
    unsigned i = handle_slot(client, h);
    if (handles[i].used) {
        /* shift back the entries after it that probed past it */
        for (unsigned j = (i + 1) & (HANDLES - 1); handles[j].used; j = (j + 1) & (HANDLES - 1)) {
            unsigned k = home_of(handles[j].client, handles[j].h);
            if (i <= j ? (k <= i || k > j) : (k <= i && k > j)) {
                handles[i] = handles[j];
                i = j;
            }
        }
        handles[i].used = 0;
        handles_live--;
    }
    pthread_mutex_unlock(&handle_lock);
}

uint32_t ioc_handle_class(uint32_t client, uint32_t h)
{
    if (!cutap_lock_bounded(&handle_lock))
        return 0;
    unsigned i = handle_slot(client, h);
    uint32_t cls = handles[i].used ? handles[i].cls : 0;
    pthread_mutex_unlock(&handle_lock);
    return cls;
}

/* --- the mapping a thread asked the driver for -------------------------- */

void ioc_map_asked(int fd, uint32_t client, uint32_t h)
{
    cutap_tls.map_asked.fd1 = fd + 1, cutap_tls.map_asked.client = client, cutap_tls.map_asked.h = h;
}

int ioc_map_take_asked(int fd, struct ioc_map_info *m)
{
    if (!cutap_tls.map_asked.fd1 || cutap_tls.map_asked.fd1 != fd + 1)
        return 0;
    cutap_tls.map_asked.fd1 = 0;
    m->h = cutap_tls.map_asked.h;
    m->cls = ioc_handle_class(cutap_tls.map_asked.client, cutap_tls.map_asked.h);
    return 1;
}

/* --- ranges ----------------------------------------------------------------- */

#define MAX_MAPS 4096
static struct map_range {
    uintptr_t start, end;
    struct ioc_map_info m;
} maps[MAX_MAPS];
_Atomic unsigned ioc_nmaps;        /* ioctl_internal.h */
static _Atomic unsigned map_seq;   /* odd while the ranges change */
static _Atomic unsigned long map_lost;   /* ranges not kept (the table full) */
static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;

/* A forked child: a table another thread was changing at the fork is not
 * to be trusted (a move half done, the sequence count left odd): it starts
 * empty (its mappings then pass unrecorded, as any memory of no device);
 * the locks are made anew. */
static void maps_child(void)
{
    if (pthread_mutex_trylock(&handle_lock)) {
        memset(handles, 0, sizeof handles);
        handles_live = 0;
    }
    if (pthread_mutex_trylock(&map_lock) || (atomic_load(&map_seq) & 1)) {
        atomic_store(&ioc_nmaps, 0);
        atomic_fetch_or(&map_seq, 1);
        atomic_fetch_add(&map_seq, 1);   /* even again */
    }
    pthread_mutex_init(&handle_lock, NULL);
    pthread_mutex_init(&map_lock, NULL);
}
__attribute__((constructor)) static void maps_atfork(void) { pthread_atfork(NULL, NULL, maps_child); }

static uintptr_t page_end(uintptr_t a, size_t len)
{
    if (len > UINTPTR_MAX - a || a + len > UINTPTR_MAX - (PAGE - 1))
        return UINTPTR_MAX & ~(uintptr_t)(PAGE - 1);   /* (the kernel's EINVAL: nothing there) */
    return (a + len + (PAGE - 1)) & ~(uintptr_t)(PAGE - 1);
}

/* The first range whose end is past a (lock held, or a reader: n given). */
static unsigned map_find(uintptr_t a, unsigned n)
{
    unsigned lo = 0, hi = n;
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        if (__atomic_load_n(&maps[mid].end, __ATOMIC_RELAXED) <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* (lock held, sequence odd) */
static void map_insert(unsigned i, uintptr_t a, uintptr_t b, const struct ioc_map_info *m)
{
    unsigned n = atomic_load_explicit(&ioc_nmaps, memory_order_relaxed);
    if (n >= MAX_MAPS) {
        atomic_fetch_add_explicit(&map_lost, 1, memory_order_relaxed);
        return;
    }
    memmove(&maps[i + 1], &maps[i], (n - i) * sizeof *maps);
    maps[i] = (struct map_range){a, b, *m};
    atomic_store_explicit(&ioc_nmaps, n + 1, memory_order_relaxed);
}

/* Removes [a, b) from the ranges (lock held, sequence odd): the parts of
 * a range outside it stay (an munmap of the middle leaves two). */
static void map_cut(uintptr_t a, uintptr_t b)
{
    unsigned i = map_find(a, atomic_load_explicit(&ioc_nmaps, memory_order_relaxed));
    while (i < atomic_load_explicit(&ioc_nmaps, memory_order_relaxed) && maps[i].start < b) {
        struct map_range r = maps[i];
        unsigned n = atomic_load_explicit(&ioc_nmaps, memory_order_relaxed);
        memmove(&maps[i], &maps[i + 1], (n - i - 1) * sizeof *maps);
        atomic_store_explicit(&ioc_nmaps, n - 1, memory_order_relaxed);
        if (r.start < a)
            map_insert(i++, r.start, a, &r.m);
        if (r.end > b)
            map_insert(i++, b, r.end, &r.m);
    }
}

static int change_begin(void)
{
    if (!cutap_lock_bounded(&map_lock))
        return 0;
    atomic_fetch_add_explicit(&map_seq, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    return 1;
}

static void change_end(void)
{
    atomic_fetch_add_explicit(&map_seq, 1, memory_order_release);
    pthread_mutex_unlock(&map_lock);
}

void ioc_map_put(uintptr_t a, size_t len, const struct ioc_map_info *m)
{
    if (!len || !change_begin())
        return;
    uintptr_t b = page_end(a, len);
    map_cut(a, b);
    map_insert(map_find(a, atomic_load_explicit(&ioc_nmaps, memory_order_relaxed)), a, b, m);
    change_end();
}

int ioc_map_look(uintptr_t a, size_t len, struct ioc_map_info *m, uint64_t *left)
{
    uintptr_t b = page_end(a, len ? len : 1);
    for (int tries = 0; tries < 8; tries++) {
        unsigned s = atomic_load_explicit(&map_seq, memory_order_acquire);
        if (s & 1) {
            __builtin_ia32_pause();
            continue;
        }
        unsigned n = atomic_load_explicit(&ioc_nmaps, memory_order_relaxed);
        n = n < MAX_MAPS ? n : MAX_MAPS;
        int found = 0;
        uint64_t keep = 0;
        struct ioc_map_info first = {0, 0, 0};
        for (unsigned i = map_find(a, n); i < n; i++) {
            uintptr_t rs = __atomic_load_n(&maps[i].start, __ATOMIC_RELAXED);
            uintptr_t re = __atomic_load_n(&maps[i].end, __ATOMIC_RELAXED);
            if (rs >= b)
                break;
            if (!found) {
                first.dev = __atomic_load_n(&maps[i].m.dev, __ATOMIC_RELAXED);
                first.h = __atomic_load_n(&maps[i].m.h, __ATOMIC_RELAXED);
                first.cls = __atomic_load_n(&maps[i].m.cls, __ATOMIC_RELAXED);
            }
            found = 1;
            keep += (rs < a ? a - rs : 0) + (re > b ? re - b : 0);
        }
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&map_seq, memory_order_relaxed) != s)
            continue;
        if (found) {
            *m = first;
            if (left)
                *left = keep;
        }
        return found;
    }
    return 0;   /* changing all along: taken for no device mapping */
}

int ioc_map_take(uintptr_t a, size_t len, struct ioc_map_taken *t)
{
    if (!change_begin())
        return 0;
    uintptr_t b = page_end(a, len ? len : 1);
    unsigned n = atomic_load_explicit(&ioc_nmaps, memory_order_relaxed), k = 0;
    t->n = 0, t->left = 0;
    for (unsigned i = map_find(a, n); i < n && maps[i].start < b; i++, k++) {
        if (k == IOC_TAKEN_MAX) {
            change_end();
            return 0;   /* (too many to put back: nothing taken, nothing recorded) */
        }
        t->p[k].start = maps[i].start > a ? maps[i].start : a;
        t->p[k].end = maps[i].end < b ? maps[i].end : b;
        t->p[k].m = maps[i].m;
        t->left += (maps[i].start < a ? a - maps[i].start : 0) + (maps[i].end > b ? maps[i].end - b : 0);
    }
    if (k) {
        t->m = t->p[0].m;
        t->n = k;
        map_cut(a, b);
    }
    change_end();
    return k != 0;
}

void ioc_map_untake(const struct ioc_map_taken *t)
{
    if (!t->n || !change_begin())
        return;
    for (unsigned k = 0; k < t->n; k++) {
        map_cut(t->p[k].start, t->p[k].end);
        map_insert(map_find(t->p[k].start, atomic_load_explicit(&ioc_nmaps, memory_order_relaxed)), t->p[k].start,
                   t->p[k].end, &t->p[k].m);
    }
    change_end();
}

void ioc_map_gone(uintptr_t a, size_t len)
{
    if (!len || !change_begin())
        return;
    map_cut(a, page_end(a, len));
    change_end();
}
