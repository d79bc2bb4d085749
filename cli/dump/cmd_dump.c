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
#include <signal.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "dump_internal.h"
#include "nv_params.h"

/* A line's start: seconds from the trace's start ("12.345678"), or with
 * -t the local time of day ("14:03:07.345678"), then the label. */
static void put_time(struct dump *d, const struct tr_call *c, const char *label)
{
    const struct trace *tr = d->tr;
    FILE *f = d->out;
    uint64_t t = d->absolute ? c->t0 : c->t0 > tr->origin_ns ? c->t0 - tr->origin_ns : 0, s = t / 1000000000u;
    if (d->absolute) {
        if (s != d->abs_sec || !d->abs_hms[0]) {
            time_t tt = (time_t)s;
            struct tm tm;
            if (!localtime_r(&tt, &tm) || !strftime(d->abs_hms, sizeof d->abs_hms, "%H:%M:%S.", &tm))
                snprintf(d->abs_hms, sizeof d->abs_hms, "%" PRIu64 ".", s);
            d->abs_sec = s;
        }
        out_s(d->abs_hms, f);
    } else {
        text_u64(f, s);
        out_c('.', f);
    }
    /* "%06" PRIu64 " %s ", without printf */
    char us[8];
    uint32_t u = (uint32_t)(t % 1000000000u / 1000u);   /* two digits a step */
    __builtin_memcpy(us, text_digits2 + 2 * (u / 10000), 2);
    __builtin_memcpy(us + 2, text_digits2 + 2 * (u / 100 % 100), 2);
    __builtin_memcpy(us + 4, text_digits2 + 2 * (u % 100), 2);
    us[6] = ' ';
    out_mem(f, us, 7);
    out_s(label, f);
    out_c(' ', f);
}

/* An NVTX range or mark (made by the reader, trace_read.h), at its start:
 *   range "forward" <1.234 ms>      the calls inside it follow, indented
 *   range "step" <unfinished>       never ended
 *   range "io" <5.0 us> (start/end) a start/end range: nests nothing
 *   range "x" <1.0 us> (not nested) a push/pop that crossed a call or range
 *   mark "tick" */
static void put_range(struct dump *d, const struct tr_call *c, const char *label)
{
    const struct trace *tr = d->tr;
    FILE *f = d->out;
    const struct tr_range *r = tr_range_of(c);
    const char *msg = tr->names[c->name].name;
    put_time(d, c, label);
    fprintf(f, "%*s%s ", 2 * c->depth, "", r->kind == TR_RANGE_MARK ? "mark" : "range");
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

/* A call line's start: time (at), label, indentation, before, the name, after. */
static inline __attribute__((always_inline)) void put_head(struct dump *d, const struct tr_call *c, uint64_t at, const char *label, const char *before,
                     const char *after)
{
    const struct trace *tr = d->tr;
    d->proc = &tr->procs[tr->threads[c->thread].proc];
    struct tr_call when = *c;
    when.t0 = at;
    put_time(d, &when, label);
    for (unsigned i = 0; i < 2u * c->depth; i++)
        out_c(' ', d->out);
    out_s(before, d->out);
    text_name(d->out, &tr->names[c->name]);
    out_s(after, d->out);
}

/* Why a call of a runtime or library layer bound to another CUDA major
 * than the pinned headers is untyped (its arguments shown as raw
 * registers): that major's headers do not declare the function (newer, or
 * exported and no longer declared), or cutap has no headers of that major
 * (issue #28). Said after the call, once per call. */
static void put_untyped_why(struct dump *d, const struct tr_call *c)
{
    int layer = d->tr->names[c->name].layer;
    if (layer < CUTAP_LAYER_RUNTIME || layer >= CUTAP_LAYER_COUNT ||
        !(d->proc->layer_flags[layer] & CUTAP_LAYER_OTHER_MAJOR) || !d->proc->layer_so[layer])
        return;
    const char *so = d->proc->layer_so[layer];
    const struct dec_older *o = dec_older_of(layer, so);
    char esc[4 * 64];
    tr_escape(esc, sizeof esc, so);
    if (o)
        fprintf(d->out, " (untyped: CUDA %s's headers do not declare it for %s)", o->majors, esc);
    else
        fprintf(d->out, " (untyped: %s is of a CUDA major cutap has no headers of)", esc);
}

const struct dec_fn *dump_put_args_of(struct dump *d, const struct tr_call *c)
{
    out_c('(', d->out);
    const struct dec_fn *fn = dump_signature(d, c);
    if (fn)
        dump_put_args(d, c, fn);
    else
        dump_put_raw_args(d->out, d->tr, c);
    out_c(')', d->out);
    return fn;
}

/* What a launch, copy or memset call put on the GPU (cutap trace --gpu),
 * one line each after the call's, at the GPU start time, one level in:
 *   [gpu] kernel scale(float*, int, float)<<<(256,1,1),(256,1,1)>>> device 0 stream 13 <2.1 us>
 *   [gpu] memcpy HtoD 262144 bytes device 0 stream 13 <5.0 us>
 *   [gpu] memset 1024 bytes device 0 stream 13 <1.2 us> */
static void put_gpu(struct dump *d, const struct tr_call *c, const char *label)
{
    const struct tr_gpu *x;
    size_t n = tr_gpu_of(d->proc, c, &x);
    FILE *f = d->out;
    for (size_t i = 0; i < n; i++, x++) {
        struct tr_call when = *c;
        when.t0 = x->t0 ? x->t0 : c->t0;
        put_time(d, &when, label);
        for (unsigned k = 0; k < 2u * c->depth + 2; k++)
            out_c(' ', f);
        const struct cutap_rec_gpu *g = x->g;
        if (g->type == CUTAP_GPU_KERNEL) {
            const char *name = tr_gpu_name(d->proc, x);
            char *dm = name && d->demangle ? cli_demangle(name) : NULL;
            out_s("[gpu] kernel ", f);
            text_str(f, dm ? dm : name ? name : "?");
            free(dm);
            fprintf(f, "<<<(%u,%u,%u),(%u,%u,%u)>>>", g->u.k.grid[0], g->u.k.grid[1], g->u.k.grid[2], g->u.k.block[0],
                    g->u.k.block[1], g->u.k.block[2]);
        } else if (g->type == CUTAP_GPU_MEMCPY) {
            fprintf(f, "[gpu] memcpy %s %" PRIu64 " bytes", tr_gpu_copy_kind(g->info), g->u.m.bytes);
        } else {
            fprintf(f, "[gpu] memset %" PRIu64 " bytes", g->u.m.bytes);
        }
        fprintf(f, " device %u stream %u ", g->device, g->stream);
        if (x->t0 && x->t1 >= x->t0)
            dump_put_duration(f, x->t1 - x->t0);
        else
            out_s("<not measured>", f);
        out_c('\n', f);
    }
}

void dump_put_call(struct dump *d, const struct tr_call *c, const char *label)
{
    const struct trace *tr = d->tr;
    FILE *f = d->out;
    if (c->rflags & TR_RF_RANGE) {
        put_range(d, c, label);
        return;
    }
    put_head(d, c, c->t0, label, "", "");
    const struct dec_fn *fn;
    if (d->memo && c->t1 && !d->started) {   /* a finished call: through the memo */
        fn = dump_put_memo(d, c);
        out_c(' ', f);
        dump_put_duration(f, c->t1 - c->t0);
    } else {
        fn = dump_put_args_of(d, c);
        if (d->started)
            out_s(" <unfinished ...>", f);   /* its end follows, "resumed" */
        else
            dump_put_result(d, c, fn);
    }
    if (c->flags & CUTAP_RF_INJECTED)
        out_s(c->flags & CUTAP_RF_SKIPPED ? " INJECTED (not made)" : " INJECTED (delayed)", f);
    else if (c->flags & CUTAP_RF_SKIPPED)
        out_s(" (skipped)", f);
    if ((c->flags & CUTAP_RF_UNTYPED) && fn == NULL && c->object < 0)
        put_untyped_why(d, c);   /* (a runtime copy's report: its own reasons, docs/LIMITS.md) */
    if (c->object >= 0) {   /* reported through CUPTI by the runtime copy in this object */
        const char *o = tr->names[c->object].name, *b = strrchr(o, '/');
        out_s(" [", f);
        text_str(f, b ? b + 1 : o);
        out_c(']', f);
    }
    out_c('\n', f);
    if (d->proc->gpu_joined && !d->started)
        put_gpu(d, c, label);
    struct nvp_block pb;
    int with_params = !d->started && nvp_block_of(tr, c, &pb);   /* trace --ioctl-params */
    if (!d->proc->nstacks && !with_params)
        return;   /* no stacks recorded in this process */
    char pad[160];
    int w = 2 * (int)c->depth + 4 < 150 ? 2 * (int)c->depth + 4 : 150;
    memset(pad, ' ', (size_t)w);
    pad[w] = 0;
    if (with_params)
        nvp_put_text(f, &pb, pad);
    dump_call_stack(f, tr, c, pad);
}

/* The end of a call shown before as started (cutap trace --print), at
 * its end time, with its arguments again (its outputs are known now):
 * "<... ncclCommInitAll resumed>(comm=0x55d0→0x55e0, ndev=1, ...) = ncclSuccess <0.684 s>". */
void dump_put_resumed(struct dump *d, const struct tr_call *c, const char *label)
{
    put_head(d, c, c->t1, label, "<... ", " resumed>");
    dump_put_result(d, c, dump_put_args_of(d, c));
    out_c('\n', d->out);
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
void dump_thread_label(const struct trace *tr, size_t ti, int hosts, char out[96])
{
    const struct tr_proc *p = &tr->procs[tr->threads[ti].proc];
    char rank[16] = "", host[64];
    if (p->h.rank >= 0)
        snprintf(rank, sizeof rank, "r%d ", p->h.rank);
    tr_escape(host, sizeof host, p->h.host);
    snprintf(out, 96, "[%s%s%s%d/%d]", rank, hosts ? host : "", hosts ? ":" : "", p->h.pid, tr->threads[ti].tid);
}

static char (*thread_labels(const struct trace *tr))[96]
{
    char(*lab)[96] = xcalloc(tr->nthreads, sizeof *lab);
    int hosts = several_hosts(tr);
    for (size_t i = 0; i < tr->nthreads; i++)
        dump_thread_label(tr, i, hosts, lab[i]);
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
    "usage: cutap dump [--pid P] [--tid T] [--failed] [--min-duration D] [-t] [--no-demangle] [-e FILTER]\n"
    "                  [--from S] [--to S] DIR|FILE.cutap\n"
    "One line per call in time order: seconds from the start, [pid/tid], name, decoded arguments\n"
    "and outputs, result, duration; calls made inside a call indented under it.\n"
    "  --pid P, --tid T    only that process or thread\n"
    "  --failed            only calls that failed (an error status; strace -Z), indented by the\n"
    "                      callers shown\n"
    "  --min-duration D    only calls that took D or longer (D: seconds, or with ns, us, ms, s)\n"
    "  -t, --absolute      the local time of day (14:03:07.345678) instead of seconds from the start\n"
    "  --no-demangle       kernel names as recorded\n"
    CLI_SELECT_HELP
    "examples:\n"
    "  cutap dump run1 | less\n"
    "  cutap dump --pid 1234 -e 'cuMem*,cudaMalloc*' run1\n"
    "  cutap dump --from 2 --to 2.1 run1\n"
    "  cutap dump --failed -t run1\n"
    "  cutap dump --min-duration 1ms -e 'cuStreamSynchronize,cudaDeviceSynchronize' run1\n";

/* --- the calls, on several threads (cli/parallel.c) ------------------------ */
#define DEPTHS 256   /* depths whose shown callers are counted; deeper ones add their own */
struct dump_run {
    const struct dump *d;
    const unsigned char *show;
    char (*labels)[96];
    int failed;                /* --failed */
    uint64_t min_ns;           /* --min-duration (0: any) */
    /* --failed, --min-duration: per thread, whether the latest entry at
     * each depth was shown; a shown entry is indented by its shown callers */
    uint8_t (*shown)[DEPTHS];
    uint16_t depth;            /* the entry keep last said yes to: its depth to show */
};
static int dump_keep(void *arg, const struct tr_call *c)
{
    struct dump_run *r = arg;
    if (!r->show[c->thread])
        return 0;
    int keep = 1;
    if (r->failed && ((c->rflags & TR_RF_RANGE) || !call_is_error(r->d->tr, c)))
        keep = 0;
    else if (r->min_ns)
        keep = (c->t1 && c->t1 - c->t0 >= r->min_ns) || (!c->t1 && !(c->rflags & TR_RF_RANGE));
    if (r->shown) {
        uint8_t *s = r->shown[c->thread];
        unsigned d = c->depth < DEPTHS ? c->depth : DEPTHS - 1, n = 0;
        for (unsigned k = 0; k < d; k++)
            n += s[k];
        s[d] = (uint8_t)keep;
        r->depth = (uint16_t)(n + (c->depth - d));
    }
    return keep;
}
static uint16_t dump_depth(void *arg, const struct tr_call *c)
{
    (void)c;
    return ((const struct dump_run *)arg)->depth;
}
struct dump_worker {
    struct dump d;             /* this thread's (d.proc changes per call) */
    char (*labels)[96];
};
static void *dump_init(void *arg)
{
    struct dump_run *r = arg;
    struct dump_worker *w = xcalloc(1, sizeof *w);
    w->d = *r->d;
    w->d.memo = dump_memo_new();
    w->labels = r->labels;
    return w;
}
static void dump_fini(void *wp)
{
    struct dump_worker *w = wp;
    dump_memo_free(w->d.memo);
    free(w);
    dump_kernels_free();   /* this thread's */
}
static void dump_fmt(void *wp, FILE *f, const struct tr_call *c, size_t index, size_t n)
{
    (void)index, (void)n;
    struct dump_worker *w = wp;
    w->d.out = f;
    dump_put_call(&w->d, c, w->labels[c->thread]);
}

/* Prints the calls; returns 0, or -1 when stdout failed for another
 * reason than a reader that went away (`| head`). */
static int dump_calls(struct dump *d, const unsigned char *show, int failed, uint64_t min_ns)
{
    const struct trace *tr = d->tr;
    char(*labels)[96] = thread_labels(tr);
    int err = 0;
    struct dump_run run = {d, show, labels, failed, min_ns, NULL, 0};
    if (failed || min_ns)
        run.shown = xcalloc(tr->nthreads ? tr->nthreads : 1, sizeof *run.shown);
    struct cli_par par = {.tr = tr, .what = "dump", .out = d->out, .keep = dump_keep, .fmt = dump_fmt,
                          .init = dump_init, .fini = dump_fini, .arg = &run,
                          .depth = run.shown ? dump_depth : NULL};
    int rc = cli_par_run(&par, cli_par_workers(tr), &err);
    free(labels);
    free(run.shown);
    tr_progress_done(tr);
    if (rc)
        return -1;   /* (said) */
    errno = 0;
    if (fflush(d->out) == EOF && errno)
        err = errno;               /* fresher than the one saved above */
    if ((!ferror(d->out) && !err) || err == EPIPE)   /* (err: a write of the formatting threads failed) */
        return 0;
    fprintf(stderr, "cutap: dump: writing the output: %s\n", err ? strerror(err) : "error");
    return -1;
}

int cmd_dump(int argc, char **argv)
{
    long pid = -1, tid = -1;
    int demangle = 1, failed = 0, absolute = 0, o;
    uint64_t min_ns = 0;
    optind = 1;
    while ((o = cli_getopt(argc, argv, "dump", "")) != -1) {
        if (o == 'F' || o == 'T' || o == 't') {
            *(o == 'F' ? &failed : &absolute) = 1;
            continue;
        }
        if (o == 'D') {
            if (cli_parse_duration(optarg, &min_ns))
                return cli_usage_error(dump_usage, "--min-duration takes a duration (10us, 2.5ms, 1s, 0.5), not '%s'",
                                       optarg);
            continue;
        }
        if (o == 'e' || o == CLI_OPT_FROM || o == CLI_OPT_TO) {
            if (cli_select_opt(o, optarg, "dump"))
                return 2;
            continue;
        }
        if (o == 'h') {
            out_s(dump_usage, stdout);
            return 0;
        }
        if ((o == 'p' && parse_id(optarg, &pid)) || (o == 'I' && parse_id(optarg, &tid))) {
            fprintf(stderr, "cutap: dump: bad %s '%s'\n", o == 'p' ? "pid" : "tid", optarg);
            return 2;
        }
        if (o == 'n')
            demangle = 0;
        else if (o != 'p' && o != 'I') {
            return cli_usage_error(dump_usage, NULL);
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
    /* one thread at a time writes (cli_par's workers hand it on under
     * their lock): no lock taken per character (a lock per fputc/fprintf
     * was a third of dump's time) */
    __fsetlocking(stdout, FSETLOCKING_BYCALLER);
    signal(SIGPIPE, SIG_IGN);
    struct dump d = {.tr = &tr, .out = stdout, .demangle = demangle, .absolute = absolute};
    rc = dump_calls(&d, show, failed, min_ns) ? 1 : tr.problems > 0;
    free(show);
    dump_kernels_free();
    tr_free(&tr);
    return rc;
}
