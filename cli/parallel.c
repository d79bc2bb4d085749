/* The readers' output formatted on several threads, written in order
 * (issue #27: dump and the text exports are bound by formatting, not by
 * reading). The entries come from the iterator in order on the calling
 * thread (the merge of the threads' records is sequential), in blocks of
 * BLOCK; each block is formatted by one worker into a memory stream of its
 * own, reused from one block to the next, and the blocks are written in
 * order by the formatting threads (one at a time: the thread that formats
 * the oldest block not yet written writes it and those after it that are
 * ready), so that the calling thread, the one that reads, writes only
 * when it formats blocks itself (below; issue #27: the write calls were a
 * sixth of its time in a perfetto-proto export to a file, whose calling
 * thread never formats): the same bytes as one thread makes. A worker is woken per block
 * filled (waking all of them for each block made two threads no faster
 * than one). Formatters must keep what they change per thread: the
 * decoders' caches are (cli/dump/decode.c). Stacks are symbolised through
 * shared caches (cli/symbols.c): a trace with stacks is formatted on the
 * calling thread.
 *
 * The calling thread counts as one of the threads (CUTAP_THREADS=N: N - 1
 * workers): where formatters keep their state per thread (init), it
 * formats a block itself whenever it would otherwise wait for the workers
 * (all blocks in flight, or the end reached), so that on 2 CPUs one
 * worker and the reader share the work without a third thread competing
 * for them (issue #27: two workers and the reader on 2 CPUs each got two
 * thirds of one, and the reader's share set the pace; lowering the
 * workers' priority instead gave the reader its CPU on an idle machine
 * but made dump 3 times slower next to any other busy process, which then
 * took the workers' share). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define BLOCK 4096
struct block {
    _Alignas(64) struct tr_call calls[BLOCK];   /* an entry a cache line */
    size_t index[BLOCK];       /* the iterator's index of each (parents name index + 1) */
    size_t first;              /* the ordinal of calls[0] among the entries kept */
    unsigned n;
    int state;                 /* 0 free, 1 filled, 2 taken, 3 formatted, 4 failed */
    FILE *f;                   /* the block's memory stream, reused: */
    char *text;                /* its bytes (text, len) once formatted */
    size_t len;
};
struct pool {
    pthread_mutex_t lock;
    pthread_cond_t ready;      /* a block filled (workers wait on it) */
    pthread_cond_t formatted;  /* a block formatted (the writer waits on it) */
    struct block *blocks;
    unsigned nblocks;
    size_t next_take, filled;  /* the block the next free worker takes; blocks filled so far */
    size_t next_write;         /* the oldest block not yet written */
    int writing;               /* a worker is writing blocks out (one at a time) */
    int failed;                /* a block could not be formatted (memory): nothing more is written */
    int out_err;               /* the output's errno once a write failed (EPIPE: nobody reads) */
    int done;                  /* no more blocks */
    int caller_waits;          /* the calling thread waits on formatted (it writes what is ready) */
    unsigned helped, wrote;    /* blocks the calling thread formatted, wrote */
    const struct cli_par *par;
};

unsigned cli_par_workers(const struct trace *tr)
{
    for (size_t i = 0; i < tr->nprocs; i++)
        if (tr->procs[i].nstacks)
            return 0;
    long n = tr_threads(9);   /* (by default: more were not faster on the 16-core GPU hosts) */
    if (n <= 1 || tr->ncalls < 2 * BLOCK)
        return 0;
    return n > 33 ? 32 : (unsigned)n - 1;   /* (the calling thread is one of them) */
}

/* A block's bytes written to out: 0 or the errno of the write that failed
 * (EPIPE: a reader that went away), the error then also in ferror(out)
 * as the callers check it. A large block to a stream with a file
 * descriptor (dump's stdout) goes to it with write(2) once the stream's
 * buffer is flushed, not copied into that buffer first (issue #27: the
 * copy of every byte of the output was a sixteenth of dump's
 * instructions). A write that fails there fails the output at once, with
 * its errno (a write of the rest through the stream instead was buffered
 * there, so that a passing failure, EAGAIN on a non-blocking pipe, left a
 * gap in the output and was said as another error: helper-39). */
#define DIRECT_MIN ((size_t)64 << 10)
static int write_block(FILE *out, const char *text, size_t len)
{
    int fd = len >= DIRECT_MIN ? fileno(out) : -1;
    if (fd >= 0) {
        errno = 0;
        if (fflush(out))   /* (stdio keeps the error) */
            return errno ? errno : EIO;
        while (len) {
            ssize_t w = write(fd, text, len);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                int e = w < 0 && errno ? errno : EIO;
#ifdef __GLIBC__
                out->_flags |= _IO_ERR_SEEN;   /* ferror(out), as a failed fwrite leaves it */
#endif
                return e;
            }
            text += w;
            len -= (size_t)w;
        }
        return 0;
    }
    errno = 0;
    if (fwrite(text, 1, len, out) != len || ferror(out))
        return errno ? errno : EIO;
    return 0;
}

/* The blocks formatted, oldest first, written out (a formatting thread,
 * a worker or the calling thread helping, the lock held; it is let go
 * while a block is written, the block's bytes then being the writer's
 * alone). A block that could not be formatted
 * (memory) fails the whole output: it and those after it are let go
 * unwritten. Each block let go is free for the reading thread again. */
static void drain(struct pool *p, int caller)
{
    if (p->writing)
        return;   /* the writer will find this block ready */
    p->writing = 1;
    FILE *out = p->par->out;
    for (;;) {
        struct block *b = &p->blocks[p->next_write % p->nblocks];
        if (p->next_write >= p->filled || b->state < 3)
            break;
        if (b->state == 4)
            p->failed = 1;
        int skip = p->failed || p->out_err || !b->len;
        pthread_mutex_unlock(&p->lock);
        int e = skip ? 0 : write_block(out, b->text, b->len);
        pthread_mutex_lock(&p->lock);
        if (e)
            p->out_err = e;
        p->wrote += caller && !skip;
        b->state = 0;
        p->next_write++;
        pthread_cond_broadcast(&p->formatted);   /* the reading thread: a block free, or all written */
    }
    p->writing = 0;
}

/* Block b formatted with w's state (the lock not held; b taken). */
static void format_block(const struct cli_par *par, void *w, struct block *b, int *bad)
{
    rewind(b->f);
    for (unsigned i = 0; i < b->n; i++)
        par->fmt(w, b->f, &b->calls[i], b->index[i], b->first + i);
    if (par->block_end)
        par->block_end(w, b->f);
    *bad = fflush(b->f) || ferror(b->f);
}

static void *worker(void *arg)
{
    struct pool *p = arg;
    const struct cli_par *par = p->par;
    /* (the tests: each block late, so that the calling thread helps) */
    const char *late = getenv("CUTAP_TEST_WORKER_DELAY_US");
    useconds_t delay = late ? (useconds_t)strtoul(late, NULL, 10) : 0;
    void *w = par->init ? par->init(par->arg) : par->arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        struct block *b = &p->blocks[p->next_take % p->nblocks];
        if (b->state != 1) {
            if (p->done && p->next_take >= p->filled)
                break;
            pthread_cond_wait(&p->ready, &p->lock);
            continue;
        }
        b->state = 2;
        p->next_take++;
        pthread_mutex_unlock(&p->lock);
        if (delay)
            usleep(delay);
        int bad;
        format_block(par, w, b, &bad);
        pthread_mutex_lock(&p->lock);
        b->state = bad ? 4 : 3;
        if (p->caller_waits)   /* it writes while this thread formats the next block */
            pthread_cond_broadcast(&p->formatted);
        else
            drain(p, 0);
    }
    pthread_mutex_unlock(&p->lock);
    if (par->fini)
        par->fini(w);
    return NULL;
}

/* The calling thread, the lock held, instead of waiting: formats the
 * oldest block filled and not taken, if there is one and the formatters
 * keep their state per thread (*w: its own, made on first use), else
 * writes the blocks formatted and not yet written, if nobody is writing
 * them (a worker that finds the calling thread waiting leaves them to it
 * and formats on: perfetto-proto's one encoder then does not also write
 * its 100 MiB, issue #27); 1 if it did either (the lock let go
 * meanwhile), 0: wait. */
static int help(struct pool *p, void **w)
{
    const struct cli_par *par = p->par;
    struct block *b = &p->blocks[p->next_take % p->nblocks];
    if (!par->init || p->next_take >= p->filled || b->state != 1) {
        const struct block *o = &p->blocks[p->next_write % p->nblocks];
        if (p->writing || p->next_write >= p->filled || o->state < 3)
            return 0;
        drain(p, 1);
        return 1;
    }
    b->state = 2;
    p->next_take++;
    p->helped++;
    pthread_mutex_unlock(&p->lock);
    if (!*w)
        *w = par->init(par->arg);
    int bad;
    format_block(par, *w, b, &bad);
    pthread_mutex_lock(&p->lock);
    b->state = bad ? 4 : 3;
    drain(p, 1);
    return 1;
}

/* The calling thread waits (the lock held) for a block formatted or written. */
static void wait_formatted(struct pool *p)
{
    p->caller_waits = 1;
    pthread_cond_wait(&p->formatted, &p->lock);
    p->caller_waits = 0;
}

static void pool_free(struct pool *p, pthread_t *th)
{
    for (unsigned i = 0; i < p->nblocks; i++)
        if (p->blocks[i].f) {
            fclose(p->blocks[i].f);
            free(p->blocks[i].text);
        }
    free(th);
    free(p->blocks);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->ready);
    pthread_cond_destroy(&p->formatted);
}

/* 0 done, -1 failed (said), 1 no pool could be made (nothing done). */
static int run_parallel(const struct cli_par *par, unsigned nw, int *err)
{
    int err0 = errno;   /* (a write of the caller's that failed before: its errno, most likely) */
    struct pool p = {.par = par, .nblocks = 2 * nw + 2};
    pthread_mutex_init(&p.lock, NULL);
    pthread_cond_init(&p.ready, NULL);
    pthread_cond_init(&p.formatted, NULL);
    if (posix_memalign((void **)&p.blocks, 64, p.nblocks * sizeof *p.blocks)) {
        fprintf(stderr, "cutap: out of memory\n");
        exit(1);
    }
    memset(p.blocks, 0, p.nblocks * sizeof *p.blocks);
    int failed = 0;
    for (unsigned i = 0; i < p.nblocks && !failed; i++) {
        struct block *b = &p.blocks[i];
        if (!(b->f = open_memstream(&b->text, &b->len)))
            failed = 1;
        else
            __fsetlocking(b->f, FSETLOCKING_BYCALLER);
    }
    pthread_t *th = xcalloc(nw, sizeof *th);
    unsigned started = 0;
    for (; started < nw && !failed; started++)
        if (pthread_create(&th[started], NULL, worker, &p))
            break;
    if (failed || !started) {
        /* no pool (memory, a thread limit): no worker runs, nothing was
         * read or written yet; the caller formats on its own thread */
        pool_free(&p, th);
        return 1;
    }
    size_t kept = 0;
    void *mine = NULL;   /* this thread's formatter state, once it helps */
    struct tr_iter it;
    tr_iter_init(&it, par->tr, par->what);
    pthread_mutex_lock(&p.lock);
    if (ferror(par->out))   /* (what the caller wrote before failed: nothing more is formatted) */
        p.out_err = err0 ? err0 : EIO;
    pthread_mutex_unlock(&p.lock);
    for (int more = 1; more;) {
        struct block *b = &p.blocks[p.filled % p.nblocks];
        pthread_mutex_lock(&p.lock);
        while (b->state != 0)   /* written out (drain) before its slot is filled again */
            if (!help(&p, &mine))
                wait_formatted(&p);
        int stop = p.failed || p.out_err;
        pthread_mutex_unlock(&p.lock);
        if (stop)
            break;
        b->n = 0;
        b->first = kept;
        while (b->n < BLOCK) {   /* each entry made in its place in the block */
            const struct tr_call *c = tr_iter_next_into(&it, &b->calls[b->n]);
            if (!c) {
                more = 0;
                break;
            }
            if (!par->keep || par->keep(par->arg, c)) {
                if (par->depth)
                    b->calls[b->n].depth = par->depth(par->arg, c);
                b->index[b->n++] = it.index;
            }
        }
        if (!b->n)
            break;   /* (the end, nothing after the last block filled) */
        kept += b->n;
        pthread_mutex_lock(&p.lock);
        b->state = 1;
        p.filled++;
        pthread_cond_signal(&p.ready);   /* one worker takes it */
        pthread_mutex_unlock(&p.lock);
    }
    pthread_mutex_lock(&p.lock);
    p.done = 1;
    pthread_cond_broadcast(&p.ready);
    while (p.next_write < p.filled)   /* the rest, written by the workers (and this thread) */
        if (!help(&p, &mine))
            wait_formatted(&p);
    if (getenv("CUTAP_TEST_WORKER_DELAY_US"))
        fprintf(stderr, "cutap: %s: the calling thread formatted %u of %zu blocks and wrote %u\n", par->what, p.helped,
                p.filled, p.wrote);
    failed = p.failed;
    *err = p.out_err;
    pthread_mutex_unlock(&p.lock);
    for (unsigned i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    if (mine && par->fini)
        par->fini(mine);
    tr_iter_free(&it);
    pool_free(&p, th);
    if (failed)
        fprintf(stderr, "cutap: %s: out of memory formatting the calls\n", par->what);
    return failed ? -1 : 0;
}

int cli_par_run(const struct cli_par *par, unsigned nworkers, int *err)
{
    *err = 0;
    int rc = nworkers ? run_parallel(par, nworkers, err) : 1;
    if (rc <= 0)
        return rc;
    void *w = par->init ? par->init(par->arg) : par->arg;
    size_t kept = 0;
    struct tr_iter it;
    tr_iter_init(&it, par->tr, par->what);
    for (const struct tr_call *c; (c = tr_iter_next(&it));) {
        if (!par->keep || par->keep(par->arg, c)) {
            struct tr_call shown;
            if (par->depth) {
                shown = *c;
                shown.depth = par->depth(par->arg, c);
                c = &shown;
            }
            par->fmt(w, par->out, c, it.index, kept++);
        }
        if ((it.index & 1023) == 1023 && ferror(par->out)) {
            *err = errno;   /* stop early: nobody reads the rest */
            break;
        }
    }
    tr_iter_free(&it);
    if (par->fini)
        par->fini(w);
    return 0;
}
