/* The exec family, watched (issue #11): before a process replaces its image
 * it notes in the trace directory's registry "pid P execs PATH, and the new
 * environment does (not) preload libcutap with the recording variable".
 * A new image that registers with that pid afterwards was traced; one that
 * does not was not, and `cutap trace` says why where it can (environment
 * cleared, statically linked, setuid/setgid, file capabilities). With no
 * registry (no trace directory) these are the plain functions. Calls made
 * inside libc (system(), popen(): its internal posix_spawn of /bin/sh) do
 * not come here; /bin/sh is dynamic and registers itself when traced.
 *
 * Never harm (issue #24): a note reads the program's memory (the path, the
 * environment, environ for a PATH search) before the real call, which is
 * the one to answer a bad pointer (EFAULT, or glibc's own fault where it
 * reads it first). So every page a note reads is first found readable by
 * a probe that cannot fault (readable_*, below); when anything is not, or
 * there is no registry, no note is made and the real function gets the
 * program's arguments unchanged. argv, posix_spawn's pid, file actions and
 * attributes are never read here. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "path_search.h"
#include "front_internal.h"

extern char **environ;

#define EXPORT __attribute__((visibility("default")))

/* The real function, looked up once (an exec in a vfork child then makes
 * no lookup). */
#define next(name) next_cached(#name, &real_##name##_ptr)
static void *next_cached(const char *name, void **cache)
{
    void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (!f) {
        f = cutap_libc_dlsym(RTLD_NEXT, name);
        __atomic_store_n(cache, f, __ATOMIC_RELEASE);
    }
    return f;
}
static void *real_execve_ptr, *real_execv_ptr, *real_execvp_ptr, *real_execvpe_ptr, *real_fexecve_ptr,
    *real_posix_spawn_ptr, *real_posix_spawnp_ptr;

/* At start-up (cutap_init, in every mode): an exec from a signal handler
 * or a vfork child then makes no lookup. */
void cutap_exec_init(void)
{
    (void)next(execve), (void)next(execv), (void)next(execvp), (void)next(execvpe), (void)next(fexecve);
    (void)next(posix_spawn), (void)next(posix_spawnp);
}

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,
                        char *const[], char *const[]);

/* --- what of the program's memory a note may read ---------------------
 * A page is probed with rt_sigaction(SIGKILL, page, NULL): the kernel
 * copies the new action (a struct sigaction, a few dozen bytes, all in
 * that page) with copy_from_user, EFAULT when that faults, then refuses
 * SIGKILL (EINVAL) and changes nothing. That asks the very question (would
 * reading it fault?) of the same page tables that execve's own reads and
 * glibc's go through, and cannot fault itself. No lock, no malloc, no
 * descriptor: an exec in a vfork child or a signal handler may probe.
 * Not process_vm_readv on our own pid, which could check many pages in one
 * call: an exec is where a sandbox that has just loaded its seccomp filter
 * runs the program, an allow-list in kill mode (systemd's SystemCallFilter=
 * default) may well leave out a cross-process memory call, and the program
 * would die for cutap's probe; rt_sigaction is allowed wherever signals
 * are handled. Not write() into a pipe either: a descriptor in the
 * program's table, one a vfork child would make in a table not its
 * parent's. Checked once per process (probe_ok): a kernel address must
 * give EFAULT, proving the copy comes before the refusal; where it does
 * not (ENOSYS, EPERM from a filter, another order), nothing counts as
 * readable: no notes, never a fault.
 * Pages found readable are kept for the exec at hand only (memory may be
 * unmapped between two execs), in up to 16 runs of adjacent pages (256
 * bytes of stack: an exec may run on a signal handler's small stack): an
 * environment costs a probe per page it lies in, not per variable (2 or 3
 * for 55 variables on the initial stack, 8 for 105 of which 50 were set by
 * setenv; a probe is a failing system call, well under a microsecond).
 * Another thread unmapping the memory between the probe and the exec races
 * with the exec itself as it would bare. */
static _Atomic int probe_state;   /* 0 not yet known, 1 usable, -1 not */
static _Atomic uintptr_t page_size;

struct probe {
    uintptr_t pg;               /* page_size */
    uintptr_t lo[16], hi[16];   /* [lo, hi): pages found readable */
    unsigned n, next;
};

static long probe_page(uintptr_t page)
{
    return syscall(SYS_rt_sigaction, SIGKILL, (void *)page, NULL, (size_t)(_NSIG / 8));
}

static int probe_ok(void)
{
    int st = atomic_load_explicit(&probe_state, memory_order_acquire);
    if (!st) {
        /* sysconf: the loader's AT_PAGESZ, no lock. Threads racing here
         * store the same values. */
        long pg = sysconf(_SC_PAGESIZE);
        uintptr_t ps = pg >= 4096 && !(pg & (pg - 1)) ? (uintptr_t)pg : 4096;
        atomic_store_explicit(&page_size, ps, memory_order_relaxed);
        /* The top page: a kernel address on every 64-bit Linux, EFAULT
         * without any read (access_ok) when the copy comes first. */
        st = probe_page(-ps) == -1 && errno == EFAULT ? 1 : -1;
        atomic_store_explicit(&probe_state, st, memory_order_release);
    }
    return st > 0;
}

/* The page holding a can be read. */
static int readable_page(struct probe *pr, uintptr_t a)
{
    uintptr_t page = a & ~(pr->pg - 1);
    for (unsigned i = 0; i < pr->n; i++)
        if (page >= pr->lo[i] && page < pr->hi[i])
            return 1;
    if (probe_page(page) != -1 || errno != EINVAL)
        return 0;
    for (unsigned i = 0; i < pr->n; i++) {
        if (pr->hi[i] == page) {
            pr->hi[i] = page + pr->pg;
            return 1;
        }
        if (pr->lo[i] == page + pr->pg) {
            pr->lo[i] = page;
            return 1;
        }
    }
    unsigned i = pr->n < 16 ? pr->n++ : pr->next++ % 16;
    pr->lo[i] = page;
    pr->hi[i] = page + pr->pg;
    return 1;
}

/* A pointer-sized slot of an array (perhaps across two pages). */
static int readable_slot(struct probe *pr, char *const *slot)
{
    uintptr_t a = (uintptr_t)slot;
    return a + sizeof *slot > a && readable_page(pr, a) && readable_page(pr, a + sizeof *slot - 1);
}

/* A string, to its NUL: page by page, each searched for the NUL once readable. */
static int readable_str(struct probe *pr, const char *s)
{
    for (uintptr_t a = (uintptr_t)s;;) {
        if (!readable_page(pr, a))
            return 0;
        uintptr_t end = (a | (pr->pg - 1)) + 1;
        if (memchr((const void *)a, 0, end - a))
            return 1;
        a = end;
    }
}

/* A string of the program's can be read to its NUL without a fault (for
 * the ioctl layer: the path of an open that failed may never have been
 * read by the kernel: EINVAL from its flags, a seccomp filter's errno). */
CUTAP_FRONT int cutap_readable_str(const char *s)
{
    int e = errno;   /* the probe's system calls are cutap's: the program's errno stays */
    int ok = s && probe_ok();
    if (ok) {
        struct probe pr = {.pg = atomic_load_explicit(&page_size, memory_order_relaxed)};
        ok = readable_str(&pr, s);
    }
    errno = e;
    return ok;
}

/* n bytes at p can be read without a fault (0 where it cannot tell);
 * errno as it was. */
CUTAP_FRONT int cutap_readable(const void *p, size_t n)
{
    uintptr_t a = (uintptr_t)p;
    int e = errno, ok = p && n && a + n >= a && probe_ok();
    if (ok) {
        struct probe pr = {.pg = atomic_load_explicit(&page_size, memory_order_relaxed)};
        for (uintptr_t q = a & ~(pr.pg - 1); ok && q < a + n; q += pr.pg)
            ok = readable_page(&pr, q);
    }
    errno = e;
    return ok;
}

/* An environment: every slot to the NULL one, every string. NULL is an
 * empty environment to Linux (and reads nothing). */
static int readable_env(struct probe *pr, char *const envp[])
{
    for (char *const *e = envp; e; e++) {
        if (!readable_slot(pr, e))
            return 0;
        if (!*e)
            return 1;
        if (!readable_str(pr, *e))
            return 0;
    }
    return 1;
}

/* The note of an exec of file (searched on PATH when search and it has no
 * '/', as glibc's execvp does, through environ) with the environment envp;
 * NULL when there is no registry or when something it would read cannot
 * be read. A NULL file names no program (execve answers EFAULT, a search
 * faults in glibc). buf: PATH_MAX bytes for the file found (search only).
 * errno is the program's after it: a posix_spawn that succeeds leaves it
 * as it was bare. */
static void *note_env(const char *file, int search, char *const envp[], char *buf)
{
    if (!file || !probe_ok())
        return NULL;
    struct probe pr = {.pg = atomic_load_explicit(&page_size, memory_order_relaxed)};
    if (!readable_str(&pr, file) || !readable_env(&pr, envp))
        return NULL;
    if (search && *file && !strchr(file, '/')) {
        if (envp != environ && !readable_env(&pr, environ))
            return NULL;
        file = cutap_path_search(file, buf, PATH_MAX);
    }
    return cutap_reg_exec_note(file, envp);
}

static void *note(const char *file, int search, char *const envp[], char *buf)
{
    if (!cutap_reg_attached())
        return NULL;
    int e = errno;
    void *n = note_env(file, search, envp, buf);
    errno = e;
    return n;
}

/* The real call between a note and, when it returns, the note's failure. */
#define NOTED(note_expr, call)                                                                     \
    do {                                                                                           \
        void *note_ = (note_expr);                                                                 \
        int rc_ = (call);                                                                          \
        int e_ = errno;                                                                            \
        cutap_reg_exec_failed(note_);                                                              \
        errno = e_;                                                                                \
        return rc_;                                                                                \
    } while (0)

static int real_missing(void)
{
    errno = ENOSYS;
    return -1;
}

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    execve_fn f = (execve_fn)next(execve);
    if (!f)
        return real_missing();
    NOTED(note(path, 0, envp, NULL), f(path, argv, envp));
}

EXPORT int execv(const char *path, char *const argv[])
{
    execv_fn f = (execv_fn)next(execv);
    if (!f)
        return real_missing();
    NOTED(note(path, 0, environ, NULL), f(path, argv));
}

EXPORT int execvp(const char *file, char *const argv[])
{
    char buf[PATH_MAX];
    execv_fn f = (execv_fn)next(execvp);
    if (!f)
        return real_missing();
    NOTED(note(file, 1, environ, buf), f(file, argv));
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    char buf[PATH_MAX];
    execve_fn f = (execve_fn)next(execvpe);
    if (!f)
        return real_missing();
    NOTED(note(file, 1, envp, buf), f(file, argv, envp));
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    char link[64], path[PATH_MAX];
    fexecve_fn f = (fexecve_fn)next(fexecve);
    if (!f)
        return real_missing();
    void *n = NULL;
    if (cutap_reg_attached()) {   /* no readlink for nothing */
        int e = errno;
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t len = readlink(link, path, sizeof path - 1);
        path[len > 0 ? len : 0] = 0;
        errno = e;
        n = note(path, 0, envp, NULL);
    }
    NOTED(n, f(fd, argv, envp));
}

/* execl, execlp, execle: the arguments gathered, then the real execve or
 * execvp (glibc's own execl* do the same). The argument pointers are
 * copied, never followed. */
#define GATHER(arg0, ap, argv, envp_out)                                                             \
    size_t n_ = 1;                                                                                  \
    va_start(ap, arg0);                                                                             \
    while (va_arg(ap, const char *))                                                                \
        n_++;                                                                                       \
    va_end(ap);                                                                                     \
    char **argv = __builtin_alloca((n_ + 1) * sizeof(char *));                                      \
    va_start(ap, arg0);                                                                             \
    argv[0] = (char *)(arg0);                                                                       \
    for (size_t i_ = 1; i_ <= n_; i_++)                                                             \
        argv[i_] = va_arg(ap, char *);                                                              \
    envp_out;                                                                                       \
    va_end(ap)

EXPORT int execl(const char *path, const char *arg, ...)
{
    va_list ap;
    GATHER(arg, ap, argv, (void)0);
    execve_fn f = (execve_fn)next(execve);
    if (!f)
        return real_missing();
    NOTED(note(path, 0, environ, NULL), f(path, argv, environ));
}

EXPORT int execle(const char *path, const char *arg, ...)
{
    va_list ap;
    char **envp;
    GATHER(arg, ap, argv, envp = va_arg(ap, char **));
    execve_fn f = (execve_fn)next(execve);
    if (!f)
        return real_missing();
    NOTED(note(path, 0, envp, NULL), f(path, argv, envp));
}

EXPORT int execlp(const char *file, const char *arg, ...)
{
    va_list ap;
    char buf[PATH_MAX];
    GATHER(arg, ap, argv, (void)0);
    execv_fn f = (execv_fn)next(execvp);
    if (!f)
        return real_missing();
    NOTED(note(file, 1, environ, buf), f(file, argv));
}

/* posix_spawn: the note is the child's (its pid once known); posix_spawn
 * returns an error number rather than setting errno. */
static int spawn(void *real, pid_t *pid, const char *file, int search, const posix_spawn_file_actions_t *fa,
                 const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    char buf[PATH_MAX];
    spawn_fn f = (spawn_fn)real;
    if (!f)
        return ENOSYS;
    pid_t child = 0;
    void *n = note(file, search, envp, buf);
    int rc = f(&child, file, fa, attr, argv, envp);
    if (rc)
        cutap_reg_exec_failed(n);
    else
        cutap_reg_exec_spawned(n, child);
    if (pid && !rc)
        *pid = child;
    return rc;
}

EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                       const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    return spawn(next(posix_spawn), pid, path, 0, fa, attr, argv, envp);
}

EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                        const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    return spawn(next(posix_spawnp), pid, file, 1, fa, attr, argv, envp);
}
