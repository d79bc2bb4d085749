/* What every part of the libraries may use (front, core, record, resolve,
 * the generated code): symbol visibility, branch hints, locks made anew in
 * a forked child. Nothing but libc. */
#ifndef CUTAP_BASE_H
#define CUTAP_BASE_H

#include <pthread.h>
#include <sched.h>
#include <time.h>

/* Exported from the library (everything else is -fvisibility=hidden). */
#define CUTAP_EXPORT __attribute__((visibility("default")))
#define CUTAP_LIKELY(x) __builtin_expect(!!(x), 1)
#define CUTAP_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* A forked child has one thread: a lock another thread of the parent held
 * at fork would stay locked for good, so each lock is made anew in the
 * child (what it protects is only ever extended, never left half-written
 * in a way the child's next use would trip over). */
#define CUTAP_FORK_SAFE(lock)                                                      \
    static void lock##_child(void) { pthread_mutex_init(&lock, NULL); }           \
    __attribute__((constructor)) static void lock##_atfork(void)                  \
    {                                                                              \
        pthread_atfork(NULL, NULL, lock##_child);                                  \
    }

/* pthread_mutex_trylock a bounded number of times (spinning, yielding,
 * then sleeping 50 us at a time, 2 ms in all: a holder preempted on a
 * loaded machine gets its CPU back; 16 yields alone gave up, in one run of
 * the test suite of four, with four threads mapping at once, and left
 * mappings unnamed): 1 when taken; 0 when it could not be had (a signal
 * handler on the thread that holds it, a holder that never came back), and
 * the caller goes on without what the lock protects, rather than wait. */
static inline int cutap_lock_bounded(pthread_mutex_t *lock)
{
    for (int i = 0; i < 104; i++) {
        if (!pthread_mutex_trylock(lock))
            return 1;
        if (i < 48)
            __builtin_ia32_pause();
        else if (i < 64)
            sched_yield();
        else {
            struct timespec ts = {0, 50000};
            nanosleep(&ts, NULL);
        }
    }
    return 0;
}

/* glibc's struct dl_find_object (2.35 and later, <dlfcn.h>), declared
 * here so that cutap builds against an older glibc too: _dl_find_object
 * is looked up at run time (absent before 2.35: dladdr is used). */
struct link_map;
struct cutap_dl_found {
    unsigned long long flags;
    void *map_start, *map_end;
    struct link_map *link_map;
    void *eh_frame;
    unsigned long long reserved[7];
};
typedef int (*cutap_find_object_fn)(void *, struct cutap_dl_found *);

#endif
