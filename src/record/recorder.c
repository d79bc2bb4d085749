/* The recorder: a client of the callback API that writes the binary trace
 * of include/cutap_format.h (docs/FORMAT.md).
 *
 *   CUTAP_TRACE=DIR   one record per call (start, end, result, argument
 *                     words, captured outputs and strings)
 *   CUTAP_COUNT=DIR   counters only: per thread and id, calls, errors,
 *                     timed calls and their total, min and max time (what
 *                     `cutap stat` reads); not every call is timed (see
 *                     "counting mode" below; CUTAP_STAT_TIMING=all: every
 *                     call is)
 *   CUTAP_FILTER=EXPR the ids to record (see filter.c); others cost only
 *                     the pass-through
 *
 * Each process writes DIR/<host>.<pid>[.<n>].cutap. The file is mapped and
 * written in place: what a thread completed is in the page cache the moment
 * it is written, so SIGKILL, abort or _exit lose nothing completed. Each
 * thread owns its chunk: the hot path takes no lock and makes no system
 * call; a new chunk costs one atomic add, a new segment (256 KiB to 64 MiB)
 * one fallocate (or zeros written) and one mmap under a lock: every page
 * is backed before it is mapped, so a full disk stops recording (the
 * header says why, and counts the calls lost) and never raises SIGBUS.
 * When a thread ends, the rest of its chunk passes to the next new thread
 * (a THREAD meta record marks where); counting mode keeps one entry per
 * thread and id in shared COUNTER_ENTRIES chunks. Nothing is decoded
 * here. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cutap_format.h"
#include "cutap_internal.h"
#include "fd_internal.h"
#include "front_internal.h"
#include "record_internal.h"
#include "filter_expr.h"
#include "inject_spec.h"

#define CHUNK_SIZE (256u * 1024)
/* The file grows by segments of 256 KiB, 512 KiB, 1, 2 … 64 MiB: a
 * process with a handful of calls costs 260 KiB of disk, a long run few
 * mappings. */
#define SEG_MIN_CHUNKS 1u
#define SEG_MAX_CHUNKS 256u
#define MAX_SEGS 1100                       /* > 64 GiB per process (segments 8 on: 64 MiB) */
#define ENTRIES_PER_CHUNK ((F.csize - CUTAP_SLOT) / sizeof(struct cutap_counter_entry))
/* A thread's id -> counter table (counting mode), its own mapping */
#define TAB_BYTES ((size_t)CUTAP_MAX_IDS * sizeof(struct cutap_counter *))
/* The rest of an exited thread's record chunk is passed on when it has at
 * least this many slots; at most TAILS_MAX such tails wait for a thread. */
#define TAIL_MIN 16
#define TAILS_MAX 4096
#define MAX_REC_SLOTS 64                    /* 4 KiB: longest record */

int cutap_rec_tsc;   /* 1: record clock is the TSC */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* The process's trace file. Replaced in a forked child. */
static struct {
    struct cutap_fd file;         /* kept above the program's numbers, checked before each use */
    char path[PATH_MAX + 128];    /* to open it again if the program closed our descriptor */
    int counts;
    uint32_t csize;               /* chunk size: CHUNK_SIZE, or the ring's */
    struct cutap_file_header *hdr;
    _Atomic uint64_t next_chunk;
    char *_Atomic seg[MAX_SEGS];
    _Atomic int dead;             /* an error stopped recording */
    _Atomic int opened;           /* the file exists (made by the first record) */
    char dir[PATH_MAX];
} F = {.file = {.fd = -1}, .csize = CHUNK_SIZE};
static int client = -1;

/* The flight recorder (CUTAP_RING=BYTES, cutap trace --ring): record
 * chunks 0 .. n-1 of the file are a ring, mapped once; a thread that needs
 * a chunk takes the next one after the cursor that no thread holds, and
 * its old records are counted (header overwritten_calls) and cleared. A
 * thread holds its current chunk, and the chunks that hold a record of a
 * call it is still inside (its end is still to be written there): the
 * recorder never reuses them. Names, layers, kernels and counters go to
 * chunks after the ring (META, COUNTER_ENTRIES), which grow as in a plain
 * trace: nothing a record refers to is ever overwritten. The helper thread
 * clears the next RING_AHEAD chunks ahead of the cursor, off the program's
 * threads. */
#define RING_AHEAD 2
enum { RS_CLEAN = 0, RS_DIRTY = 1, RS_HELD = 2, RS_PREP = 3 };
static struct {
    uint32_t n;                   /* ring chunks; 0: no ring */
    char *base;                   /* the ring's mapping */
    _Atomic uint8_t *state;       /* RS_* per chunk */
    uint32_t *next_pin;           /* a thread's held chunks, chained (index + 1) */
    _Atomic uint64_t cursor;      /* takes so far: the next chunk is cursor % n */
    _Atomic uint64_t takes;
    _Atomic uint64_t populated;   /* first lap: chunks below this one are populated */
    _Atomic int warned;
} R;

/* Capture control (capture.c decides; record_internal.h). */
_Atomic uint32_t cutap_cap_block;
static _Atomic int cap_on = 1;         /* no reason blocks recording */
static int fast_rec;                   /* the generated fast paths serve the recorder */
static pthread_mutex_t cap_lock = PTHREAD_MUTEX_INITIALIZER;
static int client;
static uint32_t ranges_entered;   /* recording turned on (header capture_ranges) */
static void freeze_write(struct cutap_file_header *h);
static pthread_mutex_t grow_lock = PTHREAD_MUTEX_INITIALIZER;

/* Page population off the calling thread (trace mode). A record lands in
 * a page-cache page the kernel must allocate, zero and map the first time
 * it is written: on the dev VM 12 ns per 64-byte record even when a whole
 * chunk is populated at once (bench/pages: 784 ns a page), against 3 ns to
 * write the record into a page populated already. So a helper thread
 * (made at the second record chunk a process takes, every signal blocked,
 * named cutap-pages; CUTAP_PREFAULT=0: none) keeps the next PF_AHEAD
 * chunks of the file populated, within the segments mapped already (the
 * file grows only as chunks are taken), and a thread taking a chunk
 * populates it itself only when the helper did not. The kernel's work is
 * the same; it runs on another CPU instead of inside the traced program's
 * calls. */
#define PF_AHEAD 4
static struct {
    _Atomic uint64_t from;        /* chunks from this one ... */
    _Atomic uint64_t done;        /* ... to below this one are populated */
    _Atomic uint32_t kick;        /* futex word: bumped to wake the helper */
    _Atomic int state;            /* 0 not made, 1 running, 2 being made, -1 none (off, failed, stopped) */
    int off;                      /* CUTAP_PREFAULT=0 */
} PF;
int cutap_no_kernel_names;   /* CUTAP_KERNEL_NAMES=0: the recorder makes no driver call of its own */
/* Counting mode: the mean duration, in clock units, from which every call
 * of an id is timed (1 us; set with the file's calibration pair, before
 * any counter exists), and CUTAP_STAT_TIMING=all (every call timed). */
uint64_t cutap_slow_ticks = 1000;
static int time_all;
/* Tests: CUTAP_STAT_SEED=N starts every thread's countdowns from N, and
 * CUTAP_STAT_SLOW_NS=N puts the slow mean at N ns instead of 1 us, so two
 * runs of a program (given a large N) time the same calls. */
static int fixed_seed;
static uint64_t seed, slow_ns = 1000;

/* Per thread: the room left in its record chunk, its counters (counting
 * mode: id -> counter of a COUNTER_ENTRIES entry), and the sampling
 * countdown of counting mode with its generator. */
/* (cutap_rt: the thread's recorder state, a member of cutap_tls) */

/* Ids and kernel handles already named in this file. */
_Atomic uint8_t cutap_named[CUTAP_MAX_IDS];
/* Layers whose binding (CUTAP_META_LAYER) is written in this file. */
static _Atomic uint8_t layer_noted[CUTAP_LAYER_COUNT];
#define FUNC_SLOTS 65536   /* 512 KiB, touched only where used */
static _Atomic uint64_t funcs[FUNC_SLOTS];
static _Atomic int funcs_full;

/* Thread exit (a key destructor, registered when a thread first records):
 * the rest of its record chunk waits here for a new thread (which marks
 * it with a THREAD meta record), its counter table is unmapped. */
static pthread_key_t exit_key;
static int have_exit_key;
static struct {
    struct cutap_rec_call *pos, *end;
} tails[TAILS_MAX];
static unsigned ntails;
static pthread_mutex_t tail_lock = PTHREAD_MUTEX_INITIALIZER;
/* Counting mode: entries are cut from the current COUNTER_ENTRIES chunk,
 * shared by every thread, under a lock (once per thread and id). */
static char *ent_chunk;
static unsigned ent_next;
static pthread_mutex_t ent_lock = PTHREAD_MUTEX_INITIALIZER;

/* Calls not recorded while the process has no trace file (it could not be
 * made); with a file, the header's lost_calls counts them. */
static _Atomic uint64_t lost_nofile;

/* Recording stops for this process (the program goes on): the header says
 * why and when, cutap's registry too, and every later call is counted as
 * lost. Called on failure paths only. */
static void stop(int reason, int err, const char *what)
{
    int expect = 0;
    if (!atomic_compare_exchange_strong(&F.dead, &expect, 1))
        return;
    struct cutap_file_header *h = F.hdr;
    if (h) {
        h->stop_errno = err;
        h->stop_reason = (uint32_t)reason;
        h->stop_clock = cutap_rec_clock();
        __atomic_or_fetch(&h->flags, CUTAP_FILE_STOPPED, __ATOMIC_RELEASE);
    }
    cutap_reg_stop(reason, err);
    cutap_warn("recording stopped: %s: %s", what, strerror(err));
}

/* A call that could not be recorded. Returns NULL for rec_begin. */
static __attribute__((noinline, cold)) void *lost_call(void)
{
    struct cutap_file_header *h = F.hdr;
    if (h)
        __atomic_fetch_add(&h->lost_calls, 1, __ATOMIC_RELAXED);
    else
        atomic_fetch_add_explicit(&lost_nofile, 1, memory_order_relaxed);
    return NULL;
}

/* --- file ------------------------------------------------------------ */

static void clock_pair(uint64_t *clk, uint64_t *mono)
{
    *clk = cutap_rec_clock();
    *mono = cutap_now_ns();
}

/* A pair whose two reads are close: the clock read between two monotonic
 * reads at most 2 us apart (the tightest of up to 16 tries), the monotonic
 * time their middle. The header's calibration pairs give the tick rate
 * (and counting mode's 1 us threshold) before any other pair exists: a
 * thread preempted between the two reads of a plain pair made the rate
 * wrong by the length of the preemption (milliseconds on a loaded host,
 * every call then timed). */
static void clock_pair_tight(uint64_t *clk, uint64_t *mono)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 16 && best > 2000; i++) {
        uint64_t m0 = cutap_now_ns(), c = cutap_rec_clock(), m1 = cutap_now_ns();
        if (m1 - m0 < best) {
            best = m1 - m0;
            *clk = c;
            *mono = m0 + (m1 - m0) / 2;
        }
    }
}

static int env_int(const char *const *names)
{
    for (; *names; names++) {
        const char *v = getenv(*names);
        char *end;
        if (v && *v) {
            long x = strtol(v, &end, 10);
            if (!*end && x >= 0 && x < INT32_MAX)
                return (int)x;
        }
    }
    return -1;
}

int cutap_rec_rank(void)
{
    static const char *const rank_vars[] = {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", NULL};
    return env_int(rank_vars);
}

static void fill_header(struct cutap_file_header *h)
{
    static const char *const local_vars[] = {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                             "SLURM_LOCALID", NULL};
    h->version = CUTAP_FILE_VERSION;
    h->header_size = CUTAP_HEADER_SIZE;
    h->chunk_size = F.csize;
    h->ring_chunks = R.n;
    h->capture = cutap_capture_modes();
    h->flags = F.counts ? CUTAP_FILE_COUNTS : 0;
    h->clock = cutap_rec_tsc ? CUTAP_CLOCK_TSC : CUTAP_CLOCK_NS;
    h->pid = (int32_t)getpid();
    h->ppid = (int32_t)getppid();
    h->rank = cutap_rec_rank();
    h->local_rank = env_int(local_vars);
    h->start_realtime_ns = cutap_clock_ns(CLOCK_REALTIME);
    clock_pair_tight(&h->start_clock, &h->start_mono_ns);
    gethostname(h->host, sizeof h->host - 1);
    ssize_t n = readlink("/proc/self/exe", h->exe, sizeof h->exe - 1);
    h->exe[n > 0 ? n : 0] = 0;
    long n_cmd = cutap_read_small("/proc/self/cmdline", h->cmdline, sizeof h->cmdline);
    for (long i = 0; i < n_cmd - 1; i++)   /* arguments are NUL-separated */
        if (!h->cmdline[i])
            h->cmdline[i] = ' ';
    snprintf(h->cutap_version, sizeof h->cutap_version, "cutap %s", CUTAP_VERSION);
    /* A second pair a little later gives the tick rate even if the process
     * dies before any other pair is written. */
    if (cutap_rec_tsc) {
        uint64_t until = h->start_mono_ns + 200000, c, m;
        while (cutap_now_ns() < until) {
        }
        clock_pair_tight(&c, &m);
        h->calib_clock = c;
        h->calib_mono_ns = m;
        cutap_slow_ticks = (uint64_t)((double)(c - h->start_clock) * (double)slow_ns / (double)(m - h->start_mono_ns));
    } else {
        cutap_slow_ticks = slow_ns;
    }
    /* 0: the mean of any timed call reaches it, so after its first
     * (always timed) call every call of an id is timed. */
    if (time_all)
        cutap_slow_ticks = 0;
    memcpy(h->magic, CUTAP_FILE_MAGIC, 8);
}

/* Creates DIR/<host>.<pid>[.<n>].cutap, never through a symlink, never over
 * an existing file (a process that execs keeps its pid: the new image gets
 * the next free <n>). */
static int file_open(void)
{
    char host[64] = "host", path[PATH_MAX + 128];
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = 0;
    for (char *p = host; *p; p++)
        if (*p == '/')
            *p = '_';
    mkdir(F.dir, 0700);   /* the CLI makes it; plain CUTAP_TRACE users may not */
    cutap_reg_attach(F.dir, 1);
    int fd = -1;
    for (int n = 0; n < 1000 && fd < 0; n++) {
        if (n)
            snprintf(path, sizeof path, "%s/%s.%d.%d%s", F.dir, host, (int)getpid(), n, CUTAP_FILE_SUFFIX);
        else
            snprintf(path, sizeof path, "%s/%s.%d%s", F.dir, host, (int)getpid(), CUTAP_FILE_SUFFIX);
        fd = cutap_fd_open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        int e = errno;
        cutap_reg_file(e);
        cutap_warn("cannot create a trace file in %s: %s; nothing is recorded", F.dir, strerror(e));
        return -1;
    }
    /* The header page is backed (allocated, or written) before it is
     * mapped: a store into an unbacked page of a full filesystem would be
     * a SIGBUS in the program. */
    int rc = cutap_back_range(fd, 0, CUTAP_HEADER_SIZE);
    if (rc || (F.hdr = mmap(NULL, CUTAP_HEADER_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
        int e = rc ? rc : errno;
        F.hdr = NULL;
        close(fd);
        unlink(path);
        cutap_reg_file(e);
        cutap_warn("cannot make trace file %s: %s; nothing is recorded", path, strerror(e));
        return -1;
    }
    F.file.fd = fd;
    cutap_fd_remember(&F.file);
    if (cutap_rec_tsc && __atomic_load_n(&cutap_tsc_forbidden, __ATOMIC_ACQUIRE))
        cutap_rec_clock_choose();   /* forbidden before any record: a file in ns */
    memcpy(F.path, path, sizeof F.path);
    fill_header(F.hdr);
    cutap_reg_file(0);
    cutap_log_debug("tracing to %s", path);
    if (R.n) {
        /* the whole ring is backed and mapped now: it never grows */
        size_t rs = (size_t)R.n * F.csize;
        int rrc = cutap_back_range(fd, CUTAP_HEADER_SIZE, (off_t)rs);
        void *m = rrc ? MAP_FAILED : mmap(NULL, rs, PROT_READ | PROT_WRITE, MAP_SHARED, fd, CUTAP_HEADER_SIZE);
        if (m == MAP_FAILED) {
            int e = rrc ? rrc : errno;
            stop(rrc ? CUTAP_STOP_SPACE : CUTAP_STOP_MAP, e, "cannot make the ring");
        } else
            R.base = m;
    }
    /* a freeze asked for before this process made its file (cutap freeze,
     * the signal to cutap trace): it starts frozen */
    char fz[PATH_MAX + 32];
    snprintf(fz, sizeof fz, "%s/%s", F.dir, CUTAP_FREEZE_FILE);
    if (!access(fz, F_OK))
        cutap_rec_freeze(CUTAP_FREEZE_REQUEST, 0, 0);
    F.hdr->capture_ranges = ranges_entered;
    freeze_write(F.hdr);
    cutap_capture_file_made(F.hdr);
    return 0;
}

static char *chunk_addr(uint64_t i, int *why);
static char *chunk_addr_mapped(uint64_t i);
static int ring_prepare(void);

static void *pf_main(void *arg)
{
    (void)arg;
    prctl(PR_SET_NAME, "cutap-pages");
    for (;;) {
        uint32_t seen = atomic_load(&PF.kick);
        if (R.n) {
            if (atomic_load_explicit(&F.dead, memory_order_relaxed))
                goto out;
            while (ring_prepare()) {
            }
            syscall(SYS_futex, &PF.kick, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
            continue;
        }
        for (;;) {
            if (atomic_load_explicit(&F.dead, memory_order_relaxed))
                goto out;
            uint64_t d = atomic_load(&PF.done), next = atomic_load(&F.next_chunk);
            if (d < next) {   /* behind: those chunks' takers populate them */
                d = next;
                atomic_store(&PF.from, d);
                atomic_store(&PF.done, d);
            }
            if (d >= next + PF_AHEAD)
                break;
            /* only in segments mapped already: mapping one allocates all
             * its blocks (up to 64 MiB), which stays the taker's to do, as
             * the file's size stays that of the chunks taken */
            char *c = chunk_addr_mapped(d);
            if (!c)
                break;
            madvise(c, F.csize, MADV_POPULATE_WRITE);
            atomic_store(&PF.done, d + 1);
        }
        syscall(SYS_futex, &PF.kick, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
    }
out:
    atomic_store(&PF.state, -1);
    return NULL;
}

/* Whether the helper populated chunk i (it may have skipped chunks taken
 * while it was behind). */
static int pf_populated(uint64_t i)
{
    return i >= atomic_load_explicit(&PF.from, memory_order_acquire) &&
           i < atomic_load_explicit(&PF.done, memory_order_acquire);
}

/* After chunk i was taken: the helper, made if need be, told to go on. */
static void pf_kick(uint64_t i)
{
    int st = atomic_load_explicit(&PF.state, memory_order_acquire);
    if (st == 0 && !PF.off && atomic_compare_exchange_strong(&PF.state, &st, 2)) {
        pthread_attr_t a;
        pthread_t th;
        sigset_t all, old;
        sigfillset(&all);
        /* the helper is born with every signal blocked: none meant for
         * the program is ever delivered to it */
        pthread_sigmask(SIG_SETMASK, &all, &old);
        int ok = !pthread_attr_init(&a);
        /* (the default stack: glibc carves static TLS out of it) */
        ok = ok && !pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED) && !pthread_create(&th, &a, pf_main, NULL);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (ok)
            pthread_attr_destroy(&a);
        int making = 2;   /* a helper that stopped already (no room) has said -1: that stays */
        atomic_compare_exchange_strong(&PF.state, &making, ok ? 1 : -1);
        return;
    }
    if (st == 1 && (R.n || atomic_load_explicit(&PF.done, memory_order_relaxed) < i + 1 + PF_AHEAD)) {
        atomic_fetch_add(&PF.kick, 1);
        syscall(SYS_futex, &PF.kick, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    }
}

static uint64_t seg_chunks(unsigned s)
{
    return s >= 8 ? SEG_MAX_CHUNKS : SEG_MIN_CHUNKS << s;   /* 1, 2, 4 ... 128, then 256 chunks */
}

/* The segment holding chunk i (MAX_SEGS: past the last one); *first:
 * the segment's first chunk. */
static unsigned seg_of(uint64_t i, uint64_t *first)
{
    unsigned s = 0;
    *first = 0;
    while (s < MAX_SEGS && i - *first >= seg_chunks(s))
        *first += seg_chunks(s++);
    return s;
}

/* Address of chunk i if its segment is mapped already, else NULL. */
static char *chunk_addr_mapped(uint64_t i)
{
    uint64_t first;
    unsigned s = seg_of(i, &first);
    char *base = s < MAX_SEGS ? atomic_load_explicit(&F.seg[s], memory_order_acquire) : NULL;
    return base ? base + (i - first) * F.csize : NULL;
}

/* A descriptor of the trace file to extend and map it with (the caller
 * closes it), or -1 with *why set. The program may have closed ours and
 * got its number back for a file of its own: the number is never trusted
 * alone (a private duplicate, checked to name our file, is used), and when
 * it is no longer ours the file is opened again by its path, which must
 * still name the same file. Under grow_lock. */
static int file_fd(int *why)
{
    int d = cutap_fd_dup_checked(&F.file);
    if (d >= 0)
        return d;
    struct cutap_fd again = {.fd = cutap_fd_open(F.path, O_RDWR | O_NOFOLLOW, 0)};
    struct stat st;
    if (again.fd >= 0 && !fstat(again.fd, &st) && st.st_dev == F.file.dev && st.st_ino == F.file.ino) {
        F.file.fd = again.fd;   /* the old number is the program's now: forgotten, not closed */
        d = cutap_fd_dup_checked(&F.file);
        if (d >= 0)
            return d;
    } else if (again.fd >= 0) {
        close(again.fd);
    }
    *why = CUTAP_STOP_FILE;
    errno = again.fd >= 0 ? ESTALE : errno ? errno : EBADF;
    return -1;
}

/* Address of chunk i, mapping its segment first if no thread has. */
static char *chunk_addr(uint64_t i, int *why)
{
    uint64_t first;
    unsigned s = seg_of(i, &first);
    if (s >= MAX_SEGS) {
        errno = EFBIG;
        *why = CUTAP_STOP_LIMIT;
        return NULL;
    }
    size_t seg_size = seg_chunks(s) * F.csize;
    char *base = atomic_load_explicit(&F.seg[s], memory_order_acquire);
    if (!base) {
        pthread_mutex_lock(&grow_lock);
        cutap_tls.internal++;
        base = atomic_load(&F.seg[s]);
        /* (in a ring file, the growing chunks come after the ring) */
        off_t off = CUTAP_HEADER_SIZE + (off_t)((R.n + first) * F.csize);
        if (!base) {
            /* Every block of the segment is allocated (fallocate, or
             * zeros written where it is not supported) before it is
             * mapped: a full disk is an error here, never a SIGBUS on
             * some later store. The segment's range was never written. */
            int fd = file_fd(why), rc = fd < 0 ? errno : cutap_back_range(fd, off, (off_t)seg_size);
            if (fd < 0)
                base = NULL;
            else if (rc)
                *why = CUTAP_STOP_SPACE;
            else if ((base = mmap(NULL, seg_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off)) == MAP_FAILED) {
                rc = errno;
                base = NULL;
                *why = CUTAP_STOP_MAP;
            } else
                atomic_store_explicit(&F.seg[s], base, memory_order_release);
            if (fd >= 0)
                close(fd);
            errno = rc;
        }
        cutap_tls.internal--;
        pthread_mutex_unlock(&grow_lock);
        if (!base)
            return NULL;
    }
    return base + (i - first) * F.csize;
}

/* --- the ring (flight recorder) --------------------------------------- */

static char *ring_chunk(uint32_t j)
{
    return R.base + (size_t)j * F.csize;
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
    unsigned slots = F.csize / CUTAP_SLOT;
    for (unsigned s = 1; had && s < slots;) {
        const struct cutap_rec_call *r = (const struct cutap_rec_call *)(c + (size_t)s * CUTAP_SLOT);
        if (!r->kind || !r->nslots)
            break;
        calls += r->kind == CUTAP_REC_CALL;
        s += r->nslots;
    }
    memset(c, 0, F.csize);
    if (had && F.hdr) {
        __atomic_fetch_add(&F.hdr->overwritten_calls, calls, __ATOMIC_RELAXED);
        __atomic_fetch_add(&F.hdr->overwritten_chunks, 1, __ATOMIC_RELAXED);
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
    unsigned top = 0, slots = F.csize / CUTAP_SLOT;
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
    for (uint32_t p = t->ring_pins1; p && nl < RING_MAX_PINS; p = R.next_pin[p - 1])
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
            link = &R.next_pin[list[i]];
        } else
            atomic_store_explicit(&R.state[list[i]], RS_DIRTY, memory_order_release);
    }
    *link = 0;
    t->ring_pins1 = head;
}

static void ring_release_all(struct rec_thread *t)
{
    if (R.state)
        ring_leave(t, 1);
}

/* After a take: the helper clears (or, on the first lap, populates) the
 * chunks ahead of the cursor. */
static void ring_kick(void)
{
    pf_kick(1);
}

/* The helper's work in a ring file: the next RING_AHEAD chunks after the
 * cursor made ready (populated on the first lap; cleared after, unless the
 * ring is frozen). Returns whether it did anything. */
static int ring_prepare(void)
{
    int did = 0;
    uint64_t cur = atomic_load(&R.cursor);
    for (uint64_t pos = cur; pos < cur + RING_AHEAD; pos++) {
        uint32_t j = (uint32_t)(pos % R.n);
        if (pos < R.n) {
            uint64_t p = atomic_load(&R.populated);
            if (pos >= p) {
                madvise(ring_chunk(j), F.csize, MADV_POPULATE_WRITE);
                atomic_store(&R.populated, pos + 1);
                did = 1;
            }
            continue;
        }
        uint8_t s = RS_DIRTY;
        if (atomic_load(&cutap_cap_block) & CB_FROZEN)
            break;
        if (atomic_load(&R.state[j]) == RS_DIRTY && atomic_compare_exchange_strong(&R.state[j], &s, RS_PREP)) {
            ring_clear(j);
            atomic_store_explicit(&R.state[j], RS_CLEAN, memory_order_release);
            did = 1;
        }
    }
    return did;
}

/* The next ring chunk for thread t (taken, cleared, its header not yet
 * written); NULL when every chunk is held (more threads inside calls than
 * the ring has chunks) or the ring is frozen and has no fresh chunk. */
static char *ring_take(struct rec_thread *t)
{
    if (!R.base)
        return NULL;
    struct cutap_file_header *fh = F.hdr;
    uint32_t req = fh ? __atomic_load_n(&fh->freeze_request, __ATOMIC_ACQUIRE) : 0;
    if (CUTAP_UNLIKELY(req) && !(atomic_load(&cutap_cap_block) & CB_FROZEN))
        cutap_rec_freeze(req == CUTAP_FREEZE_PEER ? CUTAP_FREEZE_PEER : CUTAP_FREEZE_REQUEST, 0, 0);
    ring_leave(t, 0);
    /* the chunk given back is no longer this thread's to write, whether or
     * not a new one is found */
    t->pos = t->end = NULL;
    /* a thread whose exit destructor ran already (a later destructor makes
     * a CUDA call): asked again, so that this chunk goes back too */
    if (t->gone && have_exit_key)
        pthread_setspecific(exit_key, (void *)1);
    int frozen = !!(atomic_load(&cutap_cap_block) & CB_FROZEN);
    for (uint32_t k = 0; k < 2 * R.n; k++) {
        uint64_t pos = atomic_fetch_add(&R.cursor, 1);
        uint32_t j = (uint32_t)(pos % R.n);
        uint8_t s = atomic_load(&R.state[j]);
        if ((s != RS_CLEAN && s != RS_DIRTY) || (s == RS_DIRTY && frozen))
            continue;
        if (!atomic_compare_exchange_strong(&R.state[j], &s, RS_HELD))
            continue;
        if (s == RS_DIRTY)
            ring_clear(j);
        else if (pos < R.n && pos >= atomic_load(&R.populated))
            madvise(ring_chunk(j), F.csize, MADV_POPULATE_WRITE);
        t->ring_cur1 = j + 1;
        if (!frozen)
            ring_kick();
        return ring_chunk(j);
    }
    if (!frozen && !atomic_exchange(&R.warned, 1))
        cutap_warn("the ring (%u chunks of %u KiB) is too small for the threads that hold its chunks: "
                   "calls not recorded", R.n, F.csize >> 10);
    return NULL;
}

static uint32_t next_interval(struct rec_thread *t);

static void thread_init(struct rec_thread *t)
{
    memset(t, 0, sizeof *t);
    t->tid = (int32_t)syscall(SYS_gettid);
    /* splitmix64 of the thread id and the clock: threads (and processes)
     * sample at different calls */
    uint64_t x = (fixed_seed ? seed : (uint64_t)(uint32_t)t->tid << 32 ^ cutap_rec_clock()) + 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    t->rng = (x ^ (x >> 31)) | 1;
    t->countdown = next_interval(t);
    if (have_exit_key)
        pthread_setspecific(exit_key, (void *)1);
}

/* A thread's destructor. A later destructor of the same thread may still
 * call CUDA: the thread then starts afresh (a new chunk; its tail, given
 * away, is never written again by it). */
static void thread_exit(void *v)
{
    (void)v;
    struct rec_thread *t = &cutap_rt;
    if (R.n) {
        ring_release_all(t);   /* a ring's chunks are never passed on: they are reused */
    } else if (t->pos && t->end - t->pos >= TAIL_MIN && !atomic_load(&F.dead)) {
        pthread_mutex_lock(&tail_lock);
        if (ntails < TAILS_MAX) {
            tails[ntails].pos = t->pos;
            tails[ntails].end = t->end;
            __atomic_store_n(&ntails, ntails + 1, __ATOMIC_RELAXED);
        }
        pthread_mutex_unlock(&tail_lock);
    }
    t->pos = t->end = NULL;
    if (t->tab)
        munmap(t->tab, TAB_BYTES);
    t->tab = NULL;
    t->gone = 1;
}

/* The file is made when the process records its first call: a process
 * that never calls CUDA (a shell, a compiler) leaves no file. */
static int file_ensure(void)
{
    if (CUTAP_LIKELY(atomic_load_explicit(&F.opened, memory_order_acquire)))
        return 0;
    pthread_mutex_lock(&grow_lock);
    cutap_tls.internal++;
    if (!atomic_load(&F.opened)) {
        if (file_open())
            atomic_store(&F.dead, 1);
        atomic_store_explicit(&F.opened, 1, memory_order_release);
    }
    cutap_tls.internal--;
    pthread_mutex_unlock(&grow_lock);
    return atomic_load(&F.dead) ? -1 : 0;
}

static char *ring_take(struct rec_thread *t);
static _Atomic uint32_t meta_seq;

static void *chunk_take(struct rec_thread *t, int type, uint32_t first_id)
{
    if (atomic_load_explicit(&F.dead, memory_order_relaxed) || file_ensure())
        return NULL;
    if (CUTAP_UNLIKELY(!t->tid))
        thread_init(t);
    if (R.n && type == CUTAP_CHUNK_RECORDS) {
        char *rc = ring_take(t);
        if (!rc)
            return NULL;
        struct cutap_chunk_header *h = (struct cutap_chunk_header *)rc;
        h->type = CUTAP_CHUNK_RECORDS;
        h->tid = t->tid;
        h->seq = t->seq_rec++;
        h->first_id = 0;
        h->take = atomic_fetch_add(&R.takes, 1) + 1;
        clock_pair(&h->clock, &h->mono_ns);
        prctl(PR_GET_NAME, h->thread_name);
        __atomic_store_n(&h->magic, CUTAP_CHUNK_MAGIC, __ATOMIC_RELEASE);
        return rc;
    }
    int why = CUTAP_STOP_OTHER;
    uint64_t i = atomic_fetch_add(&F.next_chunk, 1);
    char *c = chunk_addr(i, &why);
    if (!c) {
        stop(why, errno,
             why == CUTAP_STOP_FILE ? "the program closed cutap's descriptor of the trace file, which cannot be opened again"
                                    : "cannot extend the trace file");
        return NULL;
    }
    /* Fault the chunk's pages in now, in one system call, rather than one
     * page fault per 4 KiB on the hot path (Linux 5.14+; else ignored),
     * unless the helper did already. */
    if (!pf_populated(i))
        madvise(c, F.csize, MADV_POPULATE_WRITE);
    /* from the process's second chunk on (one that records a handful of
     * calls makes no thread); the helper populates chunks of segments
     * already mapped, so the file grows only as chunks are taken */
    if (type == CUTAP_CHUNK_RECORDS && !F.counts && i >= 1 && !R.n)
        pf_kick(i);
    struct cutap_chunk_header *h = (struct cutap_chunk_header *)c;
    h->type = (uint16_t)type;
    h->tid = t->tid;
    h->seq = type == CUTAP_CHUNK_RECORDS ? t->seq_rec++ : type == CUTAP_CHUNK_META ? atomic_fetch_add(&meta_seq, 1)
                                                                                 : t->seq_cnt++;
    h->first_id = first_id;
    h->take = atomic_fetch_add(&R.takes, 1) + 1;
    clock_pair(&h->clock, &h->mono_ns);
    prctl(PR_GET_NAME, h->thread_name);
    __atomic_store_n(&h->magic, CUTAP_CHUNK_MAGIC, __ATOMIC_RELEASE);
    return c;
}

/* The tail of an exited thread's chunk with room for a THREAD meta record
 * and n slots, taken; or 0. */
static int tail_take(struct rec_thread *t, unsigned n)
{
    if (!__atomic_load_n(&ntails, __ATOMIC_RELAXED))   /* without the lock: a miss costs a new chunk */
        return 0;
    struct cutap_rec_call *pos = NULL, *end = NULL;
    pthread_mutex_lock(&tail_lock);
    if (ntails && tails[ntails - 1].end - tails[ntails - 1].pos > (ptrdiff_t)n) {
        __atomic_store_n(&ntails, ntails - 1, __ATOMIC_RELAXED);
        pos = tails[ntails].pos;
        end = tails[ntails].end;
    }
    pthread_mutex_unlock(&tail_lock);
    if (!pos)
        return 0;
    /* From here on the chunk's records are this thread's. */
    struct cutap_rec_meta *m = (struct cutap_rec_meta *)pos;
    m->sub = CUTAP_META_THREAD;
    m->nslots = 1;
    m->aux = (uint32_t)t->tid;
    m->key = t->seq_rec++;
    m->clock = cutap_rec_clock();
    char name[17] = {0};
    prctl(PR_GET_NAME, name);
    memcpy(m->text, name, 16);
    __atomic_store_n(&m->kind, CUTAP_REC_META, __ATOMIC_RELEASE);
    t->pos = pos + 1;
    t->end = end;
    return 1;
}

static __attribute__((noinline)) struct cutap_rec_call *reserve_slow(struct rec_thread *t, unsigned n)
{
    if (atomic_load_explicit(&F.dead, memory_order_relaxed) || file_ensure())
        return NULL;
    if (CUTAP_UNLIKELY(!t->tid))
        thread_init(t);
    if (t->gone || !tail_take(t, n)) {
        char *c = chunk_take(t, CUTAP_CHUNK_RECORDS, 0);
        if (!c)
            return NULL;
        t->pos = (struct cutap_rec_call *)(c + CUTAP_SLOT);
        t->end = (struct cutap_rec_call *)(c + F.csize);
    }
    struct cutap_rec_call *r = t->pos;
    t->pos = r + n;
    return r;
}

/* Room for a record of n slots in the thread's chunk. A record never spans
 * two chunks: the rest of a chunk that cannot hold it stays zero. */
static inline struct cutap_rec_call *reserve(unsigned n)
{
    struct rec_thread *t = &cutap_rt;
    struct cutap_rec_call *r = t->pos;
    if (CUTAP_UNLIKELY((size_t)(t->end - r) < n))
        return reserve_slow(t, n);
    t->pos = r + n;
    cutap_rec_prefetch(r + n);
    return r;
}

/* --- meta records --------------------------------------------------- */

/* Ring files: meta records go to META chunks after the ring, shared by
 * every thread (names are written once per file: rare). */
static char *meta_chunk;
static unsigned meta_pos;
static pthread_mutex_t meta_lock = PTHREAD_MUTEX_INITIALIZER;

static struct cutap_rec_call *meta_reserve(unsigned n)
{
    struct cutap_rec_call *r = NULL;
    pthread_mutex_lock(&meta_lock);
    if (!meta_chunk || meta_pos + n > F.csize / CUTAP_SLOT) {
        meta_chunk = chunk_take(&cutap_rt, CUTAP_CHUNK_META, 0);
        meta_pos = 1;
    }
    if (meta_chunk) {
        r = (struct cutap_rec_call *)(meta_chunk + (size_t)meta_pos * CUTAP_SLOT);
        meta_pos += n;
    }
    pthread_mutex_unlock(&meta_lock);
    return r;
}

/* A meta record whose text is len bytes (NUL-separated fields allowed),
 * NUL-terminated in the record. */
static void write_meta_n(int sub, uint32_t aux, uint64_t key, const char *text, size_t len)
{
    if (len > (size_t)MAX_REC_SLOTS * CUTAP_SLOT - 64)
        len = (size_t)MAX_REC_SLOTS * CUTAP_SLOT - 64;
    unsigned n = (unsigned)((offsetof(struct cutap_rec_meta, text) + len + 1 + CUTAP_SLOT - 1) / CUTAP_SLOT);
    struct cutap_rec_meta *m = (struct cutap_rec_meta *)(R.n ? meta_reserve(n) : reserve(n));
    if (!m)
        return;
    m->sub = (uint8_t)sub;
    m->nslots = (uint16_t)n;
    m->aux = aux;
    m->key = key;
    m->clock = cutap_rec_clock();
    memcpy(m->text, text, len);
    m->text[len] = 0;
    __atomic_store_n(&m->kind, CUTAP_REC_META, __ATOMIC_RELEASE);
}

static void write_meta(int sub, uint32_t aux, uint64_t key, const char *text)
{
    write_meta_n(sub, aux, key, text, strnlen(text, (size_t)MAX_REC_SLOTS * CUTAP_SLOT - 64));
}

/* What a runtime or library layer is bound to, once per file: its
 * soname, and whether its calls are recorded untyped because the library
 * is of another major than the generated signatures (resolve/libs.c). */
static void note_layer(int layer)
{
    int vouched = 1;
    const char *so = layer >= 0 && layer < CUTAP_LAYER_COUNT ? cutap_lib_bound(layer, &vouched) : NULL;
    uint8_t expect = 0;
    if (!so || !atomic_compare_exchange_strong(&layer_noted[layer], &expect, 1))
        return;
    write_meta(CUTAP_META_LAYER, (uint32_t)layer, vouched ? 0 : CUTAP_LAYER_OTHER_MAJOR, so);
}

static inline void name_id(uint32_t id)
{
    if (CUTAP_LIKELY(atomic_load_explicit(&cutap_named[id], memory_order_relaxed)))
        return;
    uint8_t expect = 0;
    if (!atomic_compare_exchange_strong(&cutap_named[id], &expect, 1))
        return;
    const char *name = cutap_call_name(id);
    int layer = cutap_call_layer(id);
    /* Format version 4: the file describes its ids itself (docs/FORMAT.md):
     * name, layer name, then each argument as kind:name:type (kind one of
     * i u p e f d s, CUTAP_ARG_*), ';'-separated, for a typed function. */
    char text[3072];
    const char *ln = cutap_layer_name(layer);
    size_t len = (size_t)snprintf(text, sizeof text, "%s%c%s%c", name ? name : "?", 0, ln ? ln : "?", 0);
    int na = cutap_call_nargs(id);
    for (int i = 0; i < na && len < sizeof text - 256; i++) {
        const cutap_arg_info_t *a = cutap_call_arg(id, (unsigned)i);
        if (!a)
            break;
        int k = snprintf(text + len, sizeof text - len - 1, "%s%c:%s:%s", i ? ";" : "", "iupefds"[a->kind % 7],
                         a->name, a->type);
        if (k < 0 || (size_t)k >= sizeof text - len - 1)
            break;
        len += (size_t)k;
    }
    write_meta_n(CUTAP_META_ID_NAME, id, (uint64_t)layer, text, len);
    note_layer(layer);
}

/* The kernel behind a launch, named once per handle: the driver's own name
 * for it (cuFuncGetName; cuKernelGetName for a CUkernel passed as a
 * function), asked directly, not through our wrappers. */
static void name_function(uint64_t f)
{
    if (!f)
        return;
    if (atomic_load_explicit(&funcs_full, memory_order_relaxed))
        return;
    uint64_t h = (f >> 4) * 0x9e3779b97f4a7c15ull;
    for (unsigned probe = 0; probe < 64; probe++) {
        _Atomic uint64_t *s = &funcs[(h + probe) % FUNC_SLOTS];
        uint64_t v = atomic_load_explicit(s, memory_order_relaxed);
        if (v == f)
            return;
        if (v)
            continue;
        if (!atomic_compare_exchange_strong(s, &v, f)) {
            if (v == f)
                return;
            continue;
        }
        const char *name = NULL;
        typedef int (*getname_fn)(const char **, uint64_t);
        getname_fn fn = (getname_fn)cutap_driver_real(CUTAP_ID_cuFuncGetName);
        if (!fn || fn(&name, f) || !name) {
            fn = (getname_fn)cutap_driver_real(CUTAP_ID_cuKernelGetName);
            if (!fn || fn(&name, f))
                name = NULL;
        }
        if (name)
            write_meta(CUTAP_META_FUNC_NAME, 0, f, name);
        return;
    }
    if (F.hdr)
        __atomic_fetch_add(&F.hdr->lost_names, 1, __ATOMIC_RELAXED);
    if (!atomic_exchange(&funcs_full, 1))
        cutap_warn("more kernels than cutap can name (%d); later ones are shown by handle only", FUNC_SLOTS);
}

void cutap_fp_name_function(uint64_t handle)
{
    name_function(handle);
}

int cutap_fast_kind;

/* --- trace mode ----------------------------------------------------- */

/* What a call of an id needs, worked out on its first call (the same for
 * every call; two threads working it out at once write the same values):
 * slots when it has no string argument, and flags for the paths it takes.
 * A fresh record's bytes are zero (the file region is new and never
 * reused), so the writer stores only what is not zero. */
/* PLAN_NOSTATUS: the result is no status code (a pointer, a count, void):
 * outputs are read whatever it is. */
enum { PLAN_READY = 1, PLAN_INSTR = 2, PLAN_IN = 4, PLAN_OUT = 8, PLAN_FUNC = 16, PLAN_SIMPLE = 32, PLAN_NOSTATUS = 64,
       PLAN_WORDS = 128 };
/* SIMPLE: every capture is a 4- or 8-byte output (cuCtxGetCurrent,
 * cuMemAlloc, cuDeviceGetAttribute…: most calls that have captures), at
 * most two: their headers and offsets are kept here, so the hot path
 * stores them without walking the capture table. */
struct plan {
    uint16_t nslots;
    uint8_t flags;
    uint8_t nsimple;
    struct {
        uint16_t off;      /* byte offset of the capture header in the record */
        uint8_t arg, size;
    } out[2];
    uint64_t hdr[2];       /* the headers as written before the call */
};
static struct plan plans[CUTAP_MAX_IDS];

static const size_t first_room = sizeof(struct cutap_rec_call) - offsetof(struct cutap_rec_call, words);

static inline unsigned slots_for(size_t bytes)
{
    return bytes <= first_room ? 1 : 1 + (unsigned)((bytes - first_room + CUTAP_SLOT - 1) / CUTAP_SLOT);
}

static inline size_t cap_room(const struct cutap_capinfo *c, uint64_t arg)
{
    switch (c->kind) {
    case CUTAP_CAP_IN_BYTES:
    case CUTAP_CAP_OUT_BYTES:
        return (c->size + 7u) & ~7u;
    case CUTAP_CAP_IN_STR:
        return arg ? (strnlen((const char *)(uintptr_t)arg, CUTAP_CAP_STR_MAX) + 8) & ~(size_t)7 : 0;
    default:
        return CUTAP_CAP_OUTSTR_ROOM;
    }
}

static struct plan make_plan(uint32_t id, unsigned nargs, int untyped)
{
    struct plan p;
    memset(&p, 0, sizeof p);
    p.flags = PLAN_READY;
    size_t bytes = (size_t)nargs * 8;
    /* Static ids: typed calls only (rec_begin_raw records the untyped
     * ones); dynamic ids: untyped, argument words only. */
    if (id < CUTAP_STATIC_COUNT && !untyped) {
        const struct cutap_fninfo *fi = cutap_fn(id);
        if (fi->nostatus)
            p.flags |= PLAN_NOSTATUS;
        int simple = fi->ncap > 0 && fi->ncap <= 2;
        for (unsigned k = 0; k < fi->ncap; k++) {
            const struct cutap_capinfo *c = &fi->caps[k];
            p.flags |= c->kind == CUTAP_CAP_IN_STR ? PLAN_INSTR : c->kind == CUTAP_CAP_IN_BYTES ? PLAN_IN : PLAN_OUT;
            if (c->kind == CUTAP_CAP_OUT_BYTES && (c->size == 4 || c->size == 8) && simple) {
                struct cutap_capture h = {0, 8, c->arg, c->kind, CUTAP_CAPS_NONE, 0};
                p.out[k].off = (uint16_t)(offsetof(struct cutap_rec_call, words) + bytes);
                p.out[k].arg = c->arg;
                p.out[k].size = (uint8_t)c->size;
                memcpy(&p.hdr[k], &h, sizeof h);
            } else {
                simple = 0;
            }
            if (c->kind != CUTAP_CAP_IN_STR)
                bytes += sizeof(struct cutap_capture) + cap_room(c, 0);
        }
        if (simple) {
            p.flags |= PLAN_SIMPLE;
            p.nsimple = fi->ncap;
        }
        if (fi->func_arg >= 0 && !cutap_no_kernel_names)
            p.flags |= PLAN_FUNC;
    } else if (id >= CUTAP_STATIC_COUNT && !untyped && (cutap_id_flags(id) & CUTAP_DYN_WORDS_AFTER)) {
        p.flags |= PLAN_WORDS;   /* words the callee fills after the call (ioctl layer) */
    }
    p.nslots = (uint16_t)slots_for(bytes);
    return p;
}

/* Capture headers (and IN bytes/strings) of a typed call with captures. */
/* Fill a capture: bytes, or a string of at most max bytes (the byte after
 * the copy is the string's next byte or its NUL, so truncation shows). */
static void cap_bytes(struct cutap_capture *h, const void *p, size_t len)
{
    memcpy(h + 1, p, len);
    h->len = (uint16_t)len;
    h->state = CUTAP_CAPS_OK;
}

static void cap_string(struct cutap_capture *h, const char *s, size_t max)
{
    size_t len = strnlen(s, max);
    memcpy(h + 1, s, len);
    h->len = (uint16_t)len;
    h->state = s[len] ? CUTAP_CAPS_TRUNCATED : CUTAP_CAPS_OK;
}

static void write_captures(uint32_t id, const uint64_t *args, struct cutap_rec_call *r, const size_t *instr_room)
{
    const struct cutap_fninfo *fi = cutap_fn(id);
    uint64_t *w = r->words + fi->nargs;
    unsigned si = 0;
    for (unsigned k = 0; k < fi->ncap; k++) {
        const struct cutap_capinfo *c = &fi->caps[k];
        struct cutap_capture *h = (struct cutap_capture *)w;
        const void *p = (const void *)(uintptr_t)args[c->arg];
        size_t room = c->kind == CUTAP_CAP_IN_STR ? instr_room[si++] : cap_room(c, 0);
        h->reserved = (uint16_t)room;
        h->arg = c->arg;
        h->kind = c->kind;
        if (p && c->kind == CUTAP_CAP_IN_BYTES)
            cap_bytes(h, p, c->size);
        else if (p && c->kind == CUTAP_CAP_IN_STR && room)
            cap_string(h, p, room - 1 < CUTAP_CAP_STR_MAX ? room - 1 : CUTAP_CAP_STR_MAX);
        w += 1 + room / 8;
    }
}

/* The first call of an id in this file names it and publishes its plan:
 * every field first, flags (non-zero) last, so a thread that sees flags
 * sees the rest. Two threads may do this at once; they store the same
 * values. */
static __attribute__((noinline)) void publish_plan(uint32_t id, unsigned nargs, int untyped)
{
    name_id(id);
    struct plan p = make_plan(id, nargs, untyped), *pl = &plans[id];
    pl->nslots = p.nslots;
    pl->nsimple = p.nsimple;
    memcpy(pl->out, p.out, sizeof p.out);
    memcpy(pl->hdr, p.hdr, sizeof p.hdr);
    __atomic_store_n(&pl->flags, p.flags, __ATOMIC_RELEASE);
}

/* A call with captures other than SIMPLE ones: sized per call (strings),
 * headers and input bytes written by walking the capture table. */
static __attribute__((noinline)) struct cutap_rec_call *rec_begin_caps(uint32_t id, const uint64_t *args,
                                                                        unsigned nargs, unsigned *nslots)
{
    size_t instr_room[8] = {0};
    const struct cutap_fninfo *fi = cutap_fn(id);
    size_t bytes = (size_t)nargs * 8;
    unsigned si = 0;
    for (unsigned k = 0; k < fi->ncap; k++) {
        size_t room = cap_room(&fi->caps[k], args[fi->caps[k].arg]);
        if (fi->caps[k].kind == CUTAP_CAP_IN_STR && si < 8)
            instr_room[si++] = room;
        bytes += sizeof(struct cutap_capture) + room;
    }
    unsigned n = slots_for(bytes);
    if (n > MAX_REC_SLOTS)
        return lost_call();
    struct cutap_rec_call *r = reserve(n);
    if (!r)
        return lost_call();
    for (unsigned i = 0; i < nargs; i++)
        r->words[i] = args[i];
    write_captures(id, args, r, instr_room);
    *nslots = n;
    return r;
}

/* An untyped call of a static id (a layer of another major, a call not
 * made, a CUPTI report of an older callback id): its argument words only.
 * Never the id's plan, which is its typed calls' (captures read behind
 * the generated signature's pointers): one id may have calls of both
 * kinds in one process (a typed call made before the library of another
 * major was loaded). */
static __attribute__((noinline)) struct cutap_rec_call *rec_begin_raw(uint32_t id, const uint64_t *args,
                                                                       unsigned nargs, unsigned depth)
{
    name_id(id);
    /* The layer may have been adopted after the id was named (its first
     * call made before the library was loaded). */
    int layer = cutap_call_layer(id);
    if (layer >= 0 && layer < CUTAP_LAYER_COUNT && !atomic_load_explicit(&layer_noted[layer], memory_order_relaxed))
        note_layer(layer);
    unsigned n = slots_for((size_t)nargs * 8);
    struct cutap_rec_call *r = reserve(n);
    if (!r)
        return lost_call();
    for (unsigned i = 0; i < nargs; i++)
        r->words[i] = args[i];
    uint32_t dnc = (uint32_t)(uint16_t)depth | nargs << 16;
    memcpy(&r->depth, &dnc, sizeof dnc);
    r->t0 = cutap_rec_clock();
    unsigned rf = CUTAP_RF_UNTYPED | (cutap_fn(id)->typed && cutap_fn(id)->nostatus ? CUTAP_RF_NOSTATUS : 0);
    uint64_t head = CUTAP_REC_CALL | (uint64_t)rf << 8 | (uint64_t)n << 16 | (uint64_t)id << 32;
    __atomic_store_n((uint64_t *)r, head, __ATOMIC_RELEASE);
    return r;
}

/* Writes the start of a call record; NULL when it cannot be recorded. */
static inline __attribute__((always_inline)) struct cutap_rec_call *rec_begin(uint32_t id, const uint64_t *args, unsigned nargs, unsigned depth,
                                               int untyped)
{
    if (CUTAP_UNLIKELY(untyped) && id < CUTAP_STATIC_COUNT)
        return rec_begin_raw(id, args, nargs, depth);
    struct plan *pl = &plans[id];
    if (CUTAP_UNLIKELY(!__atomic_load_n(&pl->flags, __ATOMIC_ACQUIRE)))
        publish_plan(id, nargs, untyped);
    unsigned n = pl->nslots, ncap = 0;
    struct cutap_rec_call *r;
    if (CUTAP_LIKELY(!(pl->flags & (PLAN_INSTR | PLAN_IN | PLAN_OUT)) || (pl->flags & PLAN_SIMPLE))) {
        if (CUTAP_UNLIKELY(!(r = reserve(n))))
            return lost_call();
        for (unsigned i = 0; i < nargs; i++)
            r->words[i] = args[i];
        for (unsigned k = 0; k < pl->nsimple; k++)
            *(uint64_t *)((char *)r + pl->out[k].off) = pl->hdr[k];
        ncap = pl->nsimple;
    } else {
        if (!(r = rec_begin_caps(id, args, nargs, &n)))
            return NULL;
        ncap = cutap_fn(id)->ncap;
    }
    /* depth, nargs and ncap: one store */
    uint32_t dnc = (uint32_t)(uint16_t)depth | nargs << 16 | ncap << 24;
    memcpy(&r->depth, &dnc, sizeof dnc);
    r->t0 = cutap_rec_clock();
    /* kind, flags, nslots and id in one store, last: a reader sees the
     * record whole or not at all. */
    unsigned rf = (untyped ? CUTAP_RF_UNTYPED : 0) | (pl->flags & PLAN_NOSTATUS ? CUTAP_RF_NOSTATUS : 0);
    uint64_t head = CUTAP_REC_CALL | (uint64_t)rf << 8 | (uint64_t)n << 16 |
                    (uint64_t)id << 32;
    __atomic_store_n((uint64_t *)r, head, __ATOMIC_RELEASE);
    return r;
}

static __attribute__((noinline)) void capture_out(struct cutap_capture *h, const struct cutap_capinfo *c,
                                                   uint64_t arg)
{
    const void *p = (const void *)(uintptr_t)arg;
    if (!p)
        return;
    if (c->kind == CUTAP_CAP_OUT_BYTES) {
        cap_bytes(h, p, c->size);
        return;
    }
    const char *s = c->kind == CUTAP_CAP_OUT_STRPTR ? *(const char *const *)p : (const char *)p;
    if (s && h->reserved)
        cap_string(h, s, h->reserved - 1u);
}

/* Outputs: only after success, when the driver has written them (a failed
 * call may have left a bad pointer untouched). */
static void write_outputs(uint32_t id, const uint64_t *args, struct cutap_rec_call *r)
{
    const struct cutap_fninfo *fi = cutap_fn(id);
    uint64_t *w = r->words + r->nargs;
    for (unsigned k = 0; k < r->ncap; k++) {
        struct cutap_capture *h = (struct cutap_capture *)w;
        if (fi->caps[k].kind != CUTAP_CAP_IN_BYTES && fi->caps[k].kind != CUTAP_CAP_IN_STR)
            capture_out(h, &fi->caps[k], args[fi->caps[k].arg]);
        w += 1 + h->reserved / 8;
    }
}

static inline __attribute__((always_inline)) void rec_end(struct cutap_rec_call *r, uint32_t id, const uint64_t *args, uint64_t result, int skipped,
                           uint64_t t1)
{
    r->t1 = t1;
    r->result = result;
    /* skipped: the CUTAP_RF_SKIPPED and CUTAP_RF_INJECTED bits to set */
    uint8_t fl = r->flags | CUTAP_RF_DONE | (uint8_t)skipped;
    if (CUTAP_UNLIKELY(fl & CUTAP_RF_UNTYPED) && id < CUTAP_STATIC_COUNT) {
        __atomic_store_n(&r->flags, fl, __ATOMIC_RELEASE);   /* rec_begin_raw's: no outputs */
        return;
    }
    const struct plan *pl = &plans[id];
    uint8_t pf = pl->flags;
    if (CUTAP_UNLIKELY(pf & PLAN_WORDS))
        memcpy(r->words, args, (size_t)r->nargs * 8);
    /* a skipped call: the driver wrote nothing */
    int ok = !skipped && ((pf & PLAN_NOSTATUS) || (uint32_t)result == CUTAP_CUDA_SUCCESS);
    if ((pf & PLAN_SIMPLE) && ok) {
        for (unsigned k = 0; k < pl->nsimple; k++) {
            const void *p = (const void *)(uintptr_t)args[pl->out[k].arg];
            if (!p)
                continue;
            char *h = (char *)r + pl->out[k].off;
            uint16_t size = pl->out[k].size;
            if (size == 8)
                memcpy(h + 8, p, 8);
            else
                memcpy(h + 8, p, 4);
            struct cutap_capture *ch = (struct cutap_capture *)h;
            ch->len = size;
            ch->state = CUTAP_CAPS_OK;
        }
    } else if ((pf & PLAN_OUT) && ok) {
        write_outputs(id, args, r);
    }
    __atomic_store_n(&r->flags, fl, __ATOMIC_RELEASE);
    if (CUTAP_UNLIKELY(pf & PLAN_FUNC) && ok)
        name_function(args[cutap_fn(id)->func_arg]);
}

/* Objects that runtime calls reported through CUPTI came from (issue #14):
 * named in the file (CUTAP_META_OBJECT) before the first record of one. */
#define MAX_NOTED_OBJECTS 1024
static _Atomic uint8_t object_noted[MAX_NOTED_OBJECTS];

static __attribute__((noinline)) uint32_t origin_of(const void *fn)
{
    uint32_t o = cutap_object_of(fn);
    if (!o || o > MAX_NOTED_OBJECTS)
        return 0;
    if (!atomic_load_explicit(&object_noted[o - 1], memory_order_acquire) &&
        !atomic_exchange(&object_noted[o - 1], 1)) {
        uint64_t base = 0;
        const char *path = cutap_object_path(o, &base);
        write_meta_n(CUTAP_META_OBJECT, o - 1, base, path ? path : "?", strlen(path ? path : "?"));
    }
    return o;
}

/* --- native stacks (CUTAP_STACK, cutap trace --stack FILTER) ------------
 * For the calls FILTER selects, at their start, and with the term
 * "errors", for every call that fails, at its end: the return addresses of
 * the thread's stack (glibc's backtrace: the unwind tables, no frame
 * pointers needed), cutap's own frames (libcutap.so's) left out, each as its object
 * (named once in the file, CUTAP_META_OBJECT) and the offset in it. The
 * reader names them from the objects' symbol tables. Only those calls pay
 * (a few microseconds each); they leave the fast paths. */
#include <execinfo.h>
#define STACK_FRAMES 32
static uint8_t stack_ids[CUTAP_MAX_IDS];
static int stack_errors, stack_on;
static uint32_t self_obj, front_obj;   /* cutap's objects (cutap_object_of): their frames are left out */

static __attribute__((noinline, cold)) void write_stack(const struct cutap_rec_call *r, uint32_t id)
{
    void *pc[STACK_FRAMES + 8];
    int n = backtrace(pc, STACK_FRAMES + 8);
    char buf[sizeof(struct cutap_stack_head) + STACK_FRAMES * sizeof(struct cutap_stack_frame) + 8];
    struct cutap_stack_head *h = (struct cutap_stack_head *)buf;
    struct cutap_stack_frame *f = (struct cutap_stack_frame *)(h + 1);
    unsigned k = 0;
    for (int i = 0; i < n && k < STACK_FRAMES; i++) {
        uintptr_t a = (uintptr_t)pc[i];
        uint32_t o = origin_of(pc[i]);
        if (o && (o == self_obj || o == front_obj))
            continue;   /* cutap's own: its wrappers and recorder are not the program's */
        uint64_t base = 0;
        if (o)
            cutap_object_path(o, &base);
        f[k].object = o;
        f[k].reserved = 0;
        f[k].offset = o ? (uint64_t)a - base : (uint64_t)a;
        k++;
    }
    h->tid = cutap_rt.tid;
    h->nframes = k;
    size_t len = sizeof *h + k * sizeof *f;
    memset(buf + len, 0, 8);
    write_meta_n(CUTAP_META_STACK, id, r->t0, buf, len + 7);
}

/* CUTAP_STACK: the ids selected; "errors" as a term: failing calls. The
 * stack client has no callbacks: enabled for those ids, it keeps them off
 * the fast paths, so that trace_pre and trace_post see them. */
static void stack_setup(void)
{
    const char *v = getenv("CUTAP_STACK");
    if (!v || !*v)
        return;
    char expr[1024];
    stack_errors = cutap_stack_filter_split(v, expr, sizeof expr);
    size_t n = strlen(expr);
    const char *why = NULL;
    if (n && cutap_filter_eval(expr, "", CUTAP_LAYER_DRIVER, &why) < 0) {
        cutap_warn("invalid CUTAP_STACK '%s': %s; no stack is recorded", v, why);
        return;
    }
    self_obj = cutap_object_of((const void *)stack_setup);
    front_obj = cutap_object_of((const void *)cutap_front_attach);
    void *warm[2];
    backtrace(warm, 2);   /* loads the unwinder now, not inside a call */
    int c = cutap_register("stack", NULL, NULL, NULL);
    if (c < 0)
        return;
    if (stack_errors)
        cutap_enable(c, CUTAP_ID_ALL, 1);
    uint32_t count = cutap_call_count();
    for (uint32_t id = 0; n && id < count && id < CUTAP_MAX_IDS; id++) {
        const char *name = cutap_call_name(id);
        if (name && cutap_filter_eval(expr, name, cutap_call_layer(id), NULL) == 1) {
            stack_ids[id] = 1;
            if (!stack_errors)
                cutap_enable(c, id, 1);
        }
    }
    stack_on = 1;
}

static int count_pre(cutap_call_t *call, void *ctx, uint64_t *scratch);
static void count_post(cutap_call_t *call, void *ctx, uint64_t *scratch);
/* trace_pre's scratch for a call counted (outside a capture), not recorded:
 * never a record's address (user space), never a start time */
#define SCRATCH_COUNTED (1ull << 62)

static int trace_pre(cutap_call_t *call, void *ctx, uint64_t *scratch)
{
    if (CUTAP_UNLIKELY(!atomic_load_explicit(&cap_on, memory_order_relaxed))) {
        count_pre(call, ctx, scratch);
        *scratch |= SCRATCH_COUNTED;
        return CUTAP_PROCEED;
    }
    (void)ctx;
    uint32_t origin = CUTAP_UNLIKELY((call->flags & CUTAP_CALL_REPORTED) && call->fn) ? origin_of(call->fn) : 0;
    struct cutap_rec_call *r = rec_begin(call->id, call->args, call->nargs, call->depth,
                                         !!(call->flags & CUTAP_CALL_UNTYPED));
    if (r && origin)
        r->origin = origin;
    if (CUTAP_UNLIKELY(stack_on) && r && call->id < CUTAP_MAX_IDS && stack_ids[call->id])
        write_stack(r, call->id);
    *scratch = (uintptr_t)r;
    return CUTAP_PROCEED;
}

static void trace_post(cutap_call_t *call, void *ctx, uint64_t *scratch)
{
    if (CUTAP_UNLIKELY(*scratch & SCRATCH_COUNTED)) {
        *scratch &= ~SCRATCH_COUNTED;
        count_post(call, ctx, scratch);
        return;
    }
    (void)ctx;
    uint64_t t1 = cutap_rec_clock();
    struct cutap_rec_call *r = (struct cutap_rec_call *)(uintptr_t)*scratch;
    if (r)
        rec_end(r, call->id, call->args, call->result,
                (call->flags & CUTAP_CALL_SKIPPED ? CUTAP_RF_SKIPPED : 0) |
                    (call->flags & CUTAP_CALL_INJECTED ? CUTAP_RF_INJECTED : 0), t1);
    if (CUTAP_UNLIKELY(stack_errors) && r && !(call->id < CUTAP_MAX_IDS && stack_ids[call->id]) &&
        cutap_call_is_error(call))
        write_stack(r, call->id);
}

/* --- counting mode -------------------------------------------------- */

/* Calls and errors are counted for every call, but reading the clock twice
 * costs far more than counting (20-25 ns a TSC read on GPU hosts), so not
 * every call is timed. A call is timed when, on its thread:
 *   - its id has had fewer than 16 calls (rare calls are timed exactly);
 *   - its id is slow: the mean of its timed calls is at least 1 us
 *     (total >= cutap_slow_ticks * timed), where two clock reads cost little;
 *   - or the thread's countdown, which every call decrements, reaches
 *     zero; it restarts at a pseudo-random 1..63 (mean 32), so periodic
 *     call patterns cannot alias with the sampling.
 * The first two time a call exactly; a call timed by the countdown alone
 * is a sample that stands for the calls timed by neither (`sampled`,
 * `sampled_total`): the reader adds the exact part and the samples
 * scaled up (docs/FORMAT.md), so a slow first call is not scaled up with
 * them. With CUTAP_STAT_TIMING=all every call is timed (cutap_slow_ticks = 0).
 * The decision is made before the call from the counter and the countdown
 * alone: an untimed call reads no clock and divides nothing. Both paths,
 * the callbacks and the fused path, use the functions below. */

/* Uniform in 1..63: xorshift64, then the top 32 bits scaled to 0..62. */
static uint32_t next_interval(struct rec_thread *t)
{
    uint64_t x = t->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    t->rng = x;
    return 1 + (uint32_t)(((x >> 32) * 63) >> 32);
}

/* A thread's first call of an id (or its first call): a table, if it has
 * none, and an entry cut from the shared COUNTER_ENTRIES chunk. */
static __attribute__((noinline)) struct cutap_counter *counter_slow(struct rec_thread *t, uint32_t id)
{
    if (id >= CUTAP_MAX_IDS || atomic_load_explicit(&F.dead, memory_order_relaxed) || file_ensure())
        return NULL;
    if (CUTAP_UNLIKELY(!t->tid))
        thread_init(t);
    if (!t->tab) {
        void *m = mmap(NULL, TAB_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            return NULL;
        t->tab = m;
    }
    struct cutap_counter_entry *e = NULL;
    pthread_mutex_lock(&ent_lock);
    if (!ent_chunk || ent_next >= ENTRIES_PER_CHUNK) {
        ent_chunk = chunk_take(t, CUTAP_CHUNK_COUNTER_ENTRIES, 0);
        ent_next = 0;
    }
    if (ent_chunk)
        e = (struct cutap_counter_entry *)(ent_chunk + CUTAP_SLOT) + ent_next++;
    pthread_mutex_unlock(&ent_lock);
    if (!e)
        return NULL;
    e->tid = t->tid;
    e->id = id;
    clock_pair(&e->clock, &e->mono_ns);
    prctl(PR_GET_NAME, e->thread_name);
    __atomic_store_n(&e->magic, CUTAP_ENTRY_MAGIC, __ATOMIC_RELEASE);
    t->tab[id] = &e->c;
    return &e->c;
}

/* The thread's counter of an id; NULL when recording has stopped. A
 * table entry's bit 0 says that the counter's next calls are untimed
 * unless the countdown says otherwise (record_internal.h, the generated
 * counting fast paths). */
static inline struct cutap_counter *counter_of(struct rec_thread *t, uint32_t id)
{
    struct cutap_counter **tab = t->tab, *c;
    if (CUTAP_LIKELY(tab && (c = tab[id])))
        return (struct cutap_counter *)((uintptr_t)c & ~(uintptr_t)1);
    return counter_slow(t, id);
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

/* Before a timed call: a countdown that reached zero restarts; the first
 * call of an id in the process names it (the first calls are timed). */
static __attribute__((noinline)) void count_timed_begin(struct rec_thread *t, uint32_t id)
{
    if (!t->countdown)
        t->countdown = next_interval(t);
    name_id(id);
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
    c->errors += (unsigned)error;
    __atomic_store_n(&c->calls, c->calls + 1, __ATOMIC_RELEASE);
}

/* scratch: 0 for an untimed call; else the start time, bit 63 set for a
 * sample (the clocks are far from 0 and from 2^63 while a process runs). */
#define SCRATCH_SAMPLE (1ull << 63)
static int count_pre(cutap_call_t *call, void *ctx, uint64_t *scratch)
{
    (void)ctx;
    struct rec_thread *t = &cutap_rt;
    struct cutap_counter *c = counter_of(t, call->id);
    unsigned how = c ? count_is_timed(t, c) : 0;
    if (!how) {
        *scratch = 0;
        return CUTAP_PROCEED;
    }
    count_timed_begin(t, call->id);
    *scratch = cutap_rec_clock() | (how == TIMED_SAMPLE ? SCRATCH_SAMPLE : 0);
    return CUTAP_PROCEED;
}

static void count_post(cutap_call_t *call, void *ctx, uint64_t *scratch)
{
    (void)ctx;
    uint64_t s = *scratch, t1 = s ? cutap_rec_clock() : 0;
    struct cutap_counter *c = counter_of(&cutap_rt, call->id);
    if (!c) {
        lost_call();
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

uint64_t cutap_fp_sample_begin(uint32_t id)
{
    count_timed_begin(&cutap_rt, id);
    return cutap_rec_clock();
}

void cutap_fp_sample_end(uint32_t id, struct cutap_counter *c, uint64_t t0, int error)
{
    uint64_t t1 = cutap_rec_clock();
    count_timed_end(c, t1 - t0, TIMED_SAMPLE);
    count_call(c, error);
    count_retag(&cutap_rt, id, c);
}

/* --- fused path ------------------------------------------------------ */

/* When the recorder is the only client that wants a typed call, dispatch
 * comes here instead of running the callbacks: the same records, without
 * the callback machinery (the budget of issue #3 is 25 ns per call; the
 * callbacks alone cost more). tests/run.sh fused_path_same_records checks
 * that both paths write the same records and the same counters. */
_Atomic uint8_t cutap_fast_mask;

/* Counting mode, a timed call (how: count_is_timed's answer), or one that
 * cannot be counted (c NULL). */
static __attribute__((noinline)) uint64_t count_fast_timed(cutap_call_t *call, cutap_thunk_t thunk,
                                                            struct rec_thread *r, struct cutap_counter *c,
                                                            unsigned how)
{
    struct cutap_thread *t = &cutap_tls;
    uint64_t t0 = 0;
    if (c) {
        count_timed_begin(r, call->id);
        t0 = cutap_rec_clock();
    }
    t->depth++;
    t->current = call;
    uint64_t result = thunk(call->fn, call->args);
    uint64_t t1 = c ? cutap_rec_clock() : 0;
    t->depth--;
    t->current = call->parent;
    if (c) {
        count_timed_end(c, t1 - t0, how);
        count_call(c, cutap_result_is_error(call->id, result));
        count_retag(r, call->id, c);
    } else
        lost_call();
    return result;
}

static __attribute__((noinline)) uint64_t trace_fast(cutap_call_t *call, cutap_thunk_t thunk)
{
    struct cutap_thread *t = &cutap_tls;
    uint32_t id = call->id;
    struct cutap_rec_call *r = rec_begin(id, call->args, call->nargs, call->depth, 0);
    t->depth++;
    t->current = call;
    uint64_t result = thunk(call->fn, call->args);
    uint64_t t1 = cutap_rec_clock();
    t->depth--;
    t->current = call->parent;
    if (r)
        rec_end(r, id, call->args, result, 0, t1);
    return result;
}

/* Counting mode. An untimed call: counter, countdown, calls and errors;
 * no clock, no name, no division. */
static __attribute__((noinline)) uint64_t count_fast(cutap_call_t *call, cutap_thunk_t thunk)
{
    struct cutap_thread *t = &cutap_tls;
    struct rec_thread *r = &cutap_rt;
    struct cutap_counter *c = counter_of(r, call->id);
    unsigned how;
    if (CUTAP_UNLIKELY(!c || (how = count_is_timed(r, c))))
        return count_fast_timed(call, thunk, r, c, c ? how : 0);
    t->depth++;
    t->current = call;
    uint64_t result = thunk(call->fn, call->args);
    t->depth--;
    t->current = call->parent;
    count_call(c, cutap_result_is_error(call->id, result));
    return result;
}

uint64_t cutap_record_fast(cutap_call_t *call, cutap_thunk_t thunk)
{
    return F.counts || CUTAP_UNLIKELY(!atomic_load_explicit(&cap_on, memory_order_relaxed)) ? count_fast(call, thunk)
                                                                                          : trace_fast(call, thunk);
}

/* --- capture control ----------------------------------------------- */

void cutap_capture_update(uint32_t set, uint32_t clear)
{
    if (F.counts)
        return;
    pthread_mutex_lock(&cap_lock);
    uint32_t old = atomic_load(&cutap_cap_block);
    uint32_t now = ((old | set) & ~clear) | (old & CB_FROZEN);
    atomic_store(&cutap_cap_block, now);
    int on = !now, was = atomic_load(&cap_on);
    if (on != was) {
        atomic_store(&cap_on, on);
        if (on) {
            ranges_entered++;
            if (F.hdr)
                __atomic_store_n(&F.hdr->capture_ranges, ranges_entered, __ATOMIC_RELAXED);
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
}

static struct {
    _Atomic int done;
    uint32_t reason, id;
    uint64_t result, clock;
} FZ;

/* The freeze fields, once the file exists. */
static void freeze_write(struct cutap_file_header *h)
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
    if (F.counts)
        return;
    int expect = 0;
    if (!atomic_compare_exchange_strong(&FZ.done, &expect, 1))
        return;
    FZ.reason = reason;
    FZ.id = id;
    FZ.result = result;
    FZ.clock = cutap_rec_clock();
    freeze_write(F.hdr);
    cutap_capture_update(CB_FROZEN, 0);
}

uint32_t cutap_capture_ranges(void)
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
    stop(CUTAP_STOP_OTHER, EPERM,
         "the process entered seccomp strict mode (no system call but read, write and exit): nothing more is recorded");
}

static void at_exit(void)
{
    struct cutap_file_header *h = F.hdr;
    if (__atomic_load_n(&cutap_tsc_forbidden, __ATOMIC_ACQUIRE) == 2) {
        /* seccomp strict: no system call (the registry's would be one) */
        if (h)
            __atomic_or_fetch(&h->flags, CUTAP_FILE_CLOSED, __ATOMIC_RELEASE);
        return;
    }
    /* a file no reader will find (closed by the program, then removed):
     * its losses are said through the registry */
    uint64_t gone = h && h->stop_reason == CUTAP_STOP_FILE ? h->lost_calls : 0;
    cutap_reg_exit(atomic_load(&lost_nofile) + gone);
    if (!h)
        return;
    clock_pair(&h->end_clock, &h->end_mono_ns);
    __atomic_or_fetch(&h->flags, CUTAP_FILE_CLOSED, __ATOMIC_RELEASE);
}

/* A forked child writes its own file: the parent's mappings are shared
 * with the parent and must never see the child's records. */
static void child_after_fork(void)
{
    for (unsigned s = 0; s < MAX_SEGS; s++) {
        char *b = atomic_load(&F.seg[s]);
        if (b)
            munmap(b, seg_chunks(s) * F.csize);
        atomic_store(&F.seg[s], NULL);
    }
    if (F.hdr)
        munmap(F.hdr, CUTAP_HEADER_SIZE);
    F.hdr = NULL;
    cutap_fd_close(&F.file);   /* the parent's, inherited: only if still ours */
    atomic_store(&F.next_chunk, 0);
    atomic_store(&F.dead, 0);
    /* no helper in the child (only the forking thread is): made again at
     * the child's first chunk */
    atomic_store(&PF.from, 0);
    atomic_store(&PF.done, 0);
    atomic_store(&PF.kick, 0);
    atomic_store(&PF.state, 0);
    atomic_store(&lost_nofile, 0);
    pthread_mutex_init(&grow_lock, NULL);
    for (unsigned i = 0; i < CUTAP_MAX_IDS; i++)
        atomic_store_explicit(&cutap_named[i], 0, memory_order_relaxed);
    for (unsigned i = 0; i < CUTAP_LAYER_COUNT; i++)
        atomic_store_explicit(&layer_noted[i], 0, memory_order_relaxed);
    for (unsigned i = 0; i < MAX_NOTED_OBJECTS; i++)
        atomic_store_explicit(&object_noted[i], 0, memory_order_relaxed);
    for (unsigned i = 0; i < FUNC_SLOTS; i++)
        atomic_store_explicit(&funcs[i], 0, memory_order_relaxed);
    atomic_store(&funcs_full, 0);
    /* The forking thread is the child's only thread: its chunk pointers
     * and counters still point into the unmapped parent segments, and so
     * do the tails and the entry chunk. */
    if (cutap_rt.tab)
        munmap(cutap_rt.tab, TAB_BYTES);
    memset(&cutap_rt, 0, sizeof cutap_rt);
    ntails = 0;
    pthread_mutex_init(&tail_lock, NULL);
    ent_chunk = NULL;
    ent_next = 0;
    pthread_mutex_init(&ent_lock, NULL);
    memset(plans, 0, sizeof plans);
    /* the ring: the child maps its own */
    if (R.base)
        munmap(R.base, (size_t)R.n * F.csize);
    R.base = NULL;
    if (R.state) {
        for (uint32_t j = 0; j < R.n; j++)
            atomic_store_explicit(&R.state[j], RS_CLEAN, memory_order_relaxed);
        memset(R.next_pin, 0, (size_t)R.n * sizeof *R.next_pin);
    }
    atomic_store(&R.cursor, 0);
    atomic_store(&R.takes, 0);
    atomic_store(&R.populated, 0);
    atomic_store(&R.warned, 0);
    meta_chunk = NULL;
    meta_pos = 0;
    atomic_store(&meta_seq, 0);
    pthread_mutex_init(&meta_lock, NULL);
    pthread_mutex_init(&cap_lock, NULL);
    /* a frozen parent's child is frozen too; its own capture starts again */
    ranges_entered = atomic_load(&cap_on) ? 1 : 0;
    if (atomic_load(&FZ.done))
        FZ.clock = cutap_rec_clock();
    cutap_capture_child();
    atomic_store(&F.opened, 0);
}

/* CUTAP_RING=BYTES (cutap trace --ring): a ring of that size, in chunks
 * of SIZE/64 rounded down to a power of two, 16 to 256 KiB (a thread
 * holds at least one: small rings keep many chunks). Returns -1 after a
 * warning (nothing is recorded). */
static int ring_setup(void)
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
    R.next_pin = st;
    R.state = (_Atomic uint8_t *)((char *)st + (size_t)n * sizeof(uint32_t));
    R.n = n;
    F.csize = cs;
    return 0;
}

void cutap_record_start(const char *dir, int counts, const char *filter)
{
    if (strlen(dir) >= sizeof F.dir) {
        cutap_warn("trace directory name too long");
        return;
    }
    /* Made absolute now, and passed on so: the process or its children
     * may change directory before their first call. */
    char cwd[PATH_MAX];
    if (dir[0] == '/') {
        snprintf(F.dir, sizeof F.dir, "%s", dir);
    } else if ((errno = 0, getcwd(cwd, sizeof cwd)) && (errno = ENAMETOOLONG, strlen(cwd) + strlen(dir) + 2 <= sizeof F.dir)) {
        size_t a = strlen(cwd), b = strlen(dir);
        memcpy(F.dir, cwd, a);
        F.dir[a] = '/';
        memcpy(F.dir + a + 1, dir, b + 1);
        setenv(counts ? "CUTAP_COUNT" : "CUTAP_TRACE", F.dir, 1);
    } else {
        /* Kept relative, it would name another directory once the
         * program changes directory: nothing is recorded. */
        cutap_warn("trace directory %s cannot be made absolute (%s); nothing is recorded", dir, strerror(errno));
        F.dir[0] = 0;
        return;
    }
    F.counts = counts;
    if (counts) {
        /* which calls are timed: sampled (the default) or all */
        const char *tm = getenv("CUTAP_STAT_TIMING");
        if (tm && *tm && strcmp(tm, "all") && strcmp(tm, "sample")) {
            cutap_warn("invalid CUTAP_STAT_TIMING '%s': takes all or sample; nothing is recorded", tm);
            return;
        }
        time_all = tm && !strcmp(tm, "all");
        const char *sd = getenv("CUTAP_STAT_SEED"), *sn = getenv("CUTAP_STAT_SLOW_NS");
        if ((fixed_seed = sd && *sd))
            seed = strtoull(sd, NULL, 0);
        if (sn && *sn)
            slow_ns = strtoull(sn, NULL, 0);
    }
    const char *pf = getenv("CUTAP_PREFAULT");
    PF.off = pf && !strcmp(pf, "0");
    const char *kn = getenv("CUTAP_KERNEL_NAMES");
    cutap_no_kernel_names = kn && !strcmp(kn, "0");
    cutap_rec_clock_choose();
    if (!counts && ring_setup())
        return;
    /* capture control's clients come first (their pre callbacks run
     * before the recorder's, their post callbacks after) */
    int block = counts ? 0 : cutap_capture_start();
    if (block < 0)
        return;
    atomic_store(&cutap_cap_block, (uint32_t)block);
    atomic_store(&cap_on, !block);
    ranges_entered = !block && cutap_capture_modes() ? 1 : 0;
    client = counts ? cutap_register("count", count_pre, count_post, NULL)
                    : cutap_register("trace", trace_pre, trace_post, NULL);
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
    if (!counts)
        stack_setup();
    pthread_atfork(NULL, NULL, child_after_fork);
    atexit(at_exit);
    have_exit_key = !pthread_key_create(&exit_key, thread_exit);
    /* From here on, warnings go to the registry of the directory (made
     * when missing), never to the program's stderr. */
    snprintf(cutap_rec_dir, PATH_MAX, "%s", F.dir);
    cutap_warn_quiet = 1;
}

char cutap_rec_dir[PATH_MAX];

int cutap_rec_client(void)
{
    return client;
}
