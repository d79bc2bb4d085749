/* `cutap dump`: one line per call in time order, like strace:
 *
 *   0.012345 [4121/4121] cuMemAlloc_v2(dptr=0x7ffd5a0c→0x7f2a00200000, bytesize=4096) = CUDA_SUCCESS <1.2 us>
 *
 * Arguments are decoded with the generated tables (cli/decode_tables.h):
 * the driver's for driver calls, the layers' for runtime and library
 * calls, looked up by the call's name, never by its numeric id: ids are
 * per file and per library version.
 * What the recorder copied from the process (strings, structs, outputs)
 * is shown where the argument is. Calls whose signature is unknown show
 * the six argument registers and the raw return register. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "dump_internal.h"

/* An NVTX range or mark (made by the reader, trace_read.h), at its start:
 *   range "forward" <1.234 ms>      the calls inside it follow, indented
 *   range "step" <unfinished>       never ended
 *   range "io" <5.0 us> (start/end) a start/end range: nests nothing
 *   range "x" <1.0 us> (not nested) a push/pop that crossed a call or range
 *   mark "tick" */
static void put_range(FILE *f, const struct trace *tr, const struct tr_call *c, const char *label, uint64_t t)
{
    const struct tr_range *r = tr_range_of(c);
    const char *msg = tr->names[c->name].name;
    fprintf(f, "%" PRIu64 ".%06" PRIu64 " %s %*s%s ", t / 1000000000u, t % 1000000000u / 1000u, label, 2 * c->depth,
            "", r->kind == TR_RANGE_MARK ? "mark" : "range");
    dump_put_str(f, msg, strlen(msg), 0);
    if (r->kind != TR_RANGE_MARK) {
        out_c(' ', f);
        if (c->t1)
            dump_put_duration(f, c->t1 - c->t0);
        else
            out_s("<unfinished>", f);
    }
    if (r->kind == TR_RANGE_START)
        out_s(" (start/end)", f);
    else if (r->kind == TR_RANGE_PUSH && (c->rflags & TR_RF_ASYNC))
        out_s(" (not nested)", f);
    out_c('\n', f);
}

static void put_call(struct dump *d, const struct tr_call *c, const char *label)
{
    const struct trace *tr = d->tr;
    FILE *f = d->out;
    uint64_t t = c->t0 > tr->origin_ns ? c->t0 - tr->origin_ns : 0;
    if (c->rflags & TR_RF_RANGE) {
        put_range(f, tr, c, label, t);
        return;
    }
    d->proc = &tr->procs[tr->threads[c->thread].proc];
    /* "%" PRIu64 ".%06" PRIu64 " %s %*s", without printf */
    char us[8];
    uint64_t u = t % 1000000000u / 1000u;
    for (int i = 5; i >= 0; i--, u /= 10)
        us[i] = (char)('0' + u % 10);
    us[6] = ' ';
    text_u64(f, t / 1000000000u);
    out_c('.', f);
    fwrite(us, 1, 7, f);
    out_s(label, f);
    out_c(' ', f);
    for (unsigned i = 0; i < 2u * c->depth; i++)
        out_c(' ', f);
    text_str(f, tr->names[c->name].name);
    out_c('(', f);
    const struct dec_fn *fn = dump_signature(d, c);
    if (fn)
        dump_put_args(d, c, fn);
    else
        dump_put_raw_args(f, tr, c);
    out_c(')', f);
    dump_put_result(d, c, fn);
    if (c->flags & CUTAP_RF_INJECTED)
        out_s(c->flags & CUTAP_RF_SKIPPED ? " INJECTED (not made)" : " INJECTED (delayed)", f);
    else if (c->flags & CUTAP_RF_SKIPPED)
        out_s(" (skipped)", f);
    if (c->object >= 0) {   /* reported through CUPTI by the runtime copy in this object */
        const char *o = tr->names[c->object].name, *b = strrchr(o, '/');
        out_s(" [", f);
        text_str(f, b ? b + 1 : o);
        out_c(']', f);
    }
    out_c('\n', f);
    if (!d->proc->nstacks)
        return;   /* no stacks recorded in this process */
    char pad[160];
    int w = 2 * (int)c->depth + 4 < 150 ? 2 * (int)c->depth + 4 : 150;
    memset(pad, ' ', (size_t)w);
    pad[w] = 0;
    dump_call_stack(f, tr, c, pad);
}

/* --- threads: labels and the filter ------------------------------------- */

static int several_hosts(const struct trace *tr)
{
    for (size_t i = 1; i < tr->nprocs; i++)
        if (strcmp(tr->procs[i].h.host, tr->procs[0].h.host))
            return 1;
    return 0;
}

/* "[4121/4122]", "[r1 4121/4122]", "[node7:4121/4122]": built once per
 * thread, not per line. */
static char (*thread_labels(const struct trace *tr))[96]
{
    char(*lab)[96] = xcalloc(tr->nthreads, sizeof *lab);
    int hosts = several_hosts(tr);
    for (size_t i = 0; i < tr->nthreads; i++) {
        const struct tr_proc *p = &tr->procs[tr->threads[i].proc];
        char rank[16] = "", host[64];
        if (p->h.rank >= 0)
            snprintf(rank, sizeof rank, "r%d ", p->h.rank);
        tr_escape(host, sizeof host, p->h.host);
        snprintf(lab[i], sizeof lab[i], "[%s%s%s%d/%d]", rank, hosts ? host : "", hosts ? ":" : "", p->h.pid,
                 tr->threads[i].tid);
    }
    return lab;
}

static int parse_id(const char *s, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 0 || v > INT32_MAX)
        return -1;
    *out = v;
    return 0;
}

/* Which threads to show; NULL after a message when --pid/--tid match
 * nothing in the trace. */
static unsigned char *thread_filter(const struct trace *tr, long pid, long tid)
{
    unsigned char *show = xcalloc(tr->nthreads, 1);
    int pid_seen = pid < 0, any = 0;
    for (size_t i = 0; i < tr->nthreads; i++) {
        int p = tr->procs[tr->threads[i].proc].h.pid;
        pid_seen |= p == pid;
        show[i] = (pid < 0 || p == pid) && (tid < 0 || tr->threads[i].tid == tid);
        any |= show[i];
    }
    for (size_t i = 0; i < tr->nprocs && !pid_seen; i++)
        pid_seen = tr->procs[i].h.pid == pid;   /* a process that made no call */
    if (!pid_seen)
        fprintf(stderr, "cutap: dump: no process %ld in this trace\n", pid);
    else if (tid >= 0 && !any)
        fprintf(stderr, "cutap: dump: no thread %ld%s in this trace\n", tid, pid >= 0 ? " in that process" : "");
    if (!pid_seen || (tid >= 0 && !any)) {
        free(show);
        return NULL;
    }
    return show;
}

/* --- the command -------------------------------------------------------- */

static const char dump_usage[] =
    "usage: cutap dump [--pid P] [--tid T] [--no-demangle] [-e FILTER] [--from S] [--to S] DIR|FILE.cutap\n"
    "One line per call in time order: seconds from the start, [pid/tid], name, decoded arguments\n"
    "and outputs, result, duration; calls made inside a call indented under it.\n"
    "  --pid P, --tid T    only that process or thread\n"
    "  --no-demangle       kernel names as recorded\n"
    CLI_SELECT_HELP
    "examples:\n"
    "  cutap dump run1 | less\n"
    "  cutap dump --pid 1234 -e 'cuMem*,cudaMalloc*' run1\n"
    "  cutap dump --from 2 --to 2.1 run1\n";

/* --- formatting on several threads ---------------------------------------- */
/* The calls come from the iterator in order on one thread (the merge of the
 * threads' records is sequential), in blocks of BLOCK calls; each block is
 * formatted by one of the workers into a memory stream of its own, and the
 * blocks are written in order: the same bytes as one thread makes, faster
 * by about the number of cores while formatting dominates (it does: the
 * decoding of arguments and results, issue #27). The decoder's caches are
 * per thread (decode.c). Stacks are symbolised by shared caches: a trace
 * with stacks is dumped on one thread. CUTAP_THREADS=N sets the number of
 * workers (1: none, the calling thread formats; default: the CPUs online,
 * at most 8). Workers are woken one per block (waking all of them for each
 * block made two threads no faster than one). */
#define BLOCK 4096
struct block {
    struct tr_call calls[BLOCK];
    unsigned n;
    int state;                 /* 0 free, 1 filled, 2 taken, 3 formatted, 4 failed */
    FILE *f;                   /* the block's memory stream, reused: */
    char *text;                /* its lines (text, len) once formatted */
    size_t len;
};
struct pool {
    pthread_mutex_t lock;
    pthread_cond_t ready;          /* a block filled (workers wait on it) */
    pthread_cond_t formatted;      /* a block formatted (the writer waits on it) */
    struct block *blocks;
    unsigned nblocks, next_take;   /* next_take: the block the next free worker formats (in order) */
    size_t filled;                 /* blocks filled so far */
    int done;                      /* no more blocks */
    const struct dump *d;
    char (*labels)[96];
};

static void *worker(void *arg)
{
    struct pool *p = arg;
    struct dump d = *p->d;
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
        /* into the block's stream, its buffer kept from one use to the
         * next (a fresh one per block: mmap and munmap of its pages) */
        rewind(b->f);
        d.out = b->f;
        for (unsigned i = 0; i < b->n; i++)
            put_call(&d, &b->calls[i], p->labels[b->calls[i].thread]);
        int bad = fflush(b->f) || ferror(b->f);
        pthread_mutex_lock(&p->lock);
        b->state = bad ? 4 : 3;
        pthread_cond_signal(&p->formatted);   /* one writer */
    }
    pthread_mutex_unlock(&p->lock);
    dump_kernels_free();   /* this thread's */
    return NULL;
}

/* How many workers format (0: the calling thread does). */
static unsigned dump_workers(const struct trace *tr)
{
    for (size_t i = 0; i < tr->nprocs; i++)
        if (tr->procs[i].nstacks)
            return 0;
    const char *e = getenv("CUTAP_THREADS");
    long n = e && *e ? strtol(e, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
    if (!(e && *e) && n > 8)
        n = 8;   /* by default: more were not faster on the 16-core GPU hosts */
    if (n <= 1 || tr->ncalls < 2 * BLOCK)
        return 0;
    return n > 32 ? 32 : (unsigned)n;
}

/* Writes block b's text out (main thread, in order), or notes a failed
 * block (memory): the whole dump then fails. */
static int put_block(struct dump *d, struct block *b)
{
    int st = b->state;
    b->state = 0;
    if (st != 3)
        return -1;
    if (b->len)
        fwrite(b->text, 1, b->len, d->out);
    return 0;
}

static int dump_parallel(struct dump *d, const unsigned char *show, char (*labels)[96], unsigned nw, int *err)
{
    struct pool p = {.d = d, .labels = labels, .nblocks = 2 * nw + 2};
    pthread_mutex_init(&p.lock, NULL);
    pthread_cond_init(&p.ready, NULL);
    pthread_cond_init(&p.formatted, NULL);
    p.blocks = xcalloc(p.nblocks, sizeof *p.blocks);
    int failed = 0;
    for (unsigned i = 0; i < p.nblocks; i++) {
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
    failed |= !started;
    size_t written = 0;
    struct tr_iter it;
    tr_iter_init(&it, d->tr, "dump");
    const struct tr_call *c = started ? tr_iter_next(&it) : NULL;
    while (c && !failed) {
        struct block *b = &p.blocks[p.filled % p.nblocks];
        pthread_mutex_lock(&p.lock);
        while (b->state != 0 && b->state < 3)
            pthread_cond_wait(&p.formatted, &p.lock);
        pthread_mutex_unlock(&p.lock);
        if (b->state >= 3) {   /* the oldest block: written before its slot is filled again */
            failed = put_block(d, b) < 0;
            written++;
            if (ferror(d->out)) {
                *err = errno;   /* stop early: nobody reads the rest */
                break;
            }
        }
        b->n = 0;
        for (; c && b->n < BLOCK; c = tr_iter_next(&it))
            if (show[c->thread])
                b->calls[b->n++] = *c;
        pthread_mutex_lock(&p.lock);
        b->state = 1;
        p.filled++;
        pthread_cond_signal(&p.ready);   /* one worker takes it */
        pthread_mutex_unlock(&p.lock);
    }
    pthread_mutex_lock(&p.lock);
    p.done = 1;
    pthread_cond_broadcast(&p.ready);
    pthread_mutex_unlock(&p.lock);
    for (; written < p.filled; written++) {   /* the rest, in order */
        struct block *b = &p.blocks[written % p.nblocks];
        pthread_mutex_lock(&p.lock);
        while (b->state < 3)
            pthread_cond_wait(&p.formatted, &p.lock);
        pthread_mutex_unlock(&p.lock);
        if (!failed && !ferror(d->out)) {
            failed = put_block(d, b) < 0;
            if (ferror(d->out))
                *err = errno;   /* (EPIPE: a reader that went away) */
        }
    }
    for (unsigned i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    tr_iter_free(&it);
    free(th);
    for (unsigned i = 0; i < p.nblocks; i++)
        if (p.blocks[i].f) {
            fclose(p.blocks[i].f);
            free(p.blocks[i].text);
        }
    free(p.blocks);
    pthread_mutex_destroy(&p.lock);
    pthread_cond_destroy(&p.ready);
    pthread_cond_destroy(&p.formatted);
    if (failed)
        fprintf(stderr, "cutap: dump: %s\n", started ? "out of memory formatting the calls" : "no formatting thread could be started");
    return failed ? -1 : 0;
}

/* Prints the calls; returns 0, or -1 when stdout failed for another
 * reason than a reader that went away (`| head`). */
static int dump_calls(struct dump *d, const unsigned char *show)
{
    const struct trace *tr = d->tr;
    char(*labels)[96] = thread_labels(tr);
    int err = 0;
    unsigned nw = dump_workers(tr);
    if (nw) {
        if (dump_parallel(d, show, labels, nw, &err)) {
            free(labels);
            tr_progress_done(tr);
            return -1;
        }
    } else {
        struct tr_iter it;
        tr_iter_init(&it, tr, "dump");
        for (const struct tr_call *c; (c = tr_iter_next(&it));) {
            if (show[c->thread])
                put_call(d, c, labels[c->thread]);
            if ((it.index & 1023) == 1023 && ferror(d->out)) {
                err = errno;           /* stop early: nobody reads the rest */
                break;
            }
        }
        tr_iter_free(&it);
    }
    free(labels);
    tr_progress_done(tr);
    errno = 0;
    if (fflush(d->out) == EOF && errno)
        err = errno;               /* fresher than the one saved above */
    if (!ferror(d->out) || err == EPIPE)
        return 0;
    fprintf(stderr, "cutap: dump: writing the output: %s\n", err ? strerror(err) : "error");
    return -1;
}

int cmd_dump(int argc, char **argv)
{
    static const struct option opts[] = {{"pid", required_argument, NULL, 'p'},
                                         {"tid", required_argument, NULL, 't'},
                                         {"no-demangle", no_argument, NULL, 'n'},
                                         {"help", no_argument, NULL, 'h'},
                                         CLI_SELECT_LONGOPTS,
                                         {NULL, 0, NULL, 0}};
    long pid = -1, tid = -1;
    int demangle = 1, o;
    optind = 1;
    while ((o = getopt_long(argc, argv, "p:t:nhe:", opts, NULL)) != -1) {
        if (o == 'e' || o == CLI_OPT_FROM || o == CLI_OPT_TO) {
            if (cli_select_opt(o, optarg, "dump"))
                return 2;
            continue;
        }
        if (o == 'h') {
            out_s(dump_usage, stdout);
            return 0;
        }
        if ((o == 'p' && parse_id(optarg, &pid)) || (o == 't' && parse_id(optarg, &tid))) {
            fprintf(stderr, "cutap: dump: bad %s '%s'\n", o == 'p' ? "pid" : "tid", optarg);
            return 2;
        }
        if (o == 'n')
            demangle = 0;
        else if (o != 'p' && o != 't') {
            out_s(dump_usage, stderr);
            return 2;
        }
    }
    struct trace tr;
    int rc = load_operand(argc, argv, dump_usage, &tr);
    if (rc)
        return rc;
    unsigned char *show = thread_filter(&tr, pid, tid);
    if (!show) {
        tr_free(&tr);
        return 1;
    }
    if (!tr.ncalls && tr.ncounters)
        fprintf(stderr, "cutap: dump: %s holds counters only (cutap stat); try cutap report\n", argv[optind]);
    /* Dumps run to millions of lines: a large buffer, and a closed pipe
     * is an error to notice, not a signal that kills us mid-line. */
    static char obuf[1 << 20];
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
    /* one thread writes: no lock taken per character (a lock per
     * fputc/fprintf was a third of dump's time) */
    __fsetlocking(stdout, FSETLOCKING_BYCALLER);
    signal(SIGPIPE, SIG_IGN);
    struct dump d = {.tr = &tr, .out = stdout, .demangle = demangle};
    rc = dump_calls(&d, show) ? 1 : tr.problems > 0;
    free(show);
    dump_kernels_free();
    tr_free(&tr);
    return rc;
}
