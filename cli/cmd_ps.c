/* cutap ps [DIR | --pid PID] [--format text|json] [--stuck SECONDS] [--watch]
 *
 * What every traced process and thread is doing now (issue #16): the
 * calls in progress on each thread, outermost first, with their decoded
 * arguments and how long each has been running, and the thread's last
 * completed call; across ranks, per NCCL communicator, how many
 * collectives each rank has issued and the one in progress, so that the
 * rank that did not arrive stands out.
 *
 * It reads the trace files the processes are writing (each call is in
 * the file from its start, its end filled in when it returns): read-only,
 * nothing stops or signals the processes. A record being written is
 * whole or not seen (the recorder publishes its first word last). The same
 * view works after the processes ended or were killed: where each thread
 * was. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "trace_read.h"

static const char usage[] =
    "usage: cutap ps [--format text|json] [--stuck SECONDS] [--watch [--interval S]] DIR | --pid PID\n"
    "  what every traced process and thread of DIR is doing now: the calls in progress,\n"
    "  outermost first, with their arguments and how long each has been running, and the\n"
    "  last call each thread completed; per NCCL communicator, each rank's collectives.\n"
    "  Read-only: the processes are neither stopped nor signalled. After they ended or\n"
    "  were killed: where each thread was.\n"
    "  --pid PID           the trace of that running process (its CUTAP_TRACE directory)\n"
    "  --stuck SECONDS     exit status 1 when a call has been running longer than that\n"
    "  --watch             refresh every --interval seconds (default 1) until interrupted\n"
    "  --interval S        the seconds between refreshes of --watch\n"
    "  --format F          text (default) or json\n"
    "  -h, --help          this help\n"
    "examples:\n"
    "  cutap ps run1\n"
    "  cutap ps --stuck 60 run1 || echo 'something is stuck'\n"
    "  cutap ps --watch run1\n";

#define MAX_OPEN 64

struct ps_thread {
    struct tr_call open[MAX_OPEN];   /* calls and ranges in progress, outermost first */
    unsigned nopen;
    struct tr_call last;             /* the last call it completed (t1 = 0: none) */
};

/* NCCL's collectives (and point-to-point calls) counted per communicator. */
static int is_collective(const char *n)
{
    /* collectives only: point-to-point counts differ between ranks by design */
    static const char *const c[] = {"ncclAllReduce", "ncclBroadcast", "ncclBcast", "ncclReduce", "ncclAllGather",
                                    "ncclReduceScatter", "ncclAlltoAll", "ncclGather", "ncclScatter"};
    for (size_t i = 0; i < sizeof c / sizeof *c; i++)
        if (!strcmp(n, c[i]))
            return 1;
    return 0;
}

/* The argument named comm in a file's signature ("k:comm:ncclComm_t;..."),
 * or -1. */
static int comm_arg(const char *sig)
{
    for (int k = 0; sig && *sig; k++) {
        const char *a = strchr(sig, ':'), *t = a ? strchr(a + 1, ':') : NULL;
        if (t && t - a - 1 == 4 && !strncmp(a + 1, "comm", 4))
            return k;
        sig = strchr(sig, ';');
        sig = sig ? sig + 1 : NULL;
    }
    return -1;
}

/* Per process: its communicators in the order it made them (the k-th of
 * each rank is taken to be the same communicator: a comm handle is a
 * pointer, private to its process), and per communicator the collectives
 * issued and the one in progress. */
#define MAX_COMMS 32
struct ps_comm {
    uint64_t handle;
    uint64_t issued;
    const struct tr_call *in_progress;   /* points into ps_thread.open */
    uint32_t in_progress_no;
};
struct ps_proc {
    struct ps_comm comms[MAX_COMMS];
    unsigned ncomms;
    uint64_t newest;                     /* latest time any record of it shows */
};

static struct ps_comm *comm_of(struct ps_proc *p, uint64_t handle)
{
    for (unsigned i = 0; i < p->ncomms; i++)
        if (p->comms[i].handle == handle)
            return &p->comms[i];
    if (p->ncomms == MAX_COMMS)
        return NULL;
    p->comms[p->ncomms] = (struct ps_comm){handle, 0, NULL, 0};
    return &p->comms[p->ncomms++];
}

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static const char *proc_state(const struct tr_proc *p)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    if (strcmp(host, p->h.host))
        return "on another host";
    if (kill(p->h.pid, 0) == 0 || errno == EPERM)
        return p->complete ? "exiting" : "running";
    return p->complete ? "exited" : "gone (killed, or ended without exit)";
}

static void put_secs(FILE *f, double s)
{
    if (s < 1e-3)
        fprintf(f, "%.0f us", s * 1e6);
    else if (s < 1)
        fprintf(f, "%.1f ms", s * 1e3);
    else
        fprintf(f, "%.1f s", s);
}

static const char *call_name(const struct trace *tr, const struct tr_call *c, char *buf, size_t size)
{
    if (c->rflags & TR_RF_RANGE)
        snprintf(buf, size, "range \"%s\"", tr->names[c->name].name);
    else
        snprintf(buf, size, "%s", tr->names[c->name].name);
    return buf;
}

/* The view of the trace: returns how many calls have been running longer
 * than stuck_s (ranges not counted), stuck_s < 0: none. */
int ps_view(const struct trace *tr, FILE *f, int json, double stuck_s, int only_pid)
{
    struct ps_thread *th = xcalloc(tr->nthreads, sizeof *th);
    struct ps_proc *pr = xcalloc(tr->nprocs, sizeof *pr);
    uint64_t now = now_ns();
    struct tr_iter it;
    tr_iter_init(&it, tr, "ps");
    for (const struct tr_call *c; (c = tr_iter_next(&it));) {
        struct ps_thread *t = &th[c->thread];
        struct ps_proc *p = &pr[tr->threads[c->thread].proc];
        uint64_t seen = c->t1 ? c->t1 : c->t0;
        if (seen > p->newest)
            p->newest = seen;
        while (t->nopen && t->open[t->nopen - 1].depth >= c->depth)
            t->nopen--;
        const struct tr_name *nm = &tr->names[c->name];
        if (!(c->rflags & TR_RF_RANGE) && is_collective(nm->name)) {
            int k = comm_arg(nm->sig);
            struct ps_comm *pc = k >= 0 && (unsigned)k < c->rec->nargs ? comm_of(p, tr_args(c)[k]) : NULL;
            if (pc)
                pc->issued++;
        }
        if (c->t1) {
            if (!(c->rflags & TR_RF_RANGE) && c->t1 >= t->last.t1)
                t->last = *c;
        } else if (t->nopen < MAX_OPEN && !(c->rflags & TR_RF_ASYNC)) {
            t->open[t->nopen++] = *c;
        }
    }
    tr_iter_free(&it);
    /* the collectives in progress */
    for (size_t i = 0; i < tr->nthreads; i++) {
        struct ps_proc *p = &pr[tr->threads[i].proc];
        for (unsigned k = 0; k < th[i].nopen; k++) {
            const struct tr_call *c = &th[i].open[k];
            const struct tr_name *nm = &tr->names[c->name];
            int a;
            if ((c->rflags & TR_RF_RANGE) || !is_collective(nm->name) || (a = comm_arg(nm->sig)) < 0 ||
                (unsigned)a >= c->rec->nargs)
                continue;
            struct ps_comm *pc = comm_of(p, tr_args(c)[a]);
            if (pc) {
                pc->in_progress = c;
                pc->in_progress_no = (uint32_t)pc->issued;
            }
        }
    }
    int stuck = 0;
    char nbuf[600];
    if (json)
        fputs("{\"processes\":[", f);
    int firstp = 1;
    for (size_t pi = 0; pi < tr->nprocs; pi++) {
        const struct tr_proc *p = &tr->procs[pi];
        if (only_pid && p->h.pid != only_pid)
            continue;
        const char *state = proc_state(p);
        int running = !strcmp(state, "running");
        /* a process that is not running: times measured to its last record */
        uint64_t ref = running ? now : pr[pi].newest;
        if (json) {
            fprintf(f, "%s{\"pid\":%d,\"host\":", firstp ? "" : ",", p->h.pid);
            json_str(f, p->h.host);
            fprintf(f, ",\"rank\":%d,\"exe\":", p->h.rank);
            json_str(f, basename_of(p->h.exe));
            fputs(",\"state\":", f);
            json_str(f, state);
            fputs(",\"threads\":[", f);
        } else {
            fprintf(f, "process %d (%s) host %s", p->h.pid, p->h.exe[0] ? basename_of(p->h.exe) : "?", p->h.host);
            if (p->h.rank >= 0)
                fprintf(f, " rank %d", p->h.rank);
            fprintf(f, ": %s\n", state);
        }
        firstp = 0;
        int firstt = 1;
        for (size_t ti = 0; ti < tr->nthreads; ti++) {
            if (tr->threads[ti].proc != pi)
                continue;
            const struct tr_thread *t = &tr->threads[ti];
            const struct ps_thread *s = &th[ti];
            if (json) {
                fprintf(f, "%s{\"tid\":%d,\"name\":", firstt ? "" : ",", t->tid);
                json_str(f, t->name);
                fputs(",\"in_progress\":[", f);
            } else {
                fprintf(f, "  thread %d (%s): ", t->tid, t->name[0] ? t->name : "?");
                if (!s->nopen)
                    fputs("no call in progress", f);
            }
            firstt = 0;
            for (unsigned k = 0; k < s->nopen; k++) {
                const struct tr_call *c = &s->open[k];
                double since = ref > c->t0 ? (double)(ref - c->t0) / 1e9 : 0;
                int is_range = !!(c->rflags & TR_RF_RANGE);
                if (!is_range && stuck_s >= 0 && running && since > stuck_s)
                    stuck++;
                if (json) {
                    fprintf(f, "%s{\"name\":", k ? "," : "");
                    json_str(f, tr->names[c->name].name);
                    fprintf(f, ",\"kind\":\"%s\",\"layer\":\"%s\",\"running_s\":", is_range ? "range" : "call",
                            layer_str(tr->names[c->name].layer));
                    if (running)
                        fprintf(f, "%.6f", since);
                    else
                        fputs("null", f);   /* the process ended with it unfinished */
                    if (!is_range) {
                        char *args = NULL;
                        size_t len = 0;
                        FILE *m = open_memstream(&args, &len);
                        if (m) {
                            dump_call_args(m, tr, c);
                            fclose(m);
                            fputs(",\"args\":", f);
                            json_str(f, args ? args : "");
                            free(args);
                        }
                    }
                    fputc('}', f);
                } else {
                    fprintf(f, "%s%s", k ? " > " : "", call_name(tr, c, nbuf, sizeof nbuf));
                    if (!is_range) {
                        fputc('(', f);
                        dump_call_args(f, tr, c);
                        fputc(')', f);
                    }
                    if (running) {
                        fputs(" <running ", f);
                        put_secs(f, since);
                        fputc('>', f);
                    } else {
                        fputs(" <unfinished>", f);   /* when the process ended, or was killed */
                    }
                }
            }
            if (json) {
                fputs("],\"last\":", f);
                if (s->last.t1) {
                    fputs("{\"name\":", f);
                    json_str(f, tr->names[s->last.name].name);
                    fprintf(f, ",\"ago_s\":%.6f}", ref > s->last.t1 ? (double)(ref - s->last.t1) / 1e9 : 0.0);
                } else
                    fputs("null", f);
                fputc('}', f);
            } else {
                if (s->last.t1) {
                    fprintf(f, "\n      last completed: %s, ", tr->names[s->last.name].name);
                    put_secs(f, ref > s->last.t1 ? (double)(ref - s->last.t1) / 1e9 : 0);
                    fputs(running ? " ago" : " before its last record", f);
                }
                fputc('\n', f);
            }
        }
        if (json)
            fputs("]}", f);
    }
    /* communicators across ranks: the k-th of each process */
    unsigned maxc = 0;
    for (size_t pi = 0; pi < tr->nprocs; pi++)
        if (pr[pi].ncomms > maxc && (!only_pid || tr->procs[pi].h.pid == only_pid))
            maxc = pr[pi].ncomms;
    fputs(json ? "],\"communicators\":[" : "", f);
    for (unsigned k = 0; k < maxc; k++) {
        uint64_t lo = UINT64_MAX, hi = 0;
        for (size_t pi = 0; pi < tr->nprocs; pi++)
            if (k < pr[pi].ncomms && (!only_pid || tr->procs[pi].h.pid == only_pid)) {
                lo = pr[pi].comms[k].issued < lo ? pr[pi].comms[k].issued : lo;
                hi = pr[pi].comms[k].issued > hi ? pr[pi].comms[k].issued : hi;
            }
        if (json)
            fprintf(f, "%s{\"index\":%u,\"ranks\":[", k ? "," : "", k);
        else
            fprintf(f, "NCCL communicator #%u (in order of first use in each process)%s\n", k,
                    lo != hi ? ": ranks differ" : "");
        int firstr = 1;
        for (size_t pi = 0; pi < tr->nprocs; pi++) {
            const struct tr_proc *p = &tr->procs[pi];
            if (k >= pr[pi].ncomms || (only_pid && p->h.pid != only_pid))
                continue;
            const struct ps_comm *pc = &pr[pi].comms[k];
            if (json) {
                fprintf(f, "%s{\"rank\":%d,\"pid\":%d,\"comm\":\"0x%" PRIx64 "\",\"issued\":%" PRIu64 ",\"in_progress\":",
                        firstr ? "" : ",", p->h.rank, p->h.pid, pc->handle, pc->issued);
                if (pc->in_progress) {
                    fprintf(f, "{\"number\":%u,\"name\":", pc->in_progress_no);
                    json_str(f, tr->names[pc->in_progress->name].name);
                    fputc('}', f);
                } else
                    fputs("null", f);
                fputc('}', f);
            } else {
                if (p->h.rank >= 0)
                    fprintf(f, "  rank %d (pid %d, comm 0x%" PRIx64 "): %" PRIu64 " issued", p->h.rank, p->h.pid,
                            pc->handle, pc->issued);
                else   /* no RANK in its environment */
                    fprintf(f, "  pid %d (comm 0x%" PRIx64 "): %" PRIu64 " issued", p->h.pid, pc->handle, pc->issued);
                if (pc->in_progress)
                    fprintf(f, ", #%u %s in progress", pc->in_progress_no, tr->names[pc->in_progress->name].name);
                if (lo != hi && pc->issued == lo)
                    fputs("   <-- behind", f);
                fputc('\n', f);
            }
            firstr = 0;
        }
        if (json)
            fputs("]}", f);
    }
    if (json)
        fputs("]}\n", f);
    free(th);
    free(pr);
    return stuck;
}

/* The trace directory of a running process: CUTAP_TRACE in its
 * environment, relative to its working directory. */
static int dir_of_pid(pid_t pid, char *dir, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
    FILE *e = fopen(path, "r");
    if (!e)
        return -1;
    /* all of it: setenv puts a variable last */
    size_t n = 0, cap = 1 << 16;
    char *buf = xcalloc(cap + 1, 1);
    for (size_t got; (got = fread(buf + n, 1, cap - n, e)) > 0;) {
        n += got;
        if (n == cap) {
            char *b = realloc(buf, 2 * cap + 1);
            if (!b)
                break;
            buf = b, cap *= 2;
        }
    }
    fclose(e);
    buf[n] = 0;
    int found = -1;
    for (size_t i = 0; i < n && found; i += strlen(buf + i) + 1)
        if (!strncmp(buf + i, "CUTAP_TRACE=", 12) && buf[i + 12]) {
            const char *v = buf + i + 12;
            if (v[0] == '/')
                snprintf(dir, size, "%s", v);
            else {
                char cwd[4096], link[64];
                snprintf(link, sizeof link, "/proc/%d/cwd", (int)pid);
                ssize_t k = readlink(link, cwd, sizeof cwd - 1);
                if (k <= 0)
                    break;
                cwd[k] = 0;
                snprintf(dir, size, "%s/%s", cwd, v);   /* its working directory now */
            }
            found = 0;
        }
    free(buf);
    return found;
}

static volatile sig_atomic_t stop;
static void on_int(int sig) { (void)sig, stop = 1; }

int cmd_ps(int argc, char **argv)
{
    int json = 0, watch = 0, c;
    double stuck_s = -1, interval = 1;
    pid_t pid = 0;
    char *end;
    tr_no_notes = 1;   /* the view says what is live; rings and captures are report's to explain */
    while ((c = cli_getopt(argc, argv, "ps", "")) != -1) {
        switch (c) {
        case 'f':
            if (!strcmp(optarg, "json"))
                json = 1;
            else if (strcmp(optarg, "text")) {
                fprintf(stderr, "cutap ps: unknown format '%s' (text, json)\n", optarg);
                return 2;
            }
            break;
        case 's':
            stuck_s = strtod(optarg, &end);
            if (*end || stuck_s < 0) {
                fprintf(stderr, "cutap ps: --stuck takes seconds, not '%s'\n", optarg);
                return 2;
            }
            break;
        case 'i':
            interval = strtod(optarg, &end);
            if (*end || interval <= 0) {
                fprintf(stderr, "cutap ps: --interval takes seconds, not '%s'\n", optarg);
                return 2;
            }
            break;
        case 'w': watch = 1; break;
        case 'p': {
            long v = strtol(optarg, &end, 10);
            if (*end || v <= 0) {
                fprintf(stderr, "cutap ps: --pid takes a process id, not '%s'\n", optarg);
                return 2;
            }
            pid = (pid_t)v;
            break;
        }
        case 'h': fputs(usage, stdout); return 0;
        default: return cli_usage_error(usage, NULL);
        }
    }
    char dir[4200];
    if (pid) {
        if (optind != argc || dir_of_pid(pid, dir, sizeof dir)) {
            fprintf(stderr, "cutap ps: process %d is not traced by cutap (no CUTAP_TRACE in its environment), or "
                            "not readable\n", (int)pid);
            return 1;
        }
        /* The directory is whatever the process's user put in CUTAP_TRACE:
         * read by root, a link of theirs would lead it into files only root
         * may read. The rules of trace -o apply: ours, reached through no
         * other user's link, writable by nobody else; and in it, only our
         * files, no link followed. */
        const char *why = procs_dir_untrusted(dir, R_OK | X_OK);
        if (why) {
            fprintf(stderr, "cutap ps: refusing to read %s, the trace directory of process %d (its CUTAP_TRACE): "
                            "%s\n"
                            "          cutap ps --pid reads only a directory of the user running it: run it as the "
                            "directory's owner\n", dir, (int)pid, why);
            return 1;
        }
        tr_own_only = 1;
    } else if (optind + 1 == argc) {
        snprintf(dir, sizeof dir, "%s", argv[optind]);
    } else {
        return cli_usage_error(usage, "at most one trace directory");
    }
    signal(SIGINT, on_int);
    int stuck = 0;
    do {
        struct trace tr;
        if (tr_load(&tr, dir)) {
            fprintf(stderr, "cutap ps: nothing to read in %s\n", dir);
            return 1;
        }
        if (watch && !json && isatty(1))
            fputs("\033[H\033[2J", stdout);
        stuck = ps_view(&tr, stdout, json, stuck_s, pid);
        tr_free(&tr);
        fflush(stdout);
        if (watch && !stop) {
            struct timespec ts = {(time_t)interval, (long)((interval - (double)(time_t)interval) * 1e9)};
            nanosleep(&ts, NULL);
        }
    } while (watch && !stop);
    if (stuck_s >= 0 && stuck)
        fprintf(stderr, "cutap ps: %d call%s running longer than %g s\n", stuck, stuck == 1 ? "" : "s", stuck_s);
    return stuck ? 1 : 0;
}
