/* `cutap trace` and `cutap stat`: run a command with libcutap.so preloaded
 * and the recorder configured through the environment, so that every
 * descendant (fork, exec, shells, Python multiprocessing) inherits it.
 * cutap becomes the child subreaper: orphaned descendants are reparented to
 * it, and it waits until the last one has exited, so their trace files are
 * complete when it reports. It exits with the command's status (128+N when
 * signal N killed it). This file: the library, the run, SIGUSR2 freezing,
 * --until-error's peer, the --stuck watchdog. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "path_search.h"
#include "cli.h"
#include "run_internal.h"

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
int find_library(char *out, size_t size)
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

int set_preload(const char *lib)
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
static double watch_stuck = -1;   /* set by run_watch */
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

/* run_after_fork's: called in cutap after the fork (threads of cutap are
 * started there, so that the child, which calls more than async-signal-safe
 * functions before its exec, never inherits a lock held by one). */
static void (*after_fork)(void *);
static void *after_fork_arg;

int run_command(char **argv, int *not_run)
{
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    /* Like system(): the terminal's SIGINT/SIGQUIT reach the command's
     * process group directly; cutap outlives them to finish its report.
     * SIGTERM and SIGHUP sent to cutap alone are passed on. */
    struct sigaction ign = {.sa_handler = SIG_IGN}, fwd = {.sa_handler = forward}, oint, oquit, opipe;
    sigaction(SIGINT, &ign, &oint);
    sigaction(SIGQUIT, &ign, &oquit);
    /* a reader of cutap's stderr that went away (trace --print 2>&1 | head)
     * must not kill cutap before the command's status and summary: its
     * writes fail (EPIPE) instead; the command gets the disposition back */
    sigaction(SIGPIPE, &ign, &opipe);
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
        sigaction(SIGPIPE, &opipe, NULL);
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
    if (after_fork)
        after_fork(after_fork_arg);   /* the same (trace --print's thread) */
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

void run_after_fork(void (*fn)(void *), void *arg)
{
    after_fork = fn;
    after_fork_arg = arg;
}

/* What run_command does besides running (cutap trace): the watchdog
 * (stuck seconds, < 0 none, over dir), the directory SIGUSR2 freezes,
 * the directory whose first failing call freezes the rest (or NULL). */
void run_watch(double stuck, const char *dir, const char *freeze_dir, const char *peer)
{
    watch_stuck = stuck, watch_dir = dir;
    freeze_dir_name = freeze_dir;
    peer_dir = peer;
}
