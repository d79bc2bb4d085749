/* The trace file (writer_internal.h): made at the first record, its
 * header, its growth by segments (every block backed before it is mapped:
 * a full disk stops recording, never a SIGBUS), the page helper that
 * populates chunks off the program's threads, and stopping when the file
 * cannot go on. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "writer_internal.h"

int cutap_rec_tsc;   /* 1: record clock is the TSC */

/* The process's trace file (writer_internal.h). Replaced in a forked child. */
struct rec_file rec_file = {.file = {.fd = -1}, .csize = CHUNK_SIZE};

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
 * calls.
 * Where it runs (issue #27): a process pinned to one core (MPI's
 * --bind-to core, taskset) would have the helper it makes inherit that
 * core and take its time from the program's calls. So by default
 * (CUTAP_PAGES=away) the helper moves to the CPUs the program's thread
 * may not use, of the same NUMA nodes and not kept apart by the kernel,
 * where the system lets it. Where the thread may use one CPU only and the
 * helper can go nowhere else (no CPU left, or a cpuset refuses the
 * others), no helper runs: it would take that CPU's time from the
 * program's calls, and the takers populate their chunks themselves, which
 * measured the same on one core (bench/gpu/overhead trace0 against
 * tsame). A thread allowed several CPUs keeps its helper among them (the
 * scheduler finds it an idle one). Not SCHED_IDLE by default: the helper holds the process's
 * mmap lock while it populates, and starved on a busy CPU it would hold
 * up a program thread that maps or unmaps memory (CUTAP_PAGES=idle: the
 * same CPUs, SCHED_IDLE, for measuring). CUTAP_PAGES=same keeps the
 * thread's affinity (as before); CUTAP_PAGES=off (or CUTAP_PREFAULT=0)
 * makes no helper. */
#define PF_AHEAD 4
static struct {
    _Atomic uint64_t from;        /* chunks from this one ... */
    _Atomic uint64_t done;        /* ... to below this one are populated */
    _Atomic uint32_t kick;        /* futex word: bumped to wake the helper */
    _Atomic int state;            /* 0 not made, 1 running, 2 being made, -1 none (off, failed, stopped) */
    int off;                      /* CUTAP_PAGES=off, CUTAP_PREFAULT=0 */
    int away, idle;               /* CUTAP_PAGES: other CPUs, SCHED_IDLE */
} PF = {.away = 1};

/* The CPUs a sysfs list names ("0-3,8,10-11"); -1 when it cannot be read. */
static int read_cpulist(const char *path, cpu_set_t *set)
{
    char buf[4096];
    CPU_ZERO(set);
    if (cutap_read_small(path, buf, sizeof buf) < 0)
        return -1;
    for (char *p = buf, *e;; p = e + 1) {
        long a = strtol(p, &e, 10), b = a;
        if (e == p)
            break;
        if (*e == '-' && (b = strtol(e + 1, &p, 10), p != e + 1))
            e = p;
        for (long i = a; i <= b && i >= 0 && i < CPU_SETSIZE; i++)
            CPU_SET(i, set);
        if (*e != ',')
            break;
    }
    return 0;
}

/* The helper's place (see above), set by the helper itself: the CPUs the
 * thread that made it may not use, but only those of its own NUMA nodes
 * (the pages the helper populates are allocated on its node: the
 * program's records must not land in another socket's memory) and none
 * the kernel keeps apart (isolcpus, nohz_full: reserved for what their
 * owner puts there). None left: it stays, unless the thread may use one
 * CPU only (returns 0: no helper then). */
static int pf_place(void)
{
    if (PF.idle) {
        struct sched_param sp = {0};
        pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);   /* refused: as it was */
    }
    cpu_set_t mine, other, apart, near, node;
    if (!PF.away || sched_getaffinity(0, sizeof mine, &mine))
        return 1;
    long n = sysconf(_SC_NPROCESSORS_CONF);
    CPU_ZERO(&other);
    for (long i = 0; i < n && i < CPU_SETSIZE; i++)
        if (!CPU_ISSET(i, &mine))
            CPU_SET(i, &other);
    static const char *const kept_apart[] = {"/sys/devices/system/cpu/isolated", "/sys/devices/system/cpu/nohz_full"};
    for (unsigned k = 0; k < 2; k++)
        if (!read_cpulist(kept_apart[k], &apart))
            for (long i = 0; i < CPU_SETSIZE; i++)
                if (CPU_ISSET(i, &apart))
                    CPU_CLR(i, &other);
    cpu_set_t nodes;
    if (!read_cpulist("/sys/devices/system/node/online", &nodes)) {
        CPU_ZERO(&near);
        for (long k = 0; k < CPU_SETSIZE; k++) {
            char path[64];
            snprintf(path, sizeof path, "/sys/devices/system/node/node%ld/cpulist", k);
            if (!CPU_ISSET(k, &nodes) || read_cpulist(path, &node))
                continue;
            cpu_set_t both;
            CPU_AND(&both, &node, &mine);
            if (CPU_COUNT(&both))   /* a node of the program's CPUs: its other CPUs are near */
                for (long i = 0; i < CPU_SETSIZE; i++)
                    if (CPU_ISSET(i, &node) && CPU_ISSET(i, &other))
                        CPU_SET(i, &near);
        }
        other = near;
    }
    /* the kernel keeps the cpuset's CPUs of these; none: refused, stays */
    int moved = CPU_COUNT(&other) && !sched_setaffinity(0, sizeof other, &other);
    return moved || CPU_COUNT(&mine) > 1;
}

/* Calls not recorded while the process has no trace file (it could not be
 * made); with a file, the header's lost_calls counts them. */
static _Atomic uint64_t lost_nofile;

/* Recording stops for this process (the program goes on): the header says
 * why and when, cutap's registry too, and every later call is counted as
 * lost. Called on failure paths only. */
void rec_stop(int reason, int err, const char *what)
{
    int expect = 0;
    if (!atomic_compare_exchange_strong(&rec_file.dead, &expect, 1))
        return;
    struct cutap_file_header *h = rec_file.hdr;
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
__attribute__((noinline, cold)) void *rec_lost_call(void)
{
    struct cutap_file_header *h = rec_file.hdr;
    if (h)
        __atomic_fetch_add(&h->lost_calls, 1, __ATOMIC_RELAXED);
    else
        atomic_fetch_add_explicit(&lost_nofile, 1, memory_order_relaxed);
    return NULL;
}

/* --- file ------------------------------------------------------------ */

/* A pair whose two reads are close: the clock read between two monotonic
 * reads at most 250 ns apart (else the tightest of 16 tries), the
 * monotonic time their middle. The header's calibration pairs give the
 * tick rate (and counting mode's 1 us threshold) before any other pair
 * exists: a thread preempted between the two reads of a plain pair made
 * the rate wrong by the length of the preemption (milliseconds on a
 * loaded host, every call then timed). The pairs of chunk headers and
 * counter entries, from which `trace --print` takes the rate while the
 * program runs, are taken so too (they were plain: under load --print's
 * durations differed from dump's by 0.2 %, trace_print); a chunk is taken
 * every few thousand calls, beside a prctl and an madvise. Only where the
 * clock is the time-stamp counter: a clock made of CLOCK_MONOTONIC (ns, or
 * turned into ticks where the counter was forbidden) needs one try, and
 * there a slow clock_gettime (a host without a usable TSC: a system call)
 * would take all 16. */
void rec_clock_pair(uint64_t *clk, uint64_t *mono)
{
    int rclk = __atomic_load_n(&cutap_rclk, __ATOMIC_RELAXED);
    int tries = rclk == CUTAP_RCLK_TSC || rclk == CUTAP_RCLK_DIAG ? 16 : 1;
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < tries && best > 250; i++) {
        uint64_t m0 = cutap_now_ns(), c = cutap_rec_clock_for_pair(), m1 = cutap_now_ns();
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
    h->chunk_size = rec_file.csize;
    h->ring_chunks = rec_ring.n;
    h->capture = cutap_capture_modes();
    h->flags = rec_file.counts ? CUTAP_FILE_COUNTS : 0;
    h->clock = cutap_rec_tsc ? CUTAP_CLOCK_TSC : CUTAP_CLOCK_NS;
    h->pid = (int32_t)getpid();
    h->ppid = (int32_t)getppid();
    h->rank = cutap_rec_rank();
    h->local_rank = env_int(local_vars);
    h->start_realtime_ns = cutap_clock_ns(CLOCK_REALTIME);
    rec_clock_pair(&h->start_clock, &h->start_mono_ns);
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
        rec_clock_pair(&c, &m);
        h->calib_clock = c;
        h->calib_mono_ns = m;
        cutap_slow_ticks = (uint64_t)((double)(c - h->start_clock) * (double)rec_slow_ns / (double)(m - h->start_mono_ns));
    } else {
        cutap_slow_ticks = rec_slow_ns;
    }
    /* 0: the mean of any timed call reaches it, so after its first
     * (always timed) call every call of an id is timed. */
    if (rec_time_all)
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
    mkdir(rec_file.dir, 0700);   /* the CLI makes it; plain CUTAP_TRACE users may not */
    cutap_reg_attach(rec_file.dir, 1);
    int fd = -1;
    for (int n = 0; n < 1000 && fd < 0; n++) {
        if (n)
            snprintf(path, sizeof path, "%s/%s.%d.%d%s", rec_file.dir, host, (int)getpid(), n, CUTAP_FILE_SUFFIX);
        else
            snprintf(path, sizeof path, "%s/%s.%d%s", rec_file.dir, host, (int)getpid(), CUTAP_FILE_SUFFIX);
        fd = cutap_fd_open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        int e = errno;
        cutap_reg_file(e);
        cutap_warn("cannot create a trace file in %s: %s; nothing is recorded", rec_file.dir, strerror(e));
        return -1;
    }
    /* The header page is backed (allocated, or written) before it is
     * mapped: a store into an unbacked page of a full filesystem would be
     * a SIGBUS in the program. */
    int rc = cutap_back_range(fd, 0, CUTAP_HEADER_SIZE);
    if (rc || (rec_file.hdr = mmap(NULL, CUTAP_HEADER_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
        int e = rc ? rc : errno;
        rec_file.hdr = NULL;
        close(fd);
        unlink(path);
        cutap_reg_file(e);
        cutap_warn("cannot make trace file %s: %s; nothing is recorded", path, strerror(e));
        return -1;
    }
    rec_file.file.fd = fd;
    cutap_fd_remember(&rec_file.file);
    if (cutap_rec_tsc && __atomic_load_n(&cutap_tsc_forbidden, __ATOMIC_ACQUIRE))
        cutap_rec_clock_choose();   /* forbidden before any record: a file in ns */
    memcpy(rec_file.path, path, sizeof rec_file.path);
    fill_header(rec_file.hdr);
    cutap_reg_file(0);
    cutap_log_debug("tracing to %s", path);
    if (rec_ring.n) {
        /* the whole ring is backed and mapped now: it never grows */
        size_t rs = (size_t)rec_ring.n * rec_file.csize;
        int rrc = cutap_back_range(fd, CUTAP_HEADER_SIZE, (off_t)rs);
        void *m = rrc ? MAP_FAILED : mmap(NULL, rs, PROT_READ | PROT_WRITE, MAP_SHARED, fd, CUTAP_HEADER_SIZE);
        if (m == MAP_FAILED) {
            int e = rrc ? rrc : errno;
            rec_stop(rrc ? CUTAP_STOP_SPACE : CUTAP_STOP_MAP, e, "cannot make the ring");
        } else
            rec_ring.base = m;
    }
    /* a freeze asked for before this process made its file (cutap freeze,
     * the signal to cutap trace): it starts frozen */
    char fz[PATH_MAX + 32];
    snprintf(fz, sizeof fz, "%s/%s", rec_file.dir, CUTAP_FREEZE_FILE);
    if (!access(fz, F_OK))
        cutap_rec_freeze(CUTAP_FREEZE_REQUEST, 0, 0);
    rec_file.hdr->capture_ranges = rec_capture_ranges();
    rec_freeze_write(rec_file.hdr);
    cutap_capture_file_made(rec_file.hdr);
    rec_gpu_file_made(rec_file.hdr);
    return 0;
}

static char *chunk_addr_mapped(uint64_t i);

static void *pf_main(void *arg)
{
    (void)arg;
    prctl(PR_SET_NAME, "cutap-pages");
    if (!pf_place())
        goto out;   /* nowhere but the program's one CPU: the takers populate */
    for (;;) {
        uint32_t seen = atomic_load(&PF.kick);
        if (rec_ring.n) {
            if (atomic_load_explicit(&rec_file.dead, memory_order_relaxed))
                goto out;
            while (rec_ring_prepare()) {
            }
            syscall(SYS_futex, &PF.kick, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
            continue;
        }
        for (;;) {
            if (atomic_load_explicit(&rec_file.dead, memory_order_relaxed))
                goto out;
            uint64_t d = atomic_load(&PF.done), next = atomic_load(&rec_file.next_chunk);
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
            madvise(c, rec_file.csize, MADV_POPULATE_WRITE);
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
int rec_pf_populated(uint64_t i)
{
    return i >= atomic_load_explicit(&PF.from, memory_order_acquire) &&
           i < atomic_load_explicit(&PF.done, memory_order_acquire);
}

/* After chunk i was taken: the helper, made if need be, told to go on. */
void rec_pf_kick(uint64_t i)
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
    if (st == 1 && (rec_ring.n || atomic_load_explicit(&PF.done, memory_order_relaxed) < i + 1 + PF_AHEAD)) {
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
    char *base = s < MAX_SEGS ? atomic_load_explicit(&rec_file.seg[s], memory_order_acquire) : NULL;
    return base ? base + (i - first) * rec_file.csize : NULL;
}

/* A descriptor of the trace file to extend and map it with (the caller
 * closes it), or -1 with *why set. The program may have closed ours and
 * got its number back for a file of its own: the number is never trusted
 * alone (a private duplicate, checked to name our file, is used), and when
 * it is no longer ours the file is opened again by its path, which must
 * still name the same file. Under grow_lock. */
static int file_fd(int *why)
{
    int d = cutap_fd_dup_checked(&rec_file.file);
    if (d >= 0)
        return d;
    struct cutap_fd again = {.fd = cutap_fd_open(rec_file.path, O_RDWR | O_NOFOLLOW, 0)};
    struct stat st;
    if (again.fd >= 0 && !fstat(again.fd, &st) && st.st_dev == rec_file.file.dev && st.st_ino == rec_file.file.ino) {
        rec_file.file.fd = again.fd;   /* the old number is the program's now: forgotten, not closed */
        d = cutap_fd_dup_checked(&rec_file.file);
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
char *rec_chunk_addr(uint64_t i, int *why)
{
    uint64_t first;
    unsigned s = seg_of(i, &first);
    if (s >= MAX_SEGS) {
        errno = EFBIG;
        *why = CUTAP_STOP_LIMIT;
        return NULL;
    }
    size_t seg_size = seg_chunks(s) * rec_file.csize;
    char *base = atomic_load_explicit(&rec_file.seg[s], memory_order_acquire);
    if (!base) {
        pthread_mutex_lock(&grow_lock);
        cutap_tls.internal++;
        base = atomic_load(&rec_file.seg[s]);
        /* (in a ring file, the growing chunks come after the ring) */
        off_t off = CUTAP_HEADER_SIZE + (off_t)((rec_ring.n + first) * rec_file.csize);
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
                atomic_store_explicit(&rec_file.seg[s], base, memory_order_release);
            if (fd >= 0)
                close(fd);
            errno = rc;
        }
        cutap_tls.internal--;
        pthread_mutex_unlock(&grow_lock);
        if (!base)
            return NULL;
    }
    return base + (i - first) * rec_file.csize;
}

/* The file is made when the process records its first call: a process
 * that never calls CUDA (a shell, a compiler) leaves no file. */
int rec_file_ensure(void)
{
    if (CUTAP_LIKELY(atomic_load_explicit(&rec_file.opened, memory_order_acquire)))
        return 0;
    pthread_mutex_lock(&grow_lock);
    cutap_tls.internal++;
    if (!atomic_load(&rec_file.opened)) {
        if (file_open())
            atomic_store(&rec_file.dead, 1);
        atomic_store_explicit(&rec_file.opened, 1, memory_order_release);
    }
    cutap_tls.internal--;
    pthread_mutex_unlock(&grow_lock);
    return atomic_load(&rec_file.dead) ? -1 : 0;
}

void rec_pf_config(void)
{
    const char *pf = getenv("CUTAP_PREFAULT"), *pg = getenv("CUTAP_PAGES");
    PF.off = pf && !strcmp(pf, "0");
    PF.away = 1;
    PF.idle = 0;
    if (!pg || !*pg || !strcmp(pg, "away"))
        return;
    if (!strcmp(pg, "off"))
        PF.off = 1;
    else if (!strcmp(pg, "same"))
        PF.away = 0;
    else if (!strcmp(pg, "idle"))
        PF.away = 0, PF.idle = 1;
    else
        cutap_warn("CUTAP_PAGES=%s: takes away, idle, same or off; away is used", pg);
}

/* A forked child writes its own file: the parent's mappings are shared
 * with the parent and must never see the child's records. */
void rec_file_after_fork(void)
{
    for (unsigned s = 0; s < MAX_SEGS; s++) {
        char *b = atomic_load(&rec_file.seg[s]);
        if (b)
            munmap(b, seg_chunks(s) * rec_file.csize);
        atomic_store(&rec_file.seg[s], NULL);
    }
    if (rec_file.hdr)
        munmap(rec_file.hdr, CUTAP_HEADER_SIZE);
    rec_file.hdr = NULL;
    cutap_fd_close(&rec_file.file);   /* the parent's, inherited: only if still ours */
    atomic_store(&rec_file.next_chunk, 0);
    atomic_store(&rec_file.dead, 0);
    atomic_store(&rec_file.opened, 0);
    /* no helper in the child (only the forking thread is): made again at
     * the child's first chunk */
    atomic_store(&PF.from, 0);
    atomic_store(&PF.done, 0);
    atomic_store(&PF.kick, 0);
    atomic_store(&PF.state, 0);
    atomic_store(&lost_nofile, 0);
    pthread_mutex_init(&grow_lock, NULL);
}

void rec_file_at_exit(void)
{
    struct cutap_file_header *h = rec_file.hdr;
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
    rec_clock_pair(&h->end_clock, &h->end_mono_ns);
    __atomic_or_fetch(&h->flags, CUTAP_FILE_CLOSED, __ATOMIC_RELEASE);
}
