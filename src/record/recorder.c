/* The recorder's life cycle and capture control (writer_internal.h):
 * cutap_record_start, the child after a fork, freezing, the ranges that
 * turn recording on and off. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "writer_internal.h"
#include "stat_sample.h"

/* Capture control (capture.c decides; record_internal.h). */
_Atomic uint32_t cutap_cap_block;
_Atomic int rec_cap_on = 1;           /* no reason blocks recording */
static int fast_rec;                   /* the generated fast paths serve the recorder */
static pthread_mutex_t cap_lock = PTHREAD_MUTEX_INITIALIZER;
static int client = -1;
static uint32_t ranges_entered;   /* recording turned on (header capture_ranges) */
/* cutap_no_kernel_names (cutap_hotline, clock.c): CUTAP_KERNEL_NAMES=0, the
 * recorder makes no driver call of its own */
/* Counting mode: the mean duration, in clock units, from which every call
 * of an id is timed (1 us; set with the file's calibration pair, before
 * any counter exists), and CUTAP_STAT_TIMING=all (every call timed). */
uint64_t cutap_slow_ticks = 1000;
int rec_time_all;
/* Tests: CUTAP_STAT_SEED=N starts every thread's countdowns from N, and
 * CUTAP_STAT_SLOW_NS=N puts the slow mean at N ns instead of 1 us, so two
 * runs of a program (given a large N) time the same calls. */
int rec_fixed_seed;
uint64_t rec_seed, rec_slow_ns = 1000;
/* The countdown: uniform in 1..span, mean (span + 1) / 2 calls
 * (CUTAP_STAT_SAMPLE; default 128: a sample's two clock reads and its
 * bookkeeping, amortised, cost a counted call 1.2 ns more at a mean of 32
 * on the H100, docs/BENCHMARKS.md) */
uint32_t rec_sample_span = 255;

/* --- capture control ----------------------------------------------- */

void cutap_capture_update(uint32_t set, uint32_t clear)
{
    if (rec_file.counts)
        return;
    sigset_t sigs;
    int blocked = rec_sig_block(&sigs);
    pthread_mutex_lock(&cap_lock);
    uint32_t old = atomic_load(&cutap_cap_block);
    uint32_t now = ((old | set) & ~clear) | (old & CB_FROZEN);
    atomic_store(&cutap_cap_block, now);
    int on = !now, was = atomic_load(&rec_cap_on);
    if (on != was) {
        atomic_store(&rec_cap_on, on);
        if (on) {
            ranges_entered++;
            if (rec_file.hdr)
                __atomic_store_n(&rec_file.hdr->capture_ranges, ranges_entered, __ATOMIC_RELAXED);
        }
        /* every id the recorder has gets the fast path of the new mode:
         * recording costs nothing more than before, counting what
         * counting costs */
        if (fast_rec) {
            __atomic_store_n(&cutap_fast_kind, on ? 1 : 2, __ATOMIC_RELEASE);
            uint8_t bit = client >= 0 ? (uint8_t)(1u << client) : 0;
            for (uint32_t id = 0; bit && id < CUTAP_MAX_IDS; id++)
                if (atomic_load_explicit(&cutap_mask[id], memory_order_relaxed) & bit)
                    cutap_refresh_id(id);
        }
    }
    pthread_mutex_unlock(&cap_lock);
    rec_sig_restore(blocked, &sigs);
}

static struct {
    _Atomic int done;
    uint32_t reason, id;
    uint64_t result, clock;
} FZ;

/* The freeze fields, once the file exists. */
void rec_freeze_write(struct cutap_file_header *h)
{
    if (!h || !atomic_load(&FZ.done))
        return;
    h->freeze_id = FZ.id;
    h->freeze_result = FZ.result;
    h->freeze_reason = FZ.reason;
    __atomic_store_n(&h->freeze_clock, FZ.clock ? FZ.clock : 1, __ATOMIC_RELEASE);
}

void cutap_rec_freeze(uint32_t reason, uint32_t id, uint64_t result)
{
    if (rec_file.counts)
        return;
    int expect = 0;
    if (!atomic_compare_exchange_strong(&FZ.done, &expect, 1))
        return;
    FZ.reason = reason;
    FZ.id = id;
    FZ.result = result;
    FZ.clock = cutap_rec_clock();
    rec_freeze_write(rec_file.hdr);
    cutap_capture_update(CB_FROZEN, 0);
}

uint32_t rec_capture_ranges(void)
{
    return ranges_entered;
}

/* --- life cycle ----------------------------------------------------- */

/* The process is about to enter seccomp strict mode (src/front/forbid.c):
 * said now, while a system call is still allowed; nothing is recorded
 * after it. */
void cutap_rec_stop_strict(void)
{
    if (client < 0)
        return;
    rec_stop(CUTAP_STOP_OTHER, EPERM,
         "the process entered seccomp strict mode (no system call but read, write and exit): nothing more is recorded");
}

/* A forked child writes its own file (each part of the recorder starts
 * again); a frozen parent's child is frozen too, its own capture starts
 * again. */
static void child_after_fork(void)
{
    rec_file_after_fork();
    rec_meta_after_fork();
    rec_calls_after_fork();
    rec_chunks_after_fork();
    rec_ring_after_fork();
    rec_gpu_after_fork();
    pthread_mutex_init(&cap_lock, NULL);
    ranges_entered = atomic_load(&rec_cap_on) ? 1 : 0;
    if (atomic_load(&FZ.done))
        FZ.clock = cutap_rec_clock();
    cutap_capture_child();
}

void cutap_record_start(const char *dir, int counts, const char *filter)
{
    if (strlen(dir) >= sizeof rec_file.dir) {
        cutap_warn("trace directory name too long");
        return;
    }
    /* Made absolute now, and passed on so: the process or its children
     * may change directory before their first call. */
    char cwd[PATH_MAX];
    if (dir[0] == '/') {
        snprintf(rec_file.dir, sizeof rec_file.dir, "%s", dir);
    } else if ((errno = 0, getcwd(cwd, sizeof cwd)) && (errno = ENAMETOOLONG, strlen(cwd) + strlen(dir) + 2 <= sizeof rec_file.dir)) {
        size_t a = strlen(cwd), b = strlen(dir);
        memcpy(rec_file.dir, cwd, a);
        rec_file.dir[a] = '/';
        memcpy(rec_file.dir + a + 1, dir, b + 1);
        setenv(counts ? "CUTAP_COUNT" : "CUTAP_TRACE", rec_file.dir, 1);
    } else {
        /* Kept relative, it would name another directory once the
         * program changes directory: nothing is recorded. */
        cutap_warn("trace directory %s cannot be made absolute (%s); nothing is recorded", dir, strerror(errno));
        rec_file.dir[0] = 0;
        return;
    }
    rec_file.counts = counts;
    if (counts) {
        /* which calls are timed: sampled (the default) or all */
        const char *tm = getenv("CUTAP_STAT_TIMING");
        if (tm && *tm && strcmp(tm, "all") && strcmp(tm, "sample")) {
            cutap_warn("invalid CUTAP_STAT_TIMING '%s': takes all or sample; nothing is recorded", tm);
            return;
        }
        rec_time_all = tm && !strcmp(tm, "all");
        const char *sd = getenv("CUTAP_STAT_SEED"), *sn = getenv("CUTAP_STAT_SLOW_NS");
        if ((rec_fixed_seed = sd && *sd))
            rec_seed = strtoull(sd, NULL, 0);
        if (sn && *sn)
            rec_slow_ns = strtoull(sn, NULL, 0);
        /* one call in MEAN timed on average (2 to 4096; default 128) */
        const char *sm = getenv("CUTAP_STAT_SAMPLE");
        unsigned mean;
        if (sm && *sm) {
            if (cutap_stat_sample_parse(sm, &mean)) {
                cutap_warn("invalid CUTAP_STAT_SAMPLE '%s': takes a mean from 2 to 4096 calls; nothing is recorded", sm);
                return;
            }
            rec_sample_span = 2 * mean - 1;
        }
    }
    rec_pf_config();
    const char *kn = getenv("CUTAP_KERNEL_NAMES");
    cutap_no_kernel_names = kn && !strcmp(kn, "0");
    cutap_rec_clock_choose();
    if (!counts && rec_ring_setup())
        return;
    /* capture control's clients come first (their pre callbacks run
     * before the recorder's, their post callbacks after) */
    int block = counts ? 0 : cutap_capture_start();
    if (block < 0)
        return;
    atomic_store(&cutap_cap_block, (uint32_t)block);
    atomic_store(&rec_cap_on, !block);
    ranges_entered = !block && cutap_capture_modes() ? 1 : 0;
    client = rec_register(counts);
    cutap_recorder_client = client;
    if (client < 0)
        return;
    /* The fused path (and the generated fast paths) serve this client:
     * said before its ids are enabled, so that each id's refresh can hand
     * out its fast path. Tests compare with the callbacks only
     * (CUTAP_NO_FUSED=1) and with the fused path in dispatch only
     * (CUTAP_NO_FASTPATH=1). */
    const char *nf = getenv("CUTAP_NO_FUSED"), *nfp = getenv("CUTAP_NO_FASTPATH");
    if (!nf || strcmp(nf, "1")) {
        atomic_store(&cutap_fast_mask, (uint8_t)(1u << client));
        if (!nfp || strcmp(nfp, "1")) {
            fast_rec = !counts;
            __atomic_store_n(&cutap_fast_kind, counts || block ? 2 : 1, __ATOMIC_RELEASE);
        }
    }
    if (cutap_filter_apply(client, filter))
        return;
    if (!counts) {
        rec_stack_setup();
        rec_gpu_setup();
    }
    rec_env_setup(counts);
    pthread_atfork(NULL, NULL, child_after_fork);
    atexit(rec_file_at_exit);
    rec_threads_start();
    rec_env_drain();
    /* From here on, warnings go to the registry of the directory (made
     * when missing), never to the program's stderr. */
    snprintf(cutap_rec_dir, PATH_MAX, "%s", rec_file.dir);
    cutap_warn_quiet = 1;
}

char cutap_rec_dir[PATH_MAX];
