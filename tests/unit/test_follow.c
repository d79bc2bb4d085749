/* The follower of cutap trace --print (cli/read/follow.c, linked as the
 * command links it) on a trace file written here a step at a time, as the
 * follower may find it: per thread, its calls are handed in the order of
 * the thread's runs (as cutap dump orders them), also where a pass over
 * the file reads a thread's later run (higher in the file) before the rest
 * of an earlier run it read nothing or a part of (lower in the file: the
 * thread filled it while the pass went on), and a run never found does not
 * hold the thread's calls back for good; a call whose id another thread
 * names later (ID_NAME meta) is shown with that name, not another's, and
 * one whose id is never named is shown all the same.
 *
 * A pass is made here of the state it found: the earlier chunk as the pass
 * read it (empty, or a part of its run), the later one as the pass read it
 * after (the thread gone on into it); the next step writes the earlier
 * chunk whole, as the next pass finds it. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cutap_format.h"
#include "trace_read.h"
#include "unit.h"

#define CS 4096u   /* chunk size: 63 record slots */
#define TID_A 100  /* the thread whose runs lie out of order */
#define TID_B 200  /* an exited thread whose chunk's tail passes to A */

struct fol_file {
    char dir[64], path[128];
    int fd;
};

struct seen {           /* the calls handed, in order */
    int32_t tid[64];
    uint64_t t0[64];
    char name[64][24];
    unsigned n;
};

static void on_call(void *arg, const struct trace *tr, const struct tr_follow_out *o)
{
    struct seen *s = arg;
    if (o->kind != TR_FOLLOW_CALL || s->n >= 64)
        return;
    s->tid[s->n] = tr->threads[o->call.thread].tid;
    snprintf(s->name[s->n], sizeof s->name[s->n], "%s", tr->names[o->call.name].name);
    s->t0[s->n++] = o->call.rec->t0;
}

/* The t0s handed for tid, in order, into out; their count. */
static unsigned calls_of(const struct seen *s, int32_t tid, uint64_t *out)
{
    unsigned n = 0;
    for (unsigned i = 0; i < s->n; i++)
        if (s->tid[i] == tid)
            out[n++] = s->t0[i];
    return n;
}

static int fol_make(struct fol_file *ff, unsigned nchunks)
{
    snprintf(ff->dir, sizeof ff->dir, "/tmp/cutap-unit-follow.XXXXXX");
    if (!mkdtemp(ff->dir))
        return -1;
    snprintf(ff->path, sizeof ff->path, "%s/host.%d.cutap", ff->dir, (int)getpid());
    ff->fd = open(ff->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (ff->fd < 0)
        return -1;
    static struct cutap_file_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, CUTAP_FILE_MAGIC, 8);
    h.version = CUTAP_FILE_VERSION;
    h.header_size = CUTAP_HEADER_SIZE;
    h.chunk_size = CS;
    h.clock = CUTAP_CLOCK_NS;
    h.pid = (int32_t)getpid();   /* a process that runs: the follower waits for what it writes */
    h.ppid = 1;
    h.rank = h.local_rank = -1;
    h.start_realtime_ns = 1700000000000000000ull;
    h.start_mono_ns = h.start_clock = 1;
    h.calib_clock = h.calib_mono_ns = 2;
    snprintf(h.host, sizeof h.host, "host");
    snprintf(h.cutap_version, sizeof h.cutap_version, "unit");
    if (pwrite(ff->fd, &h, sizeof h, 0) != (ssize_t)sizeof h || ftruncate(ff->fd, CUTAP_HEADER_SIZE + (off_t)nchunks * CS))
        return -1;
    return 0;
}

static void fol_remove(struct fol_file *ff)
{
    if (ff->fd >= 0)
        close(ff->fd);
    unlink(ff->path);
    rmdir(ff->dir);
}

static void put(struct fol_file *ff, unsigned ci, unsigned slot, const void *b, size_t n)
{
    off_t at = CUTAP_HEADER_SIZE + (off_t)ci * CS + (off_t)slot * CUTAP_SLOT;
    CHECK(pwrite(ff->fd, b, n, at) == (ssize_t)n);
}

static void chunk_hdr(struct fol_file *ff, unsigned ci, int32_t tid, uint32_t seq, const char *name)
{
    struct cutap_chunk_header h = {.type = CUTAP_CHUNK_RECORDS, .tid = tid, .seq = seq, .clock = 3, .mono_ns = 3,
                                   .take = ci + 1};
    snprintf(h.thread_name, sizeof h.thread_name, "%s", name);
    h.magic = CUTAP_CHUNK_MAGIC;
    put(ff, ci, 0, &h, sizeof h);
}

/* A call of id begun at t0 (the calls told apart by it), done at t0 + 1. */
static void call_id(struct fol_file *ff, unsigned ci, unsigned slot, uint32_t id, uint64_t t0, uint16_t depth)
{
    struct cutap_rec_call r = {.kind = CUTAP_REC_CALL, .flags = CUTAP_RF_DONE, .nslots = 1, .id = id,
                               .t0 = t0, .t1 = t0 + 1, .depth = depth};
    put(ff, ci, slot, &r, sizeof r);
}

static void call_at(struct fol_file *ff, unsigned ci, unsigned slot, uint64_t t0, uint16_t depth)
{
    call_id(ff, ci, slot, 1, t0, depth);
}

/* ID_NAME meta: id is name (a driver function). */
static void id_name(struct fol_file *ff, unsigned ci, unsigned slot, uint32_t id, const char *name)
{
    struct cutap_rec_meta m = {.kind = CUTAP_REC_META, .sub = CUTAP_META_ID_NAME, .nslots = 1, .aux = id, .clock = 3};
    snprintf(m.text, sizeof m.text, "%s", name);
    put(ff, ci, slot, &m, sizeof m);
}

/* THREAD meta: the rest of chunk ci is tid's run number run. */
static void thread_meta(struct fol_file *ff, unsigned ci, unsigned slot, int32_t tid, uint64_t run, const char *name)
{
    struct cutap_rec_meta m = {.kind = CUTAP_REC_META, .sub = CUTAP_META_THREAD, .nslots = 1, .aux = (uint32_t)tid,
                               .key = run, .clock = 3};
    snprintf(m.text, sizeof m.text, "%s", name);
    put(ff, ci, slot, &m, sizeof m);
}

/* What the order cases write first: A's run 0 in chunk 0 (the name of
 * the id of every call, a call, then a call whose nested call went into
 * A's next chunk, run 1: chunk 1), and B's chunk 2, whose tail became A's
 * run 2 when B exited (THREAD meta). */
static void runs_0_and_2(struct fol_file *ff)
{
    chunk_hdr(ff, 0, TID_A, 0, "worker");
    id_name(ff, 0, 1, 1, "cuCtxGetCurrent");
    call_at(ff, 0, 2, 10, 0);
    call_at(ff, 0, 3, 20, 0);   /* (ends at 21 in this file; what matters is where it begins) */
    chunk_hdr(ff, 2, TID_B, 0, "other");
    call_at(ff, 2, 1, 5, 0);
    thread_meta(ff, 2, 2, TID_A, 2, "worker");
    call_at(ff, 2, 3, 70, 0);
    call_at(ff, 2, 4, 80, 0);
}

/* Polls until nothing more is read (the last one final: everything held handed). */
static void poll_out(struct tr_follow *f, struct seen *s)
{
    for (int i = 0; i < 8 && tr_follow_poll(f, 0, on_call, s); i++) {
    }
    for (int i = 0; i < 8 && tr_follow_poll(f, 1, on_call, s); i++) {
    }
}

static const uint64_t want_a[] = {10, 20, 30, 40, 50, 70, 80};   /* A's calls as dump orders them */

static void check_a(const struct seen *s)
{
    uint64_t got[64];
    unsigned n = calls_of(s, TID_A, got);
    CHECK_INT(n, sizeof want_a / sizeof *want_a);
    for (unsigned i = 0; i < n && i < sizeof want_a / sizeof *want_a; i++)
        if (got[i] != want_a[i]) {
            CHECK_INT(got[i], want_a[i]);   /* (the first that differs) */
            break;
        }
    CHECK_INT(calls_of(s, TID_B, got), 1);
}

/* The pass read chunk 1 before A took it (nothing there), then chunk 2
 * after A had filled chunk 1 and gone on into B's tail. */
TESTCASE(earlier_run_unread)
{
    struct fol_file ff = {.fd = -1};
    CHECK(!fol_make(&ff, 3));
    runs_0_and_2(&ff);
    struct tr_follow *f = tr_follow_open(ff.dir, 0);
    struct seen s = {0};
    tr_follow_poll(f, 0, on_call, &s);
    uint64_t got[64];
    unsigned n = calls_of(&s, TID_A, got);
    for (unsigned i = 0; i < n; i++)
        CHECK(got[i] < 30);   /* nothing of run 2 before run 1 is read */
    chunk_hdr(&ff, 1, TID_A, 1, "worker");
    call_at(&ff, 1, 1, 30, 1);   /* nested in 20 */
    call_at(&ff, 1, 2, 40, 0);
    call_at(&ff, 1, 3, 50, 0);
    poll_out(f, &s);
    check_a(&s);
    tr_follow_close(f);
    fol_remove(&ff);
}

/* The pass read a part of run 1 (chunk 1), then chunk 2 after A had
 * finished run 1 and gone on. */
TESTCASE(earlier_run_read_in_part)
{
    struct fol_file ff = {.fd = -1};
    CHECK(!fol_make(&ff, 3));
    runs_0_and_2(&ff);
    chunk_hdr(&ff, 1, TID_A, 1, "worker");
    call_at(&ff, 1, 1, 30, 1);
    call_at(&ff, 1, 2, 40, 0);
    struct tr_follow *f = tr_follow_open(ff.dir, 0);
    struct seen s = {0};
    tr_follow_poll(f, 0, on_call, &s);
    uint64_t got[64];
    unsigned n = calls_of(&s, TID_A, got);
    for (unsigned i = 0; i < n; i++)
        CHECK(got[i] < 50);
    call_at(&ff, 1, 3, 50, 0);   /* the rest of run 1, read by the next pass */
    poll_out(f, &s);
    check_a(&s);
    tr_follow_close(f);
    fol_remove(&ff);
}

/* Run 1 is never found (a damaged file: its chunk never gets a header):
 * A's later calls are handed all the same, before the command ends. */
TESTCASE(missing_run_given_up)
{
    struct fol_file ff = {.fd = -1};
    CHECK(!fol_make(&ff, 3));
    runs_0_and_2(&ff);
    struct tr_follow *f = tr_follow_open(ff.dir, 0);
    struct seen s = {0};
    for (int i = 0; i < 10; i++)
        tr_follow_poll(f, 0, on_call, &s);
    uint64_t got[64];
    CHECK_INT(calls_of(&s, TID_A, got), 4);   /* 10, 20, 70, 80, without a final poll */
    poll_out(f, &s);
    CHECK_INT(calls_of(&s, TID_A, got), 4);
    CHECK_INT(got[2], 70);
    tr_follow_close(f);
    fol_remove(&ff);
}

/* A thread's runs in order, each read whole when read: handed in order. */
TESTCASE(runs_in_order)
{
    struct fol_file ff = {.fd = -1};
    CHECK(!fol_make(&ff, 3));
    runs_0_and_2(&ff);
    chunk_hdr(&ff, 1, TID_A, 1, "worker");
    call_at(&ff, 1, 1, 30, 1);
    call_at(&ff, 1, 2, 40, 0);
    call_at(&ff, 1, 3, 50, 0);
    struct tr_follow *f = tr_follow_open(ff.dir, 0);
    struct seen s = {0};
    poll_out(f, &s);
    check_a(&s);
    tr_follow_close(f);
    fol_remove(&ff);
}

/* A's call of id 2 before any thread named it: B names it later (it took
 * the name, then was preempted before writing it). */
TESTCASE(name_written_later)
{
    struct fol_file ff = {.fd = -1};
    CHECK(!fol_make(&ff, 2));
    chunk_hdr(&ff, 0, TID_A, 0, "worker");
    id_name(&ff, 0, 1, 1, "cuInit");
    call_id(&ff, 0, 2, 1, 10, 0);
    call_id(&ff, 0, 3, 2, 20, 0);
    call_id(&ff, 0, 4, 1, 30, 0);
    struct tr_follow *f = tr_follow_open(ff.dir, 0);
    struct seen s = {0};
    tr_follow_poll(f, 0, on_call, &s);
    tr_follow_poll(f, 0, on_call, &s);
    CHECK_INT(s.n, 1);   /* the call of id 1; not yet the one of id 2, nor what follows it */
    chunk_hdr(&ff, 1, TID_B, 0, "other");
    id_name(&ff, 1, 1, 2, "cuCtxGetCurrent");
    call_id(&ff, 1, 2, 2, 25, 0);
    poll_out(f, &s);
    uint64_t got[64];
    CHECK_INT(calls_of(&s, TID_A, got), 3);
    CHECK_INT(s.n, 4);
    for (unsigned i = 0; i < s.n; i++)
        if (s.tid[i] == TID_A && s.t0[i] == 20)
            CHECK_STR(s.name[i], "cuCtxGetCurrent");
    tr_follow_close(f);
    fol_remove(&ff);
}

/* An id never named (the name lost): its calls are shown all the same,
 * as "id#N" (as dump shows it), after a second, while the process runs. */
TESTCASE(name_never_written)
{
    struct fol_file ff = {.fd = -1};
    CHECK(!fol_make(&ff, 1));
    chunk_hdr(&ff, 0, TID_A, 0, "worker");
    id_name(&ff, 0, 1, 1, "cuInit");
    call_id(&ff, 0, 2, 7, 10, 0);
    call_id(&ff, 0, 3, 1, 20, 0);
    call_id(&ff, 0, 4, 7, 30, 0);
    call_id(&ff, 0, 5, 1, 40, 0);
    struct tr_follow *f = tr_follow_open(ff.dir, 0);
    struct seen s = {0};
    tr_follow_poll(f, 0, on_call, &s);
    CHECK_INT(s.n, 0);
    struct timespec ts = {1, 100000000};
    nanosleep(&ts, NULL);
    tr_follow_poll(f, 0, on_call, &s);
    tr_follow_poll(f, 0, on_call, &s);
    CHECK_INT(s.n, 4);   /* its second call did not wait again */
    CHECK_STR(s.name[0], "id#7");
    CHECK_STR(s.name[1], "cuInit");
    tr_follow_close(f);
    fol_remove(&ff);
}

TESTLIST_BEGIN(follow)
TESTENTRY(earlier_run_unread)
TESTENTRY(earlier_run_read_in_part)
TESTENTRY(missing_run_given_up)
TESTENTRY(runs_in_order)
TESTENTRY(name_written_later)
TESTENTRY(name_never_written)
TESTLIST_END()
