/* `cutap trace` and `cutap stat`: run a command with libcutap.so preloaded
 * and the recorder configured through the environment, so that every
 * descendant (fork, exec, shells, Python multiprocessing) inherits it.
 * cutap becomes the child subreaper: orphaned descendants are reparented to
 * it, and it waits until the last one has exited, so their trace files are
 * complete when it reports. It exits with the command's status (128+N when
 * signal N killed it). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cutap.h"
#include "cutap_format.h"
#include "cutap_registry.h"
#include "path_search.h"
#include "cli.h"
#include "filter_expr.h"
#include "inject_spec.h"
#include "decode_tables.h"
#include "generated/cutap_ids.h"

/* The core, libcutap_core.so, beside the front: what the front loads at
 * the first CUDA call (src/front/front_internal.h). Missing, the program
 * would run untraced: refused before anything runs. */
static int core_beside(const char *lib)
{
    char p[PATH_MAX + 32];
    const char *slash = strrchr(lib, '/');
    snprintf(p, sizeof p, "%.*s/libcutap_core.so", slash ? (int)(slash - lib) : 1, slash ? lib : ".");
    if (!access(p, R_OK))
        return 0;
    fprintf(stderr, "cutap: %s: %s (it is built and installed beside libcutap.so)\n", p, strerror(errno));
    return -1;
}

/* libcutap.so: $CUTAP_LIBRARY, else beside the cutap binary (build/), else
 * ../lib/ of it (an installed layout); its core beside it. */
static int find_library(char *out, size_t size)
{
    const char *env = getenv("CUTAP_LIBRARY");
    if (env && *env) {
        if (access(env, R_OK)) {
            fprintf(stderr, "cutap: CUTAP_LIBRARY=%s: %s\n", env, strerror(errno));
            return -1;
        }
        return realpath(env, out) ? core_beside(out) : -1;
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = 0;
    char *slash = strrchr(self, '/');
    *slash = 0;
    static const char *const rel[] = {"libcutap.so", "../lib/libcutap.so"};
    for (size_t i = 0; i < 2; i++) {
        char p[PATH_MAX + 32];
        snprintf(p, sizeof p, "%s/%s", self, rel[i]);
        if (!access(p, R_OK) && realpath(p, out) && strlen(out) < size)
            return core_beside(out);
    }
    fprintf(stderr, "cutap: libcutap.so not found beside %s (set CUTAP_LIBRARY)\n", self);
    return -1;
}

/* Whether a LD_PRELOAD list (entries separated by ':' or spaces) has lib. */
static int preload_has(const char *list, const char *lib)
{
    size_t n = strlen(lib);
    for (const char *p = list; *p;) {
        size_t k = strcspn(p, ": ");
        if (k == n && !strncmp(p, lib, n))
            return 1;
        p += k;
        p += strspn(p, ": ");
    }
    return 0;
}

static int set_preload(const char *lib)
{
    const char *old = getenv("LD_PRELOAD");
    char *v;
    if (old && *old && !preload_has(old, lib)) {
        if (asprintf(&v, "%s:%s", lib, old) < 0)
            return -1;
    } else if (!(v = strdup(old && *old ? old : lib)))
        return -1;
    int rc = setenv("LD_PRELOAD", v, 1);
    free(v);
    return rc;
}

static volatile sig_atomic_t child_pid;     /* 0 once the command is reaped */
static volatile sig_atomic_t stop_waiting;
static volatile sig_atomic_t freeze_asked;   /* SIGUSR2 to cutap trace */
static const char *freeze_dir_name;          /* trace: the directory SIGUSR2 freezes */

static void on_usr2(int sig)
{
    (void)sig;
    freeze_asked = 1;
}

/* Freezes every traced process of a trace directory (issue #16): each
 * file's header gets freeze_request (through a mapping of its header
 * page, the field only readers write), and DIR/.cutap-freeze makes
 * processes that start later start frozen. A process sees the request
 * when it next needs a chunk: nothing recorded before is overwritten
 * after. Returns the files asked, -1 when the directory cannot be read. */
int cli_freeze_dir(const char *dir, uint32_t reason)
{
    char path[PATH_MAX + 256];
    snprintf(path, sizeof path, "%s/%s", dir, CUTAP_FREEZE_FILE);
    int mk = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (mk >= 0)
        close(mk);
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!tr_is_trace_name(e->d_name))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0)
            continue;
        struct stat st;
        if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size >= CUTAP_HEADER_SIZE) {
            struct cutap_file_header *h = mmap(NULL, CUTAP_HEADER_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            if (h != MAP_FAILED) {
                if (!memcmp(h->magic, CUTAP_FILE_MAGIC, 8) && h->version >= 5 && !(h->flags & CUTAP_FILE_CLOSED) &&
                    !h->freeze_clock && !h->freeze_request) {
                    __atomic_store_n(&h->freeze_request, reason, __ATOMIC_RELEASE);
                    n++;
                }
                munmap(h, CUTAP_HEADER_SIZE);
            }
        }
        close(fd);
    }
    closedir(d);
    return n;
}

/* --until-error: when a process froze on its first failing call, the
 * others are frozen too (every rank keeps what led there). Looked for
 * every 100 ms in the headers, from a thread of this command. */
static const char *peer_dir;
static pthread_t peer_thread;
static int peer_running;
static _Atomic int peer_quit;

static int any_error_freeze(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        if (!tr_is_trace_name(e->d_name))
            continue;
        char path[PATH_MAX + 256];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0)
            continue;
        struct cutap_file_header h;
        if (pread(fd, &h, sizeof h, 0) == (ssize_t)sizeof h && !memcmp(h.magic, CUTAP_FILE_MAGIC, 8) &&
            h.version >= 5 && h.freeze_clock && h.freeze_reason == CUTAP_FREEZE_ERROR)
            found = 1;
        close(fd);
    }
    closedir(d);
    return found;
}

static void *peer_main(void *arg)
{
    (void)arg;
    while (!atomic_load(&peer_quit)) {
        if (any_error_freeze(peer_dir)) {
            int n = cli_freeze_dir(peer_dir, CUTAP_FREEZE_PEER);
            fprintf(stderr, "cutap: a process froze on its first failing call (--until-error): %d other "
                            "process%s asked to freeze\n", n < 0 ? 0 : n, n == 1 ? "" : "es");
            break;
        }
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* SIGTERM/SIGHUP: passed on to the command while it runs; once it has
 * exited (cutap only waits for orphaned descendants), they end the wait. */
static void forward(int sig)
{
    if (child_pid > 0)
        kill(child_pid, sig);
    else
        stop_waiting = 1;
}

/* Runs argv with the environment prepared; returns the exit status to
 * give. *not_run: set when the command could not be started at all. */
/* cutap trace --stuck SECONDS: a thread of this command (never of the
 * traced processes) reads the trace directory every SECONDS/4 (1 s at
 * least, 10 s at most) and, when a call has been running longer than
 * SECONDS, writes the `cutap ps` view of every process into
 * DIR/cutap-stuck-<unix seconds>.txt, once per episode (again only after
 * no call was stuck at one look). */
static double watch_stuck = -1;
static const char *watch_dir;
static pthread_t watch_thread;
static int watch_running;
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watch_cond = PTHREAD_COND_INITIALIZER;
static int watch_quit;

static void *watchdog(void *arg)
{
    (void)arg;
    tr_quiet = 1;   /* the only reader of traces in this process */
    double step = watch_stuck / 4 < 1 ? 1 : watch_stuck / 4 > 10 ? 10 : watch_stuck / 4;
    int armed = 1;
    pthread_mutex_lock(&watch_lock);
    while (!watch_quit) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += (time_t)step;
        until.tv_nsec += (long)((step - (double)(time_t)step) * 1e9);
        if (until.tv_nsec >= 1000000000L)
            until.tv_sec++, until.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&watch_cond, &watch_lock, &until);
        if (watch_quit)
            break;
        pthread_mutex_unlock(&watch_lock);
        struct timespec l0, l1;
        clock_gettime(CLOCK_MONOTONIC, &l0);
        struct trace tr;
        int stuck = 0;
        char *text = NULL;
        size_t len = 0;
        if (!tr_load(&tr, watch_dir)) {
            FILE *m = open_memstream(&text, &len);
            if (m) {
                stuck = ps_view(&tr, m, 0, watch_stuck, 0);
                fclose(m);
            }
            tr_free(&tr);
        }
        if (stuck && armed && text) {
            char path[PATH_MAX + 64];
            snprintf(path, sizeof path, "%s/cutap-stuck-%lld.txt", watch_dir, (long long)time(NULL));
            int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
            if (fd >= 0) {
                (void)!write(fd, text, len);
                close(fd);
                fprintf(stderr, "cutap: a call has been running longer than %g s: %s\n", watch_stuck, path);
                armed = 0;
            }
        } else if (!stuck) {
            armed = 1;
        }
        free(text);
        /* a look reads the whole trace: on a long one, wait ten times what
         * it took, so that the watch takes at most a tenth of a core */
        clock_gettime(CLOCK_MONOTONIC, &l1);
        double took = (double)(l1.tv_sec - l0.tv_sec) + (double)(l1.tv_nsec - l0.tv_nsec) / 1e9;
        double base = watch_stuck / 4 < 1 ? 1 : watch_stuck / 4 > 10 ? 10 : watch_stuck / 4;
        step = 10 * took > base ? 10 * took : base;
        pthread_mutex_lock(&watch_lock);
    }
    pthread_mutex_unlock(&watch_lock);
    return NULL;
}

static void watchdog_start(void)
{
    if (watch_stuck <= 0 || !watch_dir)
        return;
    /* signals stay with the main thread (it forwards them to the command) */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    if (!pthread_create(&watch_thread, NULL, watchdog, NULL))
        watch_running = 1;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void watchdog_stop(void)
{
    if (!watch_running)
        return;
    pthread_mutex_lock(&watch_lock);
    watch_quit = 1;
    pthread_cond_signal(&watch_cond);
    pthread_mutex_unlock(&watch_lock);
    pthread_join(watch_thread, NULL);
    watch_running = 0;
}

struct sigaction cli_xfsz_default;   /* set by main() */

static int run_command(char **argv, int *not_run)
{
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    /* Like system(): the terminal's SIGINT/SIGQUIT reach the command's
     * process group directly; cutap outlives them to finish its report.
     * SIGTERM and SIGHUP sent to cutap alone are passed on. */
    struct sigaction ign = {.sa_handler = SIG_IGN}, fwd = {.sa_handler = forward}, oint, oquit;
    sigaction(SIGINT, &ign, &oint);
    sigaction(SIGQUIT, &ign, &oquit);
    sigaction(SIGTERM, &fwd, NULL);
    sigaction(SIGHUP, &fwd, NULL);
    struct sigaction u2 = {.sa_handler = on_usr2}, ousr2;
    if (freeze_dir_name)
        sigaction(SIGUSR2, &u2, &ousr2);
    fflush(NULL);
    /* the child says through this pipe (closed by a successful exec)
     * that the command could not be run */
    int ep[2];
    *not_run = 0;
    if (pipe2(ep, O_CLOEXEC)) {
        fprintf(stderr, "cutap: pipe: %s\n", strerror(errno));
        *not_run = 1;
        return 127;
    }
    child_pid = fork();
    if (child_pid < 0) {
        fprintf(stderr, "cutap: fork: %s\n", strerror(errno));
        close(ep[0]);
        close(ep[1]);
        *not_run = 1;
        return 127;
    }
    if (child_pid == 0) {
        sigaction(SIGINT, &oint, NULL);
        sigaction(SIGQUIT, &oquit, NULL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        sigaction(SIGXFSZ, &cli_xfsz_default, NULL);
        if (freeze_dir_name)
            sigaction(SIGUSR2, &ousr2, NULL);
        close(ep[0]);
        char buf[PATH_MAX];
        procs_note_exec(cutap_path_search(argv[0], buf, sizeof buf));
        execvp(argv[0], argv);
        int e = errno;
        (void)!write(ep[1], &e, sizeof e);
        fprintf(stderr, "cutap: cannot run %s: %s\n", argv[0], strerror(e));
        _exit(127);
    }
    close(ep[1]);
    watchdog_start();   /* after the fork: the child never inherits its thread */
    if (peer_dir) {
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &old);
        peer_running = !pthread_create(&peer_thread, NULL, peer_main, NULL);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    int e;
    ssize_t got;
    while ((got = read(ep[0], &e, sizeof e)) < 0 && errno == EINTR) {}
    *not_run = got == (ssize_t)sizeof e;
    close(ep[0]);
    int status = 0, code = 0;
    pid_t cmd = child_pid;
    for (;;) {
        int st;
        pid_t p = waitpid(-1, &st, 0);
        if (freeze_asked) {
            freeze_asked = 0;
            int n = cli_freeze_dir(freeze_dir_name, CUTAP_FREEZE_REQUEST);
            fprintf(stderr, "cutap: SIGUSR2: %d process%s asked to freeze (recorded calls are kept; later "
                            "ones are counted)\n", n < 0 ? 0 : n, n == 1 ? "" : "es");
        }
        if (p < 0) {
            if (errno == EINTR && !stop_waiting)
                continue;
            break;   /* ECHILD: the command and every descendant are gone */
        }
        if (p == cmd && child_pid) {
            status = st;
            child_pid = 0;
        }
    }
    watchdog_stop();
    if (peer_running) {
        atomic_store(&peer_quit, 1);
        pthread_join(peer_thread, NULL);
        peer_running = 0;
    }
    if (freeze_dir_name)
        sigaction(SIGUSR2, &ousr2, NULL);
    if (WIFEXITED(status))
        code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        code = 128 + WTERMSIG(status);
    return code;
}

struct run_opts {
    const char *out;
    const char *filter;
    int time_all;              /* stat --time-all */
    int no_nvtx;               /* trace --no-nvtx */
    int force;                 /* stat --force: replace an existing -o FILE */
    const char *runtime;       /* --runtime=symbols|cupti, NULL: symbols */
    double stuck;              /* trace --stuck SECONDS; < 0: off */
    unsigned long long ring;   /* trace --ring SIZE, bytes; 0: off */
    double delay, duration;    /* trace --delay / --duration, seconds; < 0: not given */
    const char *capture_range; /* trace --capture-range */
    const char *until_error;   /* trace --until-error FILTER */
    const char *sync_launches; /* trace --sync-launches FILTER */
    const char *stack;         /* trace --stack FILTER (the term errors: failing calls) */
    char inject[8192];         /* --inject SPECs, canonical, one a line (CUTAP_INJECT) */
    int ninject;
    char **cmd;
};

/* A status to show as an example of a status type: its first failure
 * (vals[0] is the success), or NULL. */
static const struct dec_enum_val *status_example(const struct dec_enum *e)
{
    for (unsigned k = 0; e && k < e->nvals; k++)
        if (e->vals[k].value)
            return &e->vals[k];
    return NULL;
}

/* Whether sp's number fits f's result type (e: its status enum, or NULL).
 * The library hands the caller the value in the return register, where
 * a caller of a 32-bit CUresult reads only the low half: 4294967296 would
 * arrive as 0, CUDA_SUCCESS, and the call seem to succeed without having
 * been made. Returns 0, or -1 after saying what the type holds. */
static int inject_in_range(const char *arg, const struct cutap_inject_spec *sp, const struct dec_fn *f,
                           const struct dec_enum *e)
{
    unsigned bits = 8u * f->result_size;
    uint64_t mask = bits >= 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
    int64_t v = (int64_t)sp->value, lo = 0;
    uint64_t hi = mask;
    if (f->result_signed) {
        lo = bits >= 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
        hi = mask >> 1;
    }
    if (sp->value_neg ? f->result_signed && v >= lo : sp->value <= hi)
        return 0;
    /* what the caller would receive instead: the low bits, sign-extended
     * for a signed type */
    uint64_t low = sp->value & mask;
    char given[32], got[32];
    if (sp->value_neg)
        snprintf(given, sizeof given, "%lld", (long long)v);
    else
        snprintf(given, sizeof given, "%llu", (unsigned long long)sp->value);
    if (f->result_signed && bits < 64 && (low >> (bits - 1)))
        snprintf(got, sizeof got, "%lld", (long long)(int64_t)(low | ~mask));
    else
        snprintf(got, sizeof got, "%llu", (unsigned long long)low);
    const char *got_name = NULL;
    for (unsigned k = 0; e && k < e->nvals && !got_name; k++)
        if ((uint64_t)e->vals[k].value == low)
            got_name = e->vals[k].name;
    fprintf(stderr, "cutap: --inject '%s': %s is out of the range of %s, the result type of %s (%lld..%llu): the "
                    "caller would get %s%s%s\n", arg, given, f->result_type, f->name, (long long)lo,
            (unsigned long long)hi, got, got_name ? ", " : "", got_name ? got_name : "");
    const struct dec_enum_val *ex = status_example(e);
    if (ex)
        fprintf(stderr, "       give a status of %s, by name or number: e.g. %s (%lld)\n", f->result_type, ex->name,
                (long long)ex->value);
    return -1;
}

/* A --inject SPEC (src/common/inject_spec.h), checked against every
 * function cutap knows before anything runs: NAMES must select at least
 * one, each of a layer whose calls can be skipped (not hidden, ioctl,
 * nvtx) and known by signature; error= needs functions that return a
 * status, and a status name must be one of each selected function's
 * status type (CUDA_ERROR_OUT_OF_MEMORY for the driver, cudaError... for
 * the runtime, CUBLAS_STATUS_... for cuBLAS, ncclSystemError for NCCL).
 * Appends the canonical form, names turned into numbers, to o->inject.
 * Returns 0, or 2 after saying which part is wrong. */
static int inject_add(struct run_opts *o, const char *arg)
{
    struct cutap_inject_spec sp;
    char why[400];
    if (o->ninject >= CUTAP_INJECT_MAX) {
        fprintf(stderr, "cutap: --inject: at most %d specs\n", CUTAP_INJECT_MAX);
        return 2;
    }
    if (cutap_inject_parse(arg, strlen(arg), &sp, why, sizeof why)) {
        fprintf(stderr, "cutap: --inject '%s': %s\n", arg, why);
        return 2;
    }
    static const char *const lnames[] = CUTAP_LAYER_NAMES;
    unsigned nsel = 0;
    int resolved = !sp.value_name[0];
    uint64_t val = sp.value;
    const char *first = NULL;
    for (unsigned i = 0; i < cli_nknown_names; i++) {
        const char *name = cli_known_names[i].name;
        int layer = cli_known_names[i].layer;
        if (cutap_filter_eval(sp.names, name, layer, NULL) != 1)
            continue;
        nsel++;
        const char *ln = layer >= 0 && layer < (int)(sizeof lnames / sizeof *lnames) ? lnames[layer] : "?";
        if (layer == CUTAP_LAYER_HIDDEN || layer == CUTAP_LAYER_IOCTL || layer == CUTAP_LAYER_NVTX) {
            fprintf(stderr, "cutap: --inject '%s': '%s' selects %s, of layer %s, whose calls cannot be injected "
                            "(driver, runtime and library calls can)\n", arg, sp.names, name, ln);
            return 2;
        }
        const struct dec_set *set = layer == CUTAP_LAYER_DRIVER ? &dec_driver : &dec_layers;
        const struct dec_fn *f = dec_find_fn(set, name);
        if (!f) {
            fprintf(stderr, "cutap: --inject '%s': %s has no known signature: it cannot be injected\n", arg, name);
            return 2;
        }
        if (!sp.has_value)
            continue;
        if (!f->result_type) {
            /* the library cannot skip such a call (src/record/inject.c) */
            fprintf(stderr, "cutap: --inject '%s': no header declares %s: its result cannot be set "
                            "(delay= can still be injected)\n", arg, name);
            return 2;
        }
        if (!f->result_size) {
            fprintf(stderr, "cutap: --inject '%s': %s returns nothing (void): error= and retval= have no "
                            "result to set\n", arg, name);
            return 2;
        }
        int has_status = f->result_kind == DEC_ENUM && f->result_enum >= 0;
        if (sp.is_error && !has_status) {
            fprintf(stderr, "cutap: --inject '%s': error= needs functions that return a status; %s does not "
                            "(retval= sets any result)\n", arg, name);
            return 2;
        }
        const struct dec_enum *e = has_status ? &set->enums[f->result_enum] : NULL;
        if (!sp.value_name[0]) {
            if (inject_in_range(arg, &sp, f, e))
                return 2;
            continue;
        }
        int found = 0;
        for (unsigned k = 0; e && k < e->nvals; k++)
            if (!strcmp(e->vals[k].name, sp.value_name)) {
                if (resolved && (uint64_t)e->vals[k].value != val) {
                    fprintf(stderr, "cutap: --inject '%s': %s means %lld for %s but %llu for %s: give a number, or one "
                                    "spec per layer\n", arg, sp.value_name, (long long)e->vals[k].value, name,
                            (unsigned long long)val, first);
                    return 2;
                }
                val = (uint64_t)e->vals[k].value;
                found = resolved = 1;
                first = first ? first : name;
                break;
            }
        if (!found) {
            const struct dec_enum_val *ex = status_example(e);
            fprintf(stderr, "cutap: --inject '%s': '%s' is not a status of %s (layer %s%s%s%s%s)\n", arg,
                    sp.value_name, name, ln, e ? ", type " : "", e ? f->result_type : "", ex ? ", e.g. " : "",
                    ex ? ex->name : "");
            return 2;
        }
    }
    if (!nsel) {
        fprintf(stderr, "cutap: --inject '%s': '%s' selects none of the %u functions cutap knows\n", arg, sp.names,
                cli_nknown_names);
        return 2;
    }
    sp.value = val;
    sp.value_name[0] = 0;
    size_t used = strlen(o->inject);
    int n = cutap_inject_format(&sp, o->inject + used, sizeof o->inject - used - 1);
    if (n < 0) {
        fprintf(stderr, "cutap: --inject: the specs are too long together\n");
        return 2;
    }
    o->inject[used + (size_t)n] = '\n';
    o->inject[used + (size_t)n + 1] = 0;
    o->ninject++;
    return 0;
}

/* A size: a number of bytes with an optional K, M, G (powers of 1024,
 * optionally followed by iB or B); 0 when it is not one. */
static unsigned long long parse_size(const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || v <= 0)
        return 0;
    double m = 1;
    if (*end == 'K' || *end == 'k')
        m = 1024.0, end++;
    else if (*end == 'M' || *end == 'm')
        m = 1024.0 * 1024, end++;
    else if (*end == 'G' || *end == 'g')
        m = 1024.0 * 1024 * 1024, end++;
    if (m > 1 && (!strcmp(end, "iB") || !strcmp(end, "B")))
        end += strlen(end);
    if (*end || v * m > 1e15)
        return 0;
    return (unsigned long long)(v * m);
}

static int parse_seconds(const char *opt, const char *arg, double *v, const char *usage)
{
    char *end;
    errno = 0;
    *v = strtod(arg, &end);
    if (errno || end == arg || *end || *v < 0 || *v > 1e9 || *v != *v) {
        fprintf(stderr, "cutap: %s takes seconds (0 or more), not '%s'\n%s", opt, arg, usage);
        return 2;
    }
    return 0;
}

/* stat: whether --time-all is accepted */
/* A filter that selects no function cutap knows is most likely a typo
 * (cuMemalloc*): said at start; the command still runs, since functions
 * met at run time (newer driver exports, export-table slots) may match. */
static void filter_check_known(const char *filter)
{
    for (unsigned i = 0; i < cli_nknown_names; i++)
        if (cutap_filter_eval(filter, cli_known_names[i].name, cli_known_names[i].layer, NULL) == 1)
            return;
    /* layer=hidden selects export-table slots, named at run time */
    if (cutap_filter_eval(filter, NULL, CUTAP_LAYER_HIDDEN, NULL) == 1)
        return;
    fprintf(stderr, "cutap: warning: -e '%s' selects none of the %u functions cutap knows "
                    "(functions met at run time may still match)\n", filter, cli_nknown_names);
}

static int parse(int argc, char **argv, struct run_opts *o, const char *usage, int stat)
{
    static const struct option longopts[] = {{"output", required_argument, 0, 'o'},
                                             {"filter", required_argument, 0, 'e'},
                                             {"time-all", no_argument, 0, 'T'},
                                             {"no-nvtx", no_argument, 0, 'N'},
                                             {"stuck", required_argument, 0, 'K'},
                                             {"runtime", required_argument, 0, 'R'},
                                             {"force", no_argument, 0, 'F'},
                                             {"ring", required_argument, 0, 'g'},
                                             {"delay", required_argument, 0, 'y'},
                                             {"duration", required_argument, 0, 'u'},
                                             {"capture-range", required_argument, 0, 'c'},
                                             {"until-error", required_argument, 0, 'E'},
                                             {"inject", required_argument, 0, 'J'},
                                             {"sync-launches", required_argument, 0, 'Y'},
                                             {"stack", required_argument, 0, 'S'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    o->stuck = -1;
    o->delay = o->duration = -1;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "+o:e:h", longopts, NULL)) != -1) {
        if (c == 'T' && !stat) {
            fprintf(stderr, "cutap: --time-all is an option of cutap stat\n");
            c = '?';
        }
        if (c == 'F' && !stat) {
            fprintf(stderr, "cutap: --force is an option of cutap stat\n");
            c = '?';
        }
        if (c == 'N' && stat) {
            fprintf(stderr, "cutap: --no-nvtx is an option of cutap trace\n");
            c = '?';
        }
        if (stat && (c == 'g' || c == 'y' || c == 'u' || c == 'c' || c == 'E')) {
            fprintf(stderr, "cutap: --ring, --delay, --duration, --capture-range and --until-error are options of "
                            "cutap trace\n");
            c = '?';
        }
        switch (c) {
        case 'o': o->out = optarg; break;
        case 'T': o->time_all = 1; break;
        case 'N': o->no_nvtx = 1; break;
        case 'K': {
            char *end;
            o->stuck = strtod(optarg, &end);
            if (stat || *end || o->stuck <= 0) {
                fprintf(stderr, "cutap: --stuck takes seconds (trace only), not '%s'\n%s", optarg, usage);
                return 2;
            }
            break;
        }
        case 'F': o->force = 1; break;
        case 'g':
            o->ring = parse_size(optarg);
            if (o->ring < (1ull << 20) || o->ring > (64ull << 30)) {
                fprintf(stderr, "cutap: --ring takes a size from 1M to 64G (4M, 512M, 1G), not '%s'\n%s", optarg,
                        usage);
                return 2;
            }
            break;
        case 'y':
            if (parse_seconds("--delay", optarg, &o->delay, usage))
                return 2;
            break;
        case 'u':
            if (parse_seconds("--duration", optarg, &o->duration, usage))
                return 2;
            if (o->duration <= 0) {
                fprintf(stderr, "cutap: --duration takes seconds (more than 0), not '%s'\n%s", optarg, usage);
                return 2;
            }
            break;
        case 'c':
            if (strcmp(optarg, "cudaProfilerApi") && (strncmp(optarg, "nvtx:", 5) || !optarg[5] || strlen(optarg) > 255)) {
                fprintf(stderr, "cutap: --capture-range takes cudaProfilerApi or nvtx:NAME (a range's message, up "
                                "to 250 bytes), not '%s'\n%s", optarg, usage);
                return 2;
            }
            o->capture_range = optarg;
            break;
        case 'J':
            if (inject_add(o, optarg))
                return 2;
            break;
        case 'S': {
            /* the filter language, plus the term errors */
            char expr[1024];
            cutap_stack_filter_split(optarg, expr, sizeof expr);
            size_t n = strlen(expr);
            const char *bad = NULL;
            if (stat || !*optarg || (n && cutap_filter_eval(expr, NULL, 0, &bad) < 0)) {
                fprintf(stderr, "cutap: --stack '%s': %s\n", optarg,
                        stat ? "an option of cutap trace" : bad ? bad : "no filter");
                return 2;
            }
            if (n)
                filter_check_known(expr);
            o->stack = optarg;
            break;
        }
        case 'Y': {
            const char *bad = NULL;
            if (stat || cutap_filter_eval(optarg, NULL, 0, &bad) < 0) {
                fprintf(stderr, "cutap: --sync-launches '%s': %s\n", optarg, stat ? "an option of cutap trace" : bad);
                return 2;
            }
            o->sync_launches = optarg;
            filter_check_known(optarg);
            break;
        }
        case 'E': {
            const char *bad = NULL;
            if (cutap_filter_eval(optarg, NULL, 0, &bad) < 0) {
                fprintf(stderr, "cutap: --until-error '%s': %s\n", optarg, bad);
                return 2;
            }
            o->until_error = optarg;
            filter_check_known(optarg);
            break;
        }
        case 'R':
            if (strcmp(optarg, "symbols") && strcmp(optarg, "cupti") && strcmp(optarg, "all")) {
                fprintf(stderr, "cutap: --runtime=%s: takes all, symbols or cupti\n%s", optarg, usage);
                return 2;
            }
            /* all: the documented name (issue #14) of what cupti does */
            o->runtime = strcmp(optarg, "all") ? optarg : "cupti";
            break;
        case 'e': {
            const char *bad = NULL;
            if (cutap_filter_eval(optarg, NULL, 0, &bad) < 0) {
                fprintf(stderr, "cutap: -e '%s': %s\n", optarg, bad);
                return 2;
            }
            o->filter = optarg;
            filter_check_known(optarg);
            break;
        }
        case 'h': fputs(usage, stdout); exit(0);
        default: fputs(usage, stderr); return 2;
        }
    }
    if (o->capture_range && !strncmp(o->capture_range, "nvtx:", 5) && o->no_nvtx) {
        fprintf(stderr, "cutap: --capture-range nvtx:NAME needs NVTX ranges: not with --no-nvtx\n");
        return 2;
    }
    if (optind >= argc) {
        fprintf(stderr, "cutap: no command to run\n%s", usage);
        return 2;
    }
    o->cmd = argv + optind;
    return 0;
}

static int count_traces(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        n += tr_is_trace_name(e->d_name);
    }
    closedir(d);
    return n;
}

static int prepare_env(const char *mode_var, const char *dir, const char *filter, const char *runtime)
{
    char lib[PATH_MAX], abs[PATH_MAX];
    if (find_library(lib, sizeof lib))
        return -1;
    if (!realpath(dir, abs)) {
        fprintf(stderr, "cutap: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    unsetenv("CUTAP_TRACE");
    unsetenv("CUTAP_COUNT");
    unsetenv("CUTAP_FILTER");
    unsetenv("CUTAP_RUNTIME");   /* like the filter: the option decides, default symbols */
    if (set_preload(lib) || setenv(mode_var, abs, 1) || (filter && setenv("CUTAP_FILTER", filter, 1)) ||
        (runtime && setenv("CUTAP_RUNTIME", runtime, 1))) {
        fprintf(stderr, "cutap: cannot set the environment\n");
        return -1;
    }
    return 0;
}

#define RUNTIME_HELP                                                                                  \
    "  --runtime=all|symbols    where runtime-API calls (cudaMalloc, ...) come from: symbols (default)\n" \
    "                           intercepts a shared libcudart only; all (also spelled cupti) adds the\n" \
    "                           runtimes linked statically into the program and into libraries (cuDNN,\n" \
    "                           cuBLAS, libtorch_cuda, XLA), from CUPTI's runtime callbacks, each call\n" \
    "                           once, named by its object. Needs libcupti (CUTAP_CUPTI_LIB,\n"            \
    "                           libcupti.so.13, $CUDA_HOME); calls made before the first cuInit returns\n" \
    "                           are not seen\n"
#define FILTER_HELP                                                                                   \
    "  -e FILTER                record only the calls FILTER selects: comma-separated globs on the\n"     \
    "                           function name (cuMem*, cudaMemcpy*, cublasGemm*), layer=NAME (driver,\n" \
    "                           hidden, runtime, cublas, cublasLt, cudnn, nccl, cufft, curand,\n"        \
    "                           cusparse, cusolver, nvrtc, nvJitLink, nvtx, nvml); a leading ! excludes\n"
static const char trace_usage[] =
    "usage: cutap trace [-o DIR] [-e FILTER] [--runtime=all|symbols] [--no-nvtx] [--stuck S]\n"
    "                   [--ring SIZE] [--delay S] [--duration S] [--capture-range WHAT]\n"
    "                   [--until-error FILTER] -- CMD [ARGS...]\n"
    "Runs CMD, and every process it starts, with every CUDA call recorded: one trace file per\n"
    "process in DIR; ends with a summary (processes, calls, losses, processes not traced) and\n"
    "exits with CMD's status.\n"
    "  -o DIR                   the trace directory (default: cutap-YYYYMMDD-HHMMSS, not kept when\n"
    "                           nothing was recorded); refused if it holds a trace, is a symbolic\n"
    "                           link, belongs to another user or others can write it\n"
    FILTER_HELP RUNTIME_HELP
    "  --stuck S                when a call has been running longer than S seconds, write what\n"
    "                           every process is doing (cutap ps) into DIR/cutap-stuck-TIME.txt,\n"
    "                           once per episode; watched from this command, not the program\n"
    "  --ring SIZE              flight recorder: each process keeps only its newest SIZE (1M..64G;\n"
    "                           4M, 1G) of call records, overwriting the oldest; report, dump and\n"
    "                           export say how many were overwritten. SIGUSR2 to this command (or\n"
    "                           cutap freeze DIR) freezes every process's trace: nothing recorded is\n"
    "                           overwritten any more, later calls are counted\n"
    "  --until-error FILTER     freeze a process at the first failing call FILTER selects ('*': any),\n"
    "                           and then every other process of the command\n"
    "  --delay S, --duration S  record only from S seconds after the start, for S seconds; calls\n"
    "                           outside are counted, not recorded\n"
    "  --capture-range WHAT     record only between cudaProfilerStart and cudaProfilerStop\n"
    "                           (cudaProfilerApi; cuProfilerStart/Stop too), or inside the NVTX ranges\n"
    "                           whose message is NAME (nvtx:NAME); calls outside are counted\n"
    "  --inject SPEC            fault injection (see cutap run --help); injected calls are marked\n"
    "  --stack FILTER           the native stack of each call FILTER selects, and with the term\n"
    "                           errors of each failing call ('errors', 'cuMemAlloc*,errors'): dump\n"
    "                           and report --errors show them, named from the objects' symbols\n"
    "  --sync-launches FILTER   synchronise after each launch FILTER selects (cuLaunchKernel*,\n"
    "                           cudaLaunchKernel): a kernel's error is returned by its own launch, as\n"
    "                           with CUDA_LAUNCH_BLOCKING=1 for those launches only (report --errors)\n"
    "  --no-nvtx                do not record NVTX ranges and marks (by default cutap is the NVTX\n"
    "                           injection library, NVTX_INJECTION64_PATH, unless that is set already)\n"
    "examples:\n"
    "  cutap trace -o run1 -- python3 train.py\n"
    "  cutap trace -e 'layer=runtime,layer=cudnn,!cudaGetDevice' -- ./app --size 4096\n"
    "  cutap trace --runtime=all -- ./nvcc_built_app       # static cudart, runtimes inside libraries\n"
    "  cutap trace --ring 64M --until-error 'layer=nccl' -- torchrun --nproc-per-node 2 train.py\n"
    "  cutap trace --capture-range nvtx:step_10 -- python3 train.py\n"
    "then: cutap report run1; cutap dump run1; cutap export --format perfetto -o run1.json run1\n";
static const char stat_usage[] =
    "usage: cutap stat [-o FILE [--force]] [-e FILTER] [--time-all] [--runtime=all|symbols] -- CMD [ARGS...]\n"
    "Runs CMD counting calls only (the cheapest mode) and prints, per function, calls, errors and\n"
    "time (total, average, min, max) at exit; exits with CMD's status.\n"
    "  -o FILE                  the summary into FILE (made 0600; never through a symbolic link)\n"
    "  --force                  replace FILE when it exists\n"
    "  --time-all               time every call (by default some are timed and the rest estimated,\n"
    "                           marked ~; CUTAP_STAT_TIMING=all does the same)\n"
    FILTER_HELP RUNTIME_HELP
    "examples:\n"
    "  cutap stat -- python3 -c 'import torch; torch.zeros(1, device=\"cuda\")'\n"
    "  cutap stat -o counts.txt -e 'layer=cublas' -- ./app\n";

/* cutap as the NVTX injection library (src/resolve/nvtx.c): at a
 * program's first NVTX call, NVTX loads the library NVTX_INJECTION64_PATH
 * names, here the libcutap.so already preloaded (the same object), and
 * its ranges and marks reach the recorder as calls of layer nvtx. A value
 * the user set is theirs: left as it is, silently. */
static int set_nvtx_injection(void)
{
    const char *v = getenv("NVTX_INJECTION64_PATH");
    char lib[PATH_MAX];
    if (v && *v)
        return 0;
    if (find_library(lib, sizeof lib))
        return -1;
    if (setenv("NVTX_INJECTION64_PATH", lib, 1)) {
        fprintf(stderr, "cutap: cannot set the environment\n");
        return -1;
    }
    return 0;
}

/* CUTAP_INJECT for every process of the command: the checked specs, or
 * none (an inherited value is removed). */
static int inject_env(const struct run_opts *o)
{
    unsetenv("CUTAP_INJECT");
    return o->ninject ? setenv("CUTAP_INJECT", o->inject, 1) : 0;
}

/* The flight recorder and capture control, for every process of the
 * command (src/record/capture.c reads them). Each variable is set or
 * removed: the options decide, not an inherited environment. */
static int capture_env(const struct run_opts *o)
{
    static const char *const vars[] = {"CUTAP_RING", "CUTAP_CAPTURE_T0", "CUTAP_CAPTURE_DELAY",
                                       "CUTAP_CAPTURE_DURATION", "CUTAP_CAPTURE_RANGE", "CUTAP_UNTIL_ERROR"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        unsetenv(vars[i]);
    char v[64];
    int bad = 0;
    if (o->ring) {
        snprintf(v, sizeof v, "%llu", o->ring);
        bad |= setenv("CUTAP_RING", v, 1);
    }
    if (o->delay >= 0 || o->duration > 0) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        snprintf(v, sizeof v, "%llu", (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec);
        bad |= setenv("CUTAP_CAPTURE_T0", v, 1);
        snprintf(v, sizeof v, "%llu", (unsigned long long)((o->delay > 0 ? o->delay : 0) * 1e9));
        bad |= setenv("CUTAP_CAPTURE_DELAY", v, 1);
        if (o->duration > 0) {
            snprintf(v, sizeof v, "%llu", (unsigned long long)(o->duration * 1e9));
            bad |= setenv("CUTAP_CAPTURE_DURATION", v, 1);
        }
    }
    if (o->capture_range)
        bad |= setenv("CUTAP_CAPTURE_RANGE", o->capture_range, 1);
    if (o->until_error)
        bad |= setenv("CUTAP_UNTIL_ERROR", o->until_error, 1);
    bad |= inject_env(o);
    unsetenv("CUTAP_SYNC_LAUNCHES");
    unsetenv("CUTAP_STACK");
    if (o->stack)
        bad |= setenv("CUTAP_STACK", o->stack, 1);
    if (o->sync_launches)
        bad |= setenv("CUTAP_SYNC_LAUNCHES", o->sync_launches, 1);
    if (bad)
        fprintf(stderr, "cutap: cannot set the environment\n");
    return bad ? -1 : 0;
}

int cmd_trace(int argc, char **argv)
{
    struct run_opts o;
    int rc = parse(argc, argv, &o, trace_usage, 0);
    if (rc)
        return rc;
    char dir[PATH_MAX];
    int auto_dir = !o.out;
    if (o.out) {
        snprintf(dir, sizeof dir, "%s", o.out);
        /* a directory of ours that nobody else can write into or swap */
        if (procs_check_dir(dir, 1))
            return 1;
        if (count_traces(dir)) {
            fprintf(stderr, "cutap: %s already holds a trace; choose another -o\n", dir);
            return 1;
        }
    } else {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        char base[64];
        strftime(base, sizeof base, "cutap-%Y%m%d-%H%M%S", &tm);
        snprintf(dir, sizeof dir, "%s", base);
        for (int n = 2; mkdir(dir, 0700); n++) {
            if (errno != EEXIST || n > 999) {
                fprintf(stderr, "cutap: cannot create %s: %s\n", dir, strerror(errno));
                return 1;
            }
            snprintf(dir, sizeof dir, "%s-%d", base, n);
        }
        if (procs_check_dir(dir, 0))
            return 1;
    }
    if (prepare_env("CUTAP_TRACE", dir, o.filter, o.runtime) || (!o.no_nvtx && set_nvtx_injection()))
        return 1;
    if (capture_env(&o))
        return 1;
    procs_create(dir);
    int not_run;
    watch_stuck = o.stuck, watch_dir = dir;
    freeze_dir_name = dir;
    peer_dir = o.until_error ? dir : NULL;
    int code = run_command(o.cmd, &not_run);
    if (not_run) {
        /* nothing ran (said above): no trace, no summary; the directory
         * goes if it holds nothing else */
        char reg[PATH_MAX + 64];
        snprintf(reg, sizeof reg, "%s/%s", dir, CUTAP_REG_NAME);
        unlink(reg);
        rmdir(dir);
        return code;
    }
    if (auto_dir && !count_traces(dir)) {
        /* nothing recorded into the directory cutap named: the summary
         * without it, and the directory goes */
        procs_summary(dir, 0);
        fprintf(stderr, "cutap: no CUDA call was recorded (%s not kept)\n", dir);
        char reg[PATH_MAX + 64];
        snprintf(reg, sizeof reg, "%s/%s", dir, CUTAP_REG_NAME);
        unlink(reg);
        rmdir(dir);
        return code;
    }
    procs_summary(dir, 1);
    return code;
}

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                char p[PATH_MAX + 256];
                snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
                unlink(p);
            }
        closedir(d);
    }
    rmdir(dir);
}

int cmd_stat(int argc, char **argv)
{
    struct run_opts o;
    int rc = parse(argc, argv, &o, stat_usage, 1);
    if (rc)
        return rc;
    /* Which calls are timed (the library checks it too, and records
     * nothing when it is wrong): refused here before anything runs. */
    const char *timing = getenv("CUTAP_STAT_TIMING");
    if (o.time_all) {
        if (setenv("CUTAP_STAT_TIMING", "all", 1)) {
            fprintf(stderr, "cutap: cannot set the environment\n");
            return 1;
        }
    } else if (timing && *timing && strcmp(timing, "all") && strcmp(timing, "sample")) {
        fprintf(stderr, "cutap: invalid CUTAP_STAT_TIMING '%s': takes all or sample\n%s", timing, stat_usage);
        return 2;
    }
    /* -o FILE: opened before the command runs (a refusal costs no run),
     * never through a symbolic link, never over an existing file unless
     * --force, 0600; written, and an existing one truncated, only at the
     * end, when the command ran. */
    FILE *out = stderr;
    int made = 0;
    if (o.out) {
        int fd = open(o.out, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        made = fd >= 0;
        if (fd < 0 && errno == EEXIST && o.force) {
            /* What is opened is checked, not the name before: no symbolic
             * link (O_NOFOLLOW: ELOOP), and not a FIFO or device swapped in
             * (O_NONBLOCK: a FIFO does not block the open). */
            struct stat st;
            fd = open(o.out, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
            if (fd < 0 && errno == ENXIO)
                errno = EINVAL;   /* a FIFO nobody reads */
            if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
                close(fd);
                fd = -1;
                errno = EINVAL;
            }
            if (fd >= 0)
                (void)fcntl(fd, F_SETFL, 0);
        }
        if (fd < 0) {
            int e = errno;
            fprintf(stderr, "cutap: cannot write %s: %s\n", o.out,
                    e == EEXIST ? "it exists (--force replaces it)"
                    : e == ELOOP ? "it is a symbolic link"
                    : e == EINVAL ? "not a regular file" : strerror(e));
            return 1;
        }
        if (!(out = fdopen(fd, "w"))) {
            fprintf(stderr, "cutap: cannot write %s: %s\n", o.out, strerror(errno));
            close(fd);
            if (made)
                unlink(o.out);
            return 1;
        }
    }
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/cutap-stat-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        fprintf(stderr, "cutap: cannot make a directory for the counters: %s\n", strerror(errno));
        return 1;
    }
    if (prepare_env("CUTAP_COUNT", dir, o.filter, o.runtime) || inject_env(&o)) {
        remove_dir(dir);
        return 1;
    }
    int no_registry = procs_create(dir) != 0;
    int not_run;
    int code = run_command(o.cmd, &not_run);
    struct trace tr;
    if (not_run) {
        /* nothing ran: the file is left as it was (a new one removed) */
        if (out != stderr) {
            fclose(out);
            if (made)
                unlink(o.out);
        }
        remove_dir(dir);
        return code;
    }
    if (out != stderr)
        (void)!ftruncate(fileno(out), 0);
    int lossy = procs_summary(dir, 0) > 0 || no_registry;
    if (!count_traces(dir))
        fprintf(out, lossy ? "cutap stat: no CUDA calls recorded (see the messages above)\n" : "cutap stat: no CUDA calls\n");
    else if (!tr_load(&tr, dir)) {
        report_print(&tr, out, FMT_TEXT, BY_NONE);
        tr_free(&tr);
    }
    if (out != stderr)
        fclose(out);
    remove_dir(dir);
    return code;
}

static const char freeze_usage[] =
    "usage: cutap freeze DIR\n"
    "Freezes every process still tracing into DIR (cutap trace, usually with --ring): each stops\n"
    "recording at the next chunk it needs, so nothing it recorded is overwritten any more; later\n"
    "calls are counted. Processes that start afterwards start frozen. The same as SIGUSR2 to the\n"
    "cutap trace command.\n";

int cmd_freeze(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(freeze_usage, stdout);
        return 0;
    }
    if (argc != 2 || argv[1][0] == '-') {
        fputs(freeze_usage, stderr);
        return 2;
    }
    struct stat st;
    if (stat(argv[1], &st) || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "cutap: %s: not a trace directory\n", argv[1]);
        return 1;
    }
    int n = cli_freeze_dir(argv[1], CUTAP_FREEZE_REQUEST);
    if (n < 0) {
        fprintf(stderr, "cutap: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    printf("cutap: %d process%s asked to freeze\n", n, n == 1 ? "" : "es");
    return 0;
}

static const char run_usage[] =
    "usage: cutap run --inject SPEC [--inject SPEC]... -- CMD [ARGS...]\n"
    "Runs CMD, and every process it starts, with faults injected and nothing recorded; exits with\n"
    "CMD's status. SPEC (also an option of cutap trace and cutap stat, where injected calls are\n"
    "marked):\n"
    "  NAMES:error=STATUS[:when=WHEN][:rank=N[,N...]][:delay=D]   the call is not made; the caller\n"
    "                           gets STATUS (a name of the function's status type, or a number)\n"
    "  NAMES:retval=VALUE[...]  the same, any value the result type holds (decimal, 0x hex, -N)\n"
    "  NAMES:delay=D[...]       the call is made D later (500ms, 2s, 10us)\n"
    "  NAMES                    the filter language of -e (cuMemAlloc*, layer=nccl, cublasGemmEx)\n"
    "  WHEN                     N (the Nth call only), N+ (from the Nth on), N+S (N, N+S, ...),\n"
    "                           N..M; counted per process over the calls NAMES selects\n"
    "  rank=                    only in processes of these ranks (RANK, OMPI_COMM_WORLD_RANK, ...)\n"
    "Driver, runtime and library calls can be injected; runtime calls taken from CUPTI\n"
    "(--runtime=all: static runtimes) only delayed.\n"
    "examples:\n"
    "  cutap run --inject 'cuMemAlloc*:error=CUDA_ERROR_OUT_OF_MEMORY:when=3' -- python3 train.py\n"
    "  cutap trace --inject 'ncclAllReduce:delay=2s:rank=1:when=10' -- torchrun --nproc-per-node 2 train.py\n";

int cmd_run(int argc, char **argv)
{
    struct run_opts o;
    memset(&o, 0, sizeof o);
    static const struct option longopts[] = {{"inject", required_argument, 0, 'J'}, {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
        switch (c) {
        case 'J':
            if (inject_add(&o, optarg))
                return 2;
            break;
        case 'h': fputs(run_usage, stdout); return 0;
        default: fputs(run_usage, stderr); return 2;
        }
    }
    if (optind >= argc || !o.ninject) {
        fprintf(stderr, "cutap: %s\n%s", optind >= argc ? "no command to run" : "nothing to inject", run_usage);
        return 2;
    }
    char lib[PATH_MAX];
    if (find_library(lib, sizeof lib))
        return 1;
    static const char *const vars[] = {"CUTAP_TRACE", "CUTAP_COUNT", "CUTAP_FILTER", "CUTAP_RING", "CUTAP_UNTIL_ERROR",
                                       "CUTAP_CAPTURE_RANGE", "CUTAP_CAPTURE_DELAY", "CUTAP_CAPTURE_DURATION"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        unsetenv(vars[i]);
    if (set_preload(lib) || inject_env(&o)) {
        fprintf(stderr, "cutap: cannot set the environment\n");
        return 1;
    }
    int not_run;
    return run_command(argv + optind, &not_run);
}
