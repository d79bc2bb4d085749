/* Capture control and freezing (issue #16): which calls the recorder
 * records, the rest being counted.
 *
 *   CUTAP_CAPTURE_T0=NS        CLOCK_MONOTONIC when cutap trace started the
 *                              command (every process of it measures from it)
 *   CUTAP_CAPTURE_DELAY=NS     record from T0 + DELAY (--delay)
 *   CUTAP_CAPTURE_DURATION=NS  until T0 + DELAY + DURATION (--duration)
 *   CUTAP_CAPTURE_RANGE=cudaProfilerApi | nvtx:NAME
 *                              record only between cuProfilerStart (or
 *                              cudaProfilerStart) and the matching Stop, or
 *                              while a thread is inside an NVTX range whose
 *                              message is NAME (push/pop, start/end, any
 *                              domain); repeatable: every such range
 *   CUTAP_UNTIL_ERROR=FILTER   the first failing call FILTER selects freezes
 *                              the process (its ring is kept as it was)
 *
 * All of them work by turning recording on and off for the whole process
 * (cutap_capture_update): in between, every call is counted, by the fast
 * paths of counting mode. The calls that open and close a range are
 * recorded themselves: the clients here run their pre callbacks before the
 * recorder's and their post callbacks after. Only the ids they watch lose
 * their fast path (the profiler calls, NVTX range calls, and what
 * CUTAP_UNTIL_ERROR selects). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "cutap_format.h"
#include "record_internal.h"
#include "cutap_cuda_abi.h"

static uint32_t modes;                 /* CUTAP_CAPTURE_* */
static uint64_t win_on, win_off;       /* CLOCK_MONOTONIC ns; win_off 0: no end */
static _Atomic int timer_state;        /* 0 none made, 1 made */
static char nvtx_name[256];
static int range_client = -1, error_client = -1;

/* --- window ------------------------------------------------------------ */


static void sleep_until(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

static void *timer_main(void *arg)
{
    (void)arg;
    prctl(PR_SET_NAME, "cutap-capture");
    if (cutap_now_ns() < win_on) {
        sleep_until(win_on);
        cutap_capture_update(0, CB_BEFORE);
    }
    if (win_off) {
        sleep_until(win_off);
        cutap_capture_update(CB_AFTER, 0);
    }
    return NULL;
}

/* The window's timer: a thread of the traced process made at its first
 * recorded call (a process that never calls CUDA gets none), every signal
 * blocked, sleeping until each edge. */
static void timer_start(void)
{
    uint64_t now = cutap_now_ns();
    if (!(modes & CUTAP_CAPTURE_WINDOW) || (win_off && now >= win_off) || (now >= win_on && !win_off))
        return;
    int expect = 0;
    if (!atomic_compare_exchange_strong(&timer_state, &expect, 1))
        return;
    pthread_attr_t a;
    pthread_t th;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int ok = !pthread_attr_init(&a) && !pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED) &&
             !pthread_create(&th, &a, timer_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&a);
    if (!ok)
        cutap_warn("cannot start the capture window's timer: the window's edges are missed");
}

void cutap_capture_file_made(struct cutap_file_header *h)
{
    (void)h;
    timer_start();
}

uint32_t cutap_capture_modes(void)
{
    return modes;
}

static void ranges_child(void);
void cutap_capture_child(void)
{
    atomic_store(&timer_state, 0);   /* the parent's timer thread is not in the child */
    ranges_child();
}

/* --- ranges ------------------------------------------------------------ */

/* Threads inside a range (profiler: 0 or 1). Recording is on while > 0. */
static _Atomic int active;
static pthread_mutex_t range_lock = PTHREAD_MUTEX_INITIALIZER;
CUTAP_FORK_SAFE(range_lock)

static void range_enter(void)
{
    sigset_t old;
    int blocked = rec_sig_block(&old);
    pthread_mutex_lock(&range_lock);
    if (atomic_fetch_add(&active, 1) == 0)
        cutap_capture_update(0, CB_OUTSIDE);
    pthread_mutex_unlock(&range_lock);
    rec_sig_restore(blocked, &old);
}

static void range_leave(void)
{
    sigset_t old;
    int blocked = rec_sig_block(&old);
    pthread_mutex_lock(&range_lock);
    if (atomic_load(&active) > 0 && atomic_fetch_sub(&active, 1) == 1)
        cutap_capture_update(CB_OUTSIDE, 0);
    pthread_mutex_unlock(&range_lock);
    rec_sig_restore(blocked, &old);
}

/* NVTX: per thread, the push range of that name it is inside (the
 * outermost: a nested one of the same name does nothing), by domain and
 * level; RangeStart ids of that name and registered strings with that
 * text, process-wide (small tables: a program has few). */
#define nv_push (cutap_tls.nv_push)
#define NV_TAB 64
static _Atomic uint64_t nv_started[NV_TAB];     /* range ids + 0 */
static _Atomic uint64_t nv_strings[NV_TAB];     /* registered string handles */
#define nv_start_pending (cutap_tls.nv_start_pending)

/* A forked child has only the forking thread: the ranges other threads
 * were inside are not its own. Recording outside them goes on as the
 * forking thread left it (its own push range, if any, is kept). */
static void ranges_child(void)
{
    for (unsigned i = 0; i < NV_TAB; i++)
        atomic_store(&nv_started[i], 0);
    int mine = nv_push.armed && !nv_push.pending;
    atomic_store(&active, mine);
    if (modes & (CUTAP_CAPTURE_PROFILER | CUTAP_CAPTURE_NVTX))
        cutap_capture_update(mine ? 0 : CB_OUTSIDE, mine ? CB_OUTSIDE : 0);
}

static int tab_has(_Atomic uint64_t *tab, uint64_t v)
{
    for (unsigned i = 0; v && i < NV_TAB; i++)
        if (atomic_load_explicit(&tab[i], memory_order_relaxed) == v)
            return 1;
    return 0;
}

static int tab_put(_Atomic uint64_t *tab, uint64_t v)
{
    for (unsigned i = 0; v && i < NV_TAB; i++) {
        uint64_t z = 0;
        if (atomic_compare_exchange_strong(&tab[i], &z, v))
            return 1;
    }
    return 0;
}

static int tab_take(_Atomic uint64_t *tab, uint64_t v)
{
    for (unsigned i = 0; v && i < NV_TAB; i++) {
        uint64_t x = v;
        if (atomic_compare_exchange_strong(&tab[i], &x, 0))
            return 1;
    }
    return 0;
}

/* Whether a message argument is NAME: an ASCII string (an A call), or an
 * event attributes struct whose message is ASCII NAME or a string
 * registered with that text. The program's own memory: read as the NVTX
 * implementation would. */
static int msg_is(const char *s)
{
    return s && !strncmp(s, nvtx_name, sizeof nvtx_name);
}


static int attr_is(uint64_t a)
{
    const struct cutap_nvtx_attr *at = (const struct cutap_nvtx_attr *)(uintptr_t)a;
    if (!at || at->size < sizeof *at)
        return 0;
    if (at->messageType == CUTAP_NVTX_MESSAGE_TYPE_ASCII)
        return msg_is(at->message);
    if (at->messageType == CUTAP_NVTX_MESSAGE_TYPE_REGISTERED)
        return tab_has(nv_strings, (uint64_t)(uintptr_t)at->message);
    return 0;
}

static int range_pre(cutap_call_t *call, void *ctx, uint64_t *scratch)
{
    (void)ctx;
    (void)scratch;
    uint32_t id = call->id;
    const uint64_t *a = call->args;
    if (id == CUTAP_ID_cuProfilerStart || id == CUTAP_ID_cudaProfilerStart) {
        if (!atomic_load(&active))
            range_enter();
        return CUTAP_PROCEED;
    }
    int push = id == CUTAP_ID_nvtxRangePushA ? msg_is((const char *)(uintptr_t)a[0])
               : id == CUTAP_ID_nvtxDomainRangePushEx ? attr_is(a[1])
                                                      : -1;
    if (push >= 0) {
        if (push && !nv_push.armed) {
            nv_push.armed = nv_push.pending = 1;
            nv_push.domain = id == CUTAP_ID_nvtxDomainRangePushEx ? a[0] : 0;
            range_enter();
        }
        return CUTAP_PROCEED;
    }
    int start = id == CUTAP_ID_nvtxRangeStartA ? msg_is((const char *)(uintptr_t)a[0])
                : id == CUTAP_ID_nvtxDomainRangeStartEx ? attr_is(a[1])
                                                        : 0;
    if (start) {
        nv_start_pending = 1;
        range_enter();
    }
    return CUTAP_PROCEED;
}

static void range_post(cutap_call_t *call, void *ctx, uint64_t *scratch)
{
    (void)ctx;
    (void)scratch;
    uint32_t id = call->id;
    const uint64_t *a = call->args;
    uint64_t res = call->result;
    if (id == CUTAP_ID_cuProfilerStop || id == CUTAP_ID_cudaProfilerStop) {
        if (atomic_load(&active))
            range_leave();
    } else if (id == CUTAP_ID_nvtxRangePushA || id == CUTAP_ID_nvtxDomainRangePushEx) {
        if (nv_push.pending) {
            nv_push.pending = 0;
            nv_push.level = (int32_t)res;
            if (nv_push.level < 0) {   /* refused: no range was opened */
                nv_push.armed = 0;
                range_leave();
            }
        }
    } else if (id == CUTAP_ID_nvtxRangePop || id == CUTAP_ID_nvtxDomainRangePop) {
        uint64_t dom = id == CUTAP_ID_nvtxDomainRangePop ? a[0] : 0;
        if (nv_push.armed && !nv_push.pending && dom == nv_push.domain && (int32_t)res == nv_push.level) {
            nv_push.armed = 0;
            range_leave();
        }
    } else if (id == CUTAP_ID_nvtxRangeStartA || id == CUTAP_ID_nvtxDomainRangeStartEx) {
        if (nv_start_pending) {
            nv_start_pending = 0;
            if (!tab_put(nv_started, res + 1))
                range_leave();   /* too many open at once: this one is not followed */
        }
    } else if (id == CUTAP_ID_nvtxRangeEnd || id == CUTAP_ID_nvtxDomainRangeEnd) {
        uint64_t rid = id == CUTAP_ID_nvtxDomainRangeEnd ? a[1] : a[0];
        if (tab_take(nv_started, rid + 1))
            range_leave();
    } else if (id == CUTAP_ID_nvtxDomainRegisterStringA) {
        if (res && msg_is((const char *)(uintptr_t)a[1]))
            tab_put(nv_strings, res);
    }
}

/* --- until error ------------------------------------------------------- */

static void error_post(cutap_call_t *call, void *ctx, uint64_t *scratch)
{
    (void)ctx;
    (void)scratch;
    if (!(call->flags & CUTAP_CALL_SKIPPED) && cutap_call_is_error(call))
        cutap_rec_freeze(CUTAP_FREEZE_ERROR, call->id, call->result);
}

/* --- settings ---------------------------------------------------------- */

static int env_u64(const char *name, uint64_t *v)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return 0;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno || *end) {
        cutap_warn("invalid %s '%s': takes nanoseconds; nothing is recorded", name, s);
        return -1;
    }
    *v = x;
    return 1;
}

int cutap_capture_start(void)
{
    uint64_t t0 = 0, delay = 0, duration = 0;
    int a = env_u64("CUTAP_CAPTURE_T0", &t0), b = env_u64("CUTAP_CAPTURE_DELAY", &delay),
        c = env_u64("CUTAP_CAPTURE_DURATION", &duration);
    if (a < 0 || b < 0 || c < 0)
        return -1;
    int block = 0;
    if (b > 0 || c > 0) {
        if (!t0)
            t0 = cutap_now_ns();   /* (CUTAP_TRACE users without cutap trace: from this process's start) */
        modes |= CUTAP_CAPTURE_WINDOW;
        win_on = t0 + delay;
        win_off = c > 0 ? win_on + duration : 0;
        uint64_t now = cutap_now_ns();
        if (now < win_on)
            block |= CB_BEFORE;
        else if (win_off && now >= win_off)
            block |= CB_AFTER;
    }
    const char *r = getenv("CUTAP_CAPTURE_RANGE");
    if (r && *r) {
        static const uint32_t prof_ids[] = {CUTAP_ID_cuProfilerStart, CUTAP_ID_cuProfilerStop,
                                            CUTAP_ID_cudaProfilerStart, CUTAP_ID_cudaProfilerStop};
        static const uint32_t nvtx_ids[] = {CUTAP_ID_nvtxRangePushA,      CUTAP_ID_nvtxDomainRangePushEx,
                                            CUTAP_ID_nvtxRangePop,        CUTAP_ID_nvtxDomainRangePop,
                                            CUTAP_ID_nvtxRangeStartA,     CUTAP_ID_nvtxDomainRangeStartEx,
                                            CUTAP_ID_nvtxRangeEnd,        CUTAP_ID_nvtxDomainRangeEnd,
                                            CUTAP_ID_nvtxDomainRegisterStringA};
        const uint32_t *ids;
        unsigned nids;
        if (!strcmp(r, "cudaProfilerApi")) {
            modes |= CUTAP_CAPTURE_PROFILER;
            ids = prof_ids;
            nids = sizeof prof_ids / sizeof *prof_ids;
        } else if (!strncmp(r, "nvtx:", 5) && r[5] && strlen(r + 5) < sizeof nvtx_name) {
            modes |= CUTAP_CAPTURE_NVTX;
            strcpy(nvtx_name, r + 5);
            ids = nvtx_ids;
            nids = sizeof nvtx_ids / sizeof *nvtx_ids;
        } else {
            cutap_warn("invalid CUTAP_CAPTURE_RANGE '%s': takes cudaProfilerApi or nvtx:NAME; nothing is recorded", r);
            return -1;
        }
        range_client = cutap_register("capture-range", range_pre, range_post, NULL);
        if (range_client < 0)
            return -1;
        for (unsigned i = 0; i < nids; i++)
            cutap_enable(range_client, ids[i], 1);
        block |= CB_OUTSIDE;
    }
    const char *ue = getenv("CUTAP_UNTIL_ERROR");
    if (ue && *ue) {
        error_client = cutap_register("until-error", NULL, error_post, NULL);
        if (error_client < 0 || cutap_filter_apply(error_client, ue))
            return -1;
    }
    return block;
}
