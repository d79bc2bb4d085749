/* Following a trace directory while it is written (cutap trace --print):
 * the calls each thread completes, in the thread's order, as soon as they
 * can be shown. Nothing is mapped: every byte is read with pread into
 * memory of ours, so a file the program truncates or a disk that fills
 * cannot fault the reader; a record is read again once it says DONE, and
 * everything the writer stored before DONE (its end, result, outputs) is
 * in that second read.
 *
 * Per thread, calls are shown in the order they began (a call's line is
 * held until it completes, and the calls made inside it follow it, as in
 * dump). A call that will never complete (a later call of its thread at
 * its depth or above began: its end was lost) is shown unfinished; a call
 * that holds more than FL_HOLD later calls back is shown as started
 * ("unfinished ...") and its end later as "resumed", as strace does. A
 * chunk is read until its thread has gone on to another chunk (read once
 * more, then left); a ring file (--ring) is not followed: its chunks are
 * overwritten.
 *
 * A thread's records are in the order of its runs (the chunks and tails it
 * took, docs/FORMAT.md), then of their place; a pass over a file reads its
 * chunks in file order, which is not the runs' order, and takes time: a
 * chunk read early in the pass (nothing in it yet, or part of a run) may
 * hold, by the time a later chunk is read, the rest of a run whose thread
 * went on into that later chunk. So the calls of a thread's run are shown
 * only once every earlier run of the thread is read whole (run_ok): read
 * to its end, or read again after a later run of the thread was seen to
 * begin (everything of the earlier run was written before that).
 *
 * A call's id is named (ID_NAME meta) by the thread that first makes a
 * call of it, which may write the name after other threads' calls of that
 * id (it was preempted in between): a call is shown once its id's name is
 * read, or FL_NAME_WAIT after it was found unnamed (then as "id#N", as
 * dump shows an id its file never names). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "read_internal.h"

#define FL_HOLD 4096             /* calls held behind an unfinished one before it is shown as started
                                    (CUTAP_PRINT_HOLD: another number, for the tests) */
#define FL_BUDGET 200000         /* records read per poll: the rest at the next (no pause between) */
#define FL_BLOCK (64u << 10)     /* bytes read at a time from a chunk */
#define FL_CALIB 100000          /* ns: a clock pair this far from the start gives the tick rate (the
                                    header's second pair is taken 0.2 ms after its first) */
#define FL_TAIL_MIN 16           /* slots: a chunk left with this much room may be passed on (the
                                    writer's TAIL_MIN, src/record/writer_internal.h) */
#define FL_MAX_HELD 2000000      /* calls held: past it, every thread's are shown though a thread's
                                    earlier run may be unread (said once) */
#define FL_NAME_WAIT 1000000000ull   /* ns a thread's next call waits for its id's name */
#define FL_MISSING 3             /* whole reads of a file that found a thread's later run begun but not
                                    the run before it (written first: found by the next read, unless the
                                    file is damaged) before that run is given up */

struct fl_rec {                  /* a call record read, not yet shown */
    uint64_t run;                /* its thread's run (chunk or tail, in the order the thread took them) */
    uint64_t off;                /* in its file */
    uint8_t *copy;               /* nslots slots, as last read */
    uint32_t nslots, ti, file;
    uint16_t depth;
    uint8_t done;
    uint64_t poll_done;          /* the poll that first read it done */
};

struct fl_run {                  /* a run of a thread whose start was read, from the thread's run_ok on */
    uint64_t run;
    uint64_t seen;               /* tr_follow.tick when its start was read */
    uint32_t file, ci;           /* its chunk */
    uint8_t ended;               /* its end read: its chunk read to the end, left damaged, or passed on */
};

struct fl_thread {               /* per tr->threads entry */
    struct fl_rec *q;            /* read, in record order, from head */
    size_t head, n, cap;
    struct fl_rec *started;      /* shown as started, their ends to show ("resumed") */
    size_t nstarted, capstarted;
    size_t last_chunk;           /* its newest chunk + 1 (0: none) */
    uint64_t run_ok;             /* its calls of runs up to this one may be shown: the runs before are read whole */
    struct fl_run *runs;         /* runs begun, run_ok and later ones */
    size_t nruns, capruns;
    unsigned missing;            /* whole reads that found a later run begun, not run_ok */
    uint64_t name_wait;          /* CLOCK_MONOTONIC ns when its next call was found with its id unnamed, 0 */
};

struct fl_chunk {
    uint32_t slot;               /* next slot to read (0: the header is not read yet) */
    uint32_t ti;                 /* the thread whose records it holds now */
    uint64_t run;                /* and that thread's run number there (chunk seq, THREAD meta key) */
    uint8_t state;               /* 0 reading, 1 read once more then left (its thread went on), 2 left */
    uint64_t caught;             /* tr_follow.tick when a read last found all that was written in it read */
};

struct fl_file {
    char *name;
    int fd;                      /* -1: not open yet (no header yet) or given up */
    int gone;                    /* given up, or read to its end after its process exited */
    uint32_t pi;
    struct fl_chunk *ch;
    size_t nch;
    uint64_t far_clock, far_mono;
    int unsorted;                /* kernel names or stacks added since the last sort */
    int rate_known;              /* its times can be shown: nanoseconds, or ticks with a pair >= FL_CALIB apart */
};

struct tr_follow {
    struct trace tr;
    char *dir;
    struct fl_file *files;
    size_t nfiles, capfiles;
    struct fl_thread *th;
    size_t nth, capth;
    uint64_t seq;
    uint64_t poll;               /* polls made */
    uint64_t tick;               /* counts the reads that order runs (a run's start seen, a chunk caught up) */
    size_t hold;                 /* FL_HOLD */
    size_t start;                /* the file the next poll reads first (after one whose budget ran out) */
    uint64_t *proc_read;         /* per process: the last poll that read its whole file */
    uint8_t *proc_timed;         /* per process (nproc_read): its file's rate_known */
    size_t nproc_read;
    int behind_said;
    struct tr_follow_out *out;   /* what a poll shows, sorted before it is */
    size_t nout, capout;
};

/* Reads n bytes at off; 0, or -1 (a short read: not written yet, or gone). */
static int rd_at(int fd, void *buf, size_t n, uint64_t off)
{
    size_t got = 0;
    while (got < n) {
        ssize_t k = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        got += (size_t)k;
    }
    return 0;
}

struct tr_follow *tr_follow_open(const char *dir, uint64_t origin_ns)
{
    struct tr_follow *f = rd_alloc0(1, sizeof *f);
    f->dir = strdup(dir);
    f->tr.origin_ns = origin_ns;
    f->tr.serial = tr_serial();
    f->tr.threads_mixed = 1;   /* files are read a part at a time, their threads found in any order */
    const char *e = getenv("CUTAP_PRINT_HOLD");
    f->hold = e && atol(e) > 0 ? (size_t)atol(e) : FL_HOLD;
    return f;
}

static struct fl_thread *thread_of(struct tr_follow *f, uint32_t ti)
{
    if (ti >= f->nth) {
        f->th = rd_xrealloc0(f->th, f->nth, (size_t)ti + 1, sizeof *f->th);
        f->nth = (size_t)ti + 1;
    }
    return &f->th[ti];
}

/* The header of a new file: its process added to tr; -1 while it is not
 * written yet, -2 for a file not to follow (said). */
static int open_file(struct tr_follow *f, struct fl_file *fl)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", f->dir, fl->name);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        return -2;
    }
    struct cutap_file_header h;
    if (rd_at(fd, &h, sizeof h, 0) || !h.magic[0]) {
        close(fd);
        return -1;   /* not written yet */
    }
    char why[160];
    const char *bad = rd_header_problem(&h, why, sizeof why);
    if (!bad && h.version < 5)
        bad = "written by an older cutap";
    else if (!bad && (h.flags & CUTAP_FILE_COUNTS))
        bad = "a counting-mode file";
    else if (!bad && h.ring_chunks)
        bad = "a ring (--ring) file";
    if (bad) {
        TR_ERR("cutap: --print: %s: %s; not followed (cutap dump reads it)\n", path, bad);
        close(fd);
        return -2;
    }
    h.host[sizeof h.host - 1] = h.exe[sizeof h.exe - 1] = h.cmdline[sizeof h.cmdline - 1] = 0;
    h.cutap_version[sizeof h.cutap_version - 1] = 0;
    struct trace *tr = &f->tr;
    tr->procs = rd_grow(tr->procs, &tr->cap_procs, tr->nprocs + 1, sizeof *tr->procs);
    struct tr_proc *p = &tr->procs[tr->nprocs];
    memset(p, 0, sizeof *p);
    p->path = strdup(path);
    p->h = h;
    p->clock0 = h.start_clock;
    p->base_ns = h.start_realtime_ns;
    p->rate = 1.0;
    fl->far_clock = h.calib_clock;
    fl->far_mono = h.calib_mono_ns;
    if (h.clock == CUTAP_CLOCK_TSC && h.calib_clock > h.start_clock && h.calib_mono_ns > h.start_mono_ns)
        p->rate = (double)(h.calib_mono_ns - h.start_mono_ns) / (double)(h.calib_clock - h.start_clock);
    fl->pi = (uint32_t)tr->nprocs++;
    fl->fd = fd;
    fl->rate_known = h.clock == CUTAP_CLOCK_NS;
    return 0;
}

/* New *.cutap files in the directory. */
static void scan_dir(struct tr_follow *f)
{
    DIR *d = opendir(f->dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n < 7 || strcmp(e->d_name + n - 6, ".cutap") || e->d_name[0] == '.')
            continue;
        size_t i = 0;
        while (i < f->nfiles && strcmp(f->files[i].name, e->d_name))
            i++;
        if (i < f->nfiles)
            continue;
        f->files = rd_grow(f->files, &f->capfiles, f->nfiles + 1, sizeof *f->files);
        f->files[f->nfiles++] = (struct fl_file){.name = strdup(e->d_name), .fd = -1};
    }
    closedir(d);
}

/* A clock pair (record clock, CLOCK_MONOTONIC) seen in the file: the two
 * farthest apart give the tick rate, as the loader takes it. */
static void clock_pair(struct tr_follow *f, struct fl_file *fl, uint64_t clock, uint64_t mono)
{
    struct tr_proc *p = &f->tr.procs[fl->pi];
    if (!clock || mono <= fl->far_mono)
        return;
    fl->far_clock = clock;
    fl->far_mono = mono;
    if (p->h.clock == CUTAP_CLOCK_TSC && clock > p->h.start_clock && mono > p->h.start_mono_ns) {
        p->rate = (double)(mono - p->h.start_mono_ns) / (double)(clock - p->h.start_clock);
        fl->rate_known |= mono - p->h.start_mono_ns >= FL_CALIB;
    }
}

/* A run of thread ti begun in chunk ci of fl (its chunk header or THREAD
 * meta read). */
static void run_seen(struct tr_follow *f, struct fl_file *fl, size_t ci, uint32_t ti, uint64_t run)
{
    struct fl_thread *t = thread_of(f, ti);
    if (run < t->run_ok)
        return;   /* given up as missing (a damaged file): its calls are shown as they come */
    t->runs = rd_grow(t->runs, &t->capruns, t->nruns + 1, sizeof *t->runs);
    t->runs[t->nruns++] = (struct fl_run){.run = run, .seen = ++f->tick, .file = (uint32_t)(fl - f->files),
                                          .ci = (uint32_t)ci};
}

/* The end of a run read (nothing more of it can come). */
static void run_ended(struct tr_follow *f, uint32_t ti, uint64_t run)
{
    struct fl_thread *t = thread_of(f, ti);
    for (size_t k = 0; k < t->nruns; k++)
        if (t->runs[k].run == run)
            t->runs[k].ended = 1;
}

/* A read of chunk c that found all that was written in it read. */
static void caught_up(struct tr_follow *f, struct fl_chunk *c)
{
    c->caught = ++f->tick;
}

/* Moves the thread's run_ok on past the runs now read whole: a run whose
 * end was read, or whose chunk a read caught up with after a later run of
 * the thread was seen to begin (the thread wrote the earlier run whole
 * before it began the later one). A run not seen while a later one was
 * (its start is written first: seen at the next read, unless the file is
 * damaged) is given up after FL_MISSING whole reads. */
static void runs_whole(struct tr_follow *f, struct fl_thread *t)
{
    for (;;) {
        struct fl_run *cur = NULL;
        uint64_t later = UINT64_MAX, next = UINT64_MAX;
        for (size_t k = 0; k < t->nruns; k++) {
            struct fl_run *e = &t->runs[k];
            if (e->run == t->run_ok)
                cur = e;
            else if (e->run > t->run_ok) {
                later = e->seen < later ? e->seen : later;
                next = e->run < next ? e->run : next;
            }
        }
        if (next == UINT64_MAX)
            break;   /* no later run begun: run_ok's calls are shown as they are read */
        if (!cur) {
            if (++t->missing < FL_MISSING)
                break;
            t->run_ok = next;   /* (a damaged file) */
        } else if (cur->ended || f->files[cur->file].ch[cur->ci].caught > later) {
            t->run_ok++;
        } else {
            break;
        }
        t->missing = 0;
        size_t keep = 0;
        for (size_t k = 0; k < t->nruns; k++)
            if (t->runs[k].run >= t->run_ok)
                t->runs[keep++] = t->runs[k];
        t->nruns = keep;
    }
}

/* A call record begun at off: held in its thread's queue, in the order
 * the thread wrote them: by run, then place (a thread may go on in the
 * tail of an exited thread's chunk, before its own in the file); done: a
 * copy of it complete (read after its DONE was seen), else NULL. */
static void hold(struct tr_follow *f, struct fl_file *fl, uint32_t ti, uint64_t run, uint64_t off,
                 const struct cutap_rec_call *r, const uint8_t *done)
{
    struct fl_thread *t = thread_of(f, ti);
    if (t->head && t->head * 2 >= t->n) {   /* the shown part goes */
        memmove(t->q, t->q + t->head, (t->n - t->head) * sizeof *t->q);
        t->n -= t->head;
        t->head = 0;
    }
    t->q = rd_grow(t->q, &t->cap, t->n + 1, sizeof *t->q);
    size_t at = t->n;
    while (at > t->head && (t->q[at - 1].run > run || (t->q[at - 1].run == run && t->q[at - 1].off > off)))
        at--;
    memmove(t->q + at + 1, t->q + at, (t->n - at) * sizeof *t->q);
    t->n++;
    struct fl_rec *h = &t->q[at];
    *h = (struct fl_rec){.run = run, .off = off, .nslots = r->nslots, .ti = ti, .depth = r->depth,
                         .file = (uint32_t)(fl - f->files)};
    if (done) {
        size_t len = (size_t)r->nslots * CUTAP_SLOT;
        const struct cutap_rec_call *d = (const void *)done;
        if (d->kind == CUTAP_REC_CALL && d->nslots == r->nslots && (d->flags & CUTAP_RF_DONE) && !rd_check_call(d) &&
            (h->copy = malloc(len))) {
            memcpy(h->copy, done, len);
            h->done = 1;
            h->poll_done = f->poll;
        }
    }
}

/* The chunk's header: 0 when its records are to be read, -1 when not yet. */
static int chunk_header(struct tr_follow *f, struct fl_file *fl, size_t ci, uint64_t base)
{
    struct fl_chunk *c = &fl->ch[ci];
    struct cutap_chunk_header ch;
    if (rd_at(fl->fd, &ch, sizeof ch, base) || !ch.magic)
        return -1;   /* not taken yet */
    if (ch.magic != CUTAP_CHUNK_MAGIC || ch.type != CUTAP_CHUNK_RECORDS) {
        c->state = 2;   /* counters (calls outside a capture window), or damage */
        return -1;
    }
    clock_pair(f, fl, ch.clock, ch.mono_ns);
    char tname[16];
    memcpy(tname, ch.thread_name, sizeof tname);
    tname[15] = 0;
    c->ti = rd_thread_of_run(&f->tr, fl->pi, ch.tid, tname, ch.seq);
    c->run = ch.seq;
    run_seen(f, fl, ci, c->ti, c->run);
    struct fl_thread *t = thread_of(f, c->ti);
    if (t->last_chunk && t->last_chunk - 1 != ci && !fl->ch[t->last_chunk - 1].state)
        fl->ch[t->last_chunk - 1].state = 1;   /* the thread went on from there */
    t->last_chunk = ci + 1;
    c->slot = 1;
    return 0;
}

/* A meta record (read after its kind was seen: whole). */
static void meta(struct tr_follow *f, struct fl_file *fl, struct fl_chunk *c, size_t ci, const struct cutap_rec_meta *m)
{
    struct trace *tr = &f->tr;
    if (!memchr(m->text, 0, 40 + (size_t)CUTAP_SLOT * (m->nslots - 1u)))
        return;
    if (m->sub == CUTAP_META_THREAD) {
        /* the chunk passes to another thread: its run here ends */
        char tn[16];
        memcpy(tn, m->text, sizeof tn - 1);
        tn[15] = 0;
        run_ended(f, c->ti, c->run);
        c->ti = rd_thread_of_run(tr, fl->pi, (int32_t)m->aux, tn, m->key);
        c->run = m->key;
        run_seen(f, fl, ci, c->ti, c->run);
        thread_of(f, c->ti)->last_chunk = ci + 1;
    } else {
        rd_meta(tr, &tr->procs[fl->pi], m, 1);
        fl->unsorted = 1;   /* sorted once, before anything is shown */
    }
}

/* Reads chunk ci's new records, a block at a time, twice: the first read
 * finds the records begun (kind set) and the calls done; the second,
 * made after, holds everything their writers stored before those marks.
 * Returns the records read; stops when *budget runs out. */
static size_t read_chunk(struct tr_follow *f, struct fl_file *fl, size_t ci, size_t *budget)
{
    struct trace *tr = &f->tr;
    struct fl_chunk *c = &fl->ch[ci];
    uint32_t cs = tr->procs[fl->pi].h.chunk_size, slots = cs / CUTAP_SLOT;
    uint64_t base = CUTAP_HEADER_SIZE + (uint64_t)ci * cs;
    if (!c->slot && chunk_header(f, fl, ci, base))
        return 0;
    size_t got = 0;
    static uint8_t b1[FL_BLOCK], b2[FL_BLOCK];
    static struct { uint32_t s; uint8_t done; } seen[FL_BLOCK / CUTAP_SLOT];
    while (c->slot < slots && *budget) {
        uint64_t at = base + (uint64_t)c->slot * CUTAP_SLOT;
        uint8_t kind;
        if (rd_at(fl->fd, &kind, 1, at) || !kind) {
            caught_up(f, c);
            return got;   /* nothing new: one byte read, not a block */
        }
        size_t n = (size_t)(slots - c->slot) * CUTAP_SLOT, ns = 0, s = 0;
        if (n > FL_BLOCK)
            n = FL_BLOCK;
        if (rd_at(fl->fd, b1, n, at)) {
            caught_up(f, c);   /* (cut short: nothing more to read there) */
            return got;
        }
        int bad = 0, spans = 0, end = 0;
        while (s < n / CUTAP_SLOT && ns < *budget) {
            const struct cutap_rec_call *r = (const void *)(b1 + s * CUTAP_SLOT);
            if (!r->kind) {
                end = 1;
                break;   /* not written yet */
            }
            if ((r->kind != CUTAP_REC_CALL && r->kind != CUTAP_REC_META) || !r->nslots ||
                r->nslots > slots - (c->slot + (uint32_t)s)) {
                bad = 1;
                break;
            }
            if (s + r->nslots > n / CUTAP_SLOT) {
                spans = 1;   /* the next block starts with it */
                break;
            }
            seen[ns].s = (uint32_t)s;
            seen[ns++].done = r->kind == CUTAP_REC_CALL && (r->flags & CUTAP_RF_DONE);
            s += r->nslots;
        }
        if (ns && rd_at(fl->fd, b2, s * CUTAP_SLOT, at)) {
            caught_up(f, c);
            return got;
        }
        for (size_t k = 0; k < ns; k++) {
            const struct cutap_rec_call *r = (const void *)(b1 + seen[k].s * CUTAP_SLOT);
            const uint8_t *whole = b2 + seen[k].s * CUTAP_SLOT;
            if (r->kind == CUTAP_REC_META) {
                const struct cutap_rec_meta *m = (const void *)whole;
                if (m->kind == CUTAP_REC_META && m->nslots == r->nslots)
                    meta(f, fl, c, ci, m);
            } else {
                hold(f, fl, c->ti, c->run, at + seen[k].s * CUTAP_SLOT, r, seen[k].done ? whole : NULL);
            }
        }
        got += ns;
        *budget -= ns;
        c->slot += (uint32_t)s;
        if (bad || (spans && !ns)) {   /* (a record longer than a block: damage) */
            TR_ERR("cutap: --print: %s: chunk %zu: a bad record; the rest of the chunk is not followed\n",
                   tr->procs[fl->pi].path, ci);
            c->state = 2;
            run_ended(f, c->ti, c->run);
            return got;
        }
        if (!spans && s < n / CUTAP_SLOT) {
            if (end)
                caught_up(f, c);
            return got;   /* the records written so far are read (or the budget is spent) */
        }
    }
    if (c->slot >= slots) {
        c->state = 2;
        run_ended(f, c->ti, c->run);
    }
    return got;
}

/* Reads a held record again: 0, or -1 when it cannot be read or is damaged. */
static int reread(struct tr_follow *f, struct fl_rec *h)
{
    struct fl_file *fl = &f->files[h->file];
    if (fl->fd < 0)
        return -1;
    size_t len = (size_t)h->nslots * CUTAP_SLOT;
    struct cutap_rec_call first;
    if (rd_at(fl->fd, &first, sizeof first, h->off))
        return -1;
    if (h->copy && !(first.flags & CUTAP_RF_DONE))
        return 0;   /* as read last time */
    if (!h->copy && !(h->copy = malloc(len)))
        return -1;
    /* after DONE was seen (in first): everything written before it is in
     * this read; DONE seen only in this read may have come with stale
     * parts: not taken as done before the next read */
    if (rd_at(fl->fd, h->copy, len, h->off))
        return -1;
    struct cutap_rec_call *r = (void *)h->copy;
    if (r->kind != CUTAP_REC_CALL || r->nslots != h->nslots || rd_check_call(r))
        return -1;
    if (!(first.flags & CUTAP_RF_DONE))
        r->flags &= (uint8_t)~CUTAP_RF_DONE;
    if (!h->done && (r->flags & CUTAP_RF_DONE)) {
        h->done = 1;
        h->poll_done = f->poll;
    }
    return 0;
}

/* What a poll shows, in time order. */
static void show(struct tr_follow *f, struct fl_rec *h, int kind)
{
    f->out = rd_grow(f->out, &f->capout, f->nout + 1, sizeof *f->out);
    struct tr_follow_out *o = &f->out[f->nout++];
    const struct tr_proc *p = &f->tr.procs[f->files[h->file].pi];
    const struct cutap_rec_call *r = (const void *)h->copy;
    /* (an id not named yet: "id#N", not rd_fill_call's stand-in) */
    rd_fill_call_named(p, r, h->ti, f->seq++, rd_id_name(&f->tr, p, r->id), &o->call);
    o->kind = kind;
    o->copy = kind == TR_FOLLOW_STARTED ? NULL : h->copy;   /* freed after it is shown; a started one's later */
}

/* Whether the call's id is not named yet and its thread still waits for
 * the name; after FL_NAME_WAIT the id is taken as "id#N" (until its name
 * comes), so that its other calls do not wait again. */
static int name_awaited(struct tr_follow *f, struct fl_thread *t, const struct fl_rec *h)
{
    struct tr_proc *p = &f->tr.procs[f->files[h->file].pi];
    const struct cutap_rec_call *r = (const void *)h->copy;
    if (p->idcap && rd_id_find(p, r->id)->name1) {
        t->name_wait = 0;
        return 0;
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    if (!t->name_wait)
        t->name_wait = now;
    if (now - t->name_wait < FL_NAME_WAIT)
        return 1;
    rd_id_put(p, r->id, rd_id_name(&f->tr, p, r->id));   /* (its ID_NAME, if it comes, names it) */
    t->name_wait = 0;
    return 0;
}

/* The thread's calls that can be shown now; flush: all of them (its
 * process ended, or the command did); ungated: those of runs after one
 * not yet read whole too (the printer far behind). */
static void drain(struct tr_follow *f, struct fl_thread *t, int flush, int ungated)
{
    if (!flush && !ungated)
        runs_whole(f, t);
    for (size_t i = 0; i < t->nstarted;) {
        struct fl_rec *h = &t->started[i];
        int bad = reread(f, h);
        if (!bad && !h->done && !flush) {
            i++;
            continue;
        }
        if (!bad && h->done)
            show(f, h, TR_FOLLOW_RESUMED);
        else
            free(h->copy);
        t->started[i] = t->started[--t->nstarted];
    }
    while (t->head < t->n) {
        struct fl_rec *h = &t->q[t->head];
        if (!flush && !ungated && h->run > t->run_ok)
            break;   /* an earlier run of the thread may have more to read */
        if (reread(f, h)) {
            free(h->copy);   /* gone or damaged: not shown */
            t->head++;
            continue;
        }
        if (h->done && !flush && h->poll_done == f->poll && t->n - t->head == 1)
            break;   /* the thread's latest call, just ended: what its end writes after it (a kernel's
                        name) is read by the next poll, then it is shown */
        if (!flush && !ungated && name_awaited(f, t, h))
            break;   /* its id's name is still to come */
        if (!h->done && !flush) {
            /* never to complete: a later call of the thread at its depth or above began */
            int lost = 0;
            for (size_t k = t->head + 1; k < t->n && !lost; k++)
                lost = t->q[k].depth <= h->depth;
            if (!lost && t->n - t->head <= f->hold)
                break;
            if (!lost) {
                show(f, h, TR_FOLLOW_STARTED);
                t->started = rd_grow(t->started, &t->capstarted, t->nstarted + 1, sizeof *t->started);
                t->started[t->nstarted++] = *h;
                t->head++;
                continue;
            }
        }
        show(f, h, TR_FOLLOW_CALL);
        t->head++;
    }
}

static int cmp_out(const void *a, const void *b)
{
    const struct tr_follow_out *x = a, *y = b;
    uint64_t tx = x->kind == TR_FOLLOW_RESUMED ? x->call.t1 : x->call.t0;
    uint64_t ty = y->kind == TR_FOLLOW_RESUMED ? y->call.t1 : y->call.t0;
    if (tx != ty)
        return tx < ty ? -1 : 1;
    return x->call.seq < y->call.seq ? -1 : x->call.seq > y->call.seq;
}

size_t tr_follow_poll(struct tr_follow *f, int final, tr_follow_fn fn, void *arg)
{
    size_t budget = FL_BUDGET, got = 0;
    f->poll++;
    scan_dir(f);
    size_t first = f->start < f->nfiles ? f->start : 0;
    for (size_t k = 0; k < f->nfiles && budget; k++) {
        size_t i = (first + k) % f->nfiles;
        struct fl_file *fl = &f->files[i];
        if (fl->gone)
            continue;
        if (fl->fd < 0) {
            int rc = open_file(f, fl);
            if (rc == -2)
                fl->gone = 1;
            if (rc)
                continue;
        }
        struct stat st;
        struct cutap_file_header h;
        /* Whether its process is gone, asked before the file is read: what
         * it wrote is then all in this read. Reaching exit (CLOSED) is not
         * the end: destructors and the runtime's teardown still make calls. */
        struct tr_proc *p = &f->tr.procs[fl->pi];
        int dead = kill(p->h.pid, 0) && errno == ESRCH;
        if (fstat(fl->fd, &st) || rd_at(fl->fd, &h, sizeof h, 0))
            continue;
        /* the header's second pair is written 0.2 ms after the file is made:
         * until a pair that far apart is known, ticks have no rate (and
         * nothing of the file is shown) */
        clock_pair(f, fl, h.calib_clock, h.calib_mono_ns);
        clock_pair(f, fl, h.end_clock, h.end_mono_ns);
        size_t nch = st.st_size > CUTAP_HEADER_SIZE ? (size_t)(st.st_size - CUTAP_HEADER_SIZE) / p->h.chunk_size : 0;
        if (nch > fl->nch) {
            fl->ch = rd_xrealloc0(fl->ch, fl->nch, nch, sizeof *fl->ch);
            fl->nch = nch;
        }
        size_t mine = 0;
        uint32_t slots = p->h.chunk_size / CUTAP_SLOT;
        for (size_t ci = 0; ci < fl->nch && budget; ci++) {
            if (fl->ch[ci].state == 2)
                continue;
            int last_look = fl->ch[ci].state == 1;
            mine += read_chunk(f, fl, ci, &budget);
            /* its thread went on and it is read to the end of what the
             * thread wrote: left, unless its room may yet be passed on to
             * another thread (an exited thread's tail, which a later
             * destructor of that thread can leave for a chunk of its own) */
            if (last_look && budget && fl->ch[ci].state == 1)
                fl->ch[ci].state = slots - fl->ch[ci].slot >= FL_TAIL_MIN ? 0 : 2;
        }
        got += mine;
        if (budget) {
            if (fl->pi >= f->nproc_read) {
                f->proc_read = rd_xrealloc0(f->proc_read, f->nproc_read, (size_t)fl->pi + 1, sizeof *f->proc_read);
                f->proc_timed = rd_xrealloc0(f->proc_timed, f->nproc_read, (size_t)fl->pi + 1, 1);
                f->nproc_read = (size_t)fl->pi + 1;
            }
            f->proc_read[fl->pi] = f->poll;
            f->proc_timed[fl->pi] = (uint8_t)fl->rate_known;
        } else {
            f->start = i;   /* the next poll goes on from here */
        }
        if (dead && budget) {
            /* its process is gone: what it wrote is all read; its threads'
             * calls all shown. Left once a read finds nothing more (a pid
             * of another pid namespace, never found here, keeps its file
             * read, its calls shown as they come) */
            for (uint32_t t = 0; t < f->nth; t++)
                if (t < f->tr.nthreads && f->tr.threads[t].proc == fl->pi)
                    drain(f, &f->th[t], 1, 1);
            fl->gone = !mine;
        }
    }
    for (size_t i = 0; i < f->nfiles; i++)
        if (f->files[i].unsorted && f->files[i].fd >= 0) {
            rd_sort_proc(&f->tr.procs[f->files[i].pi]);
            f->files[i].unsorted = 0;
        }
    /* A thread's calls are shown once its process's file was read whole
     * in this poll (with the budget spent, the rest of an earlier run of
     * the thread may be unread, in a chunk further on) */
    size_t held = 0;
    for (size_t t = 0; t < f->nth; t++)
        held += f->th[t].n - f->th[t].head + f->th[t].nstarted;
    int all = held > FL_MAX_HELD;
    if (all && !f->behind_said) {
        f->behind_said = 1;
        TR_ERR("cutap: --print: the printer is far behind the program (%zu calls held); from now on, calls "
               "may be shown before the rest of an earlier run of their thread (a chunk not yet read whole)\n", held);
    }
    for (size_t t = 0; t < f->nth && t < f->tr.nthreads; t++) {
        uint32_t pi = f->tr.threads[t].proc;
        if (all || (pi < f->nproc_read && f->proc_read[pi] == f->poll && (final || f->proc_timed[pi])))
            drain(f, &f->th[t], final, all);
    }
    if (f->nout) {
        qsort(f->out, f->nout, sizeof *f->out, cmp_out);
        for (size_t i = 0; i < f->nout; i++)
            fn(arg, &f->tr, &f->out[i]);
        for (size_t i = 0; i < f->nout; i++)
            free(f->out[i].copy);
        f->nout = 0;
    }
    for (size_t i = 0; i < f->nfiles; i++)
        if (f->files[i].gone && f->files[i].fd >= 0) {
            close(f->files[i].fd);
            f->files[i].fd = -1;
        }
    return budget ? got : got + 1;   /* more to read: non-zero */
}

void tr_follow_close(struct tr_follow *f)
{
    if (!f)
        return;
    for (size_t t = 0; t < f->nth; t++) {
        for (size_t k = f->th[t].head; k < f->th[t].n; k++)
            free(f->th[t].q[k].copy);
        for (size_t k = 0; k < f->th[t].nstarted; k++)
            free(f->th[t].started[k].copy);
        free(f->th[t].q);
        free(f->th[t].started);
        free(f->th[t].runs);
    }
    for (size_t i = 0; i < f->nfiles; i++) {
        if (f->files[i].fd >= 0)
            close(f->files[i].fd);
        free(f->files[i].name);
        free(f->files[i].ch);
    }
    free(f->files);
    free(f->th);
    free(f->out);
    free(f->proc_read);
    free(f->proc_timed);
    free(f->dir);
    tr_free(&f->tr);
    free(f);
}
