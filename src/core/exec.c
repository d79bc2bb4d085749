/* The exec family, watched (issue #11): before a process replaces its image
 * it notes in the trace directory's registry "pid P execs PATH, and the new
 * environment does (not) preload libcutap with the recording variable".
 * A new image that registers with that pid afterwards was traced; one that
 * does not was not, and `cutap trace` says why where it can (environment
 * cleared, statically linked, setuid/setgid, file capabilities). With no
 * registry (no trace directory) these are the plain functions. Calls made
 * inside libc (system(), popen(): its internal posix_spawn of /bin/sh) do
 * not come here; /bin/sh is dynamic and registers itself when traced. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "path_search.h"
#include "cutap_internal.h"

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
    NOTED(cutap_reg_exec_note(path, envp), f(path, argv, envp));
}

EXPORT int execv(const char *path, char *const argv[])
{
    execv_fn f = (execv_fn)next(execv);
    if (!f)
        return real_missing();
    NOTED(cutap_reg_exec_note(path, environ), f(path, argv));
}

EXPORT int execvp(const char *file, char *const argv[])
{
    char buf[PATH_MAX];
    execv_fn f = (execv_fn)next(execvp);
    if (!f)
        return real_missing();
    NOTED(cutap_reg_exec_note(cutap_path_search(file, buf, sizeof buf), environ), f(file, argv));
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    char buf[PATH_MAX];
    execve_fn f = (execve_fn)next(execvpe);
    if (!f)
        return real_missing();
    NOTED(cutap_reg_exec_note(cutap_path_search(file, buf, sizeof buf), envp), f(file, argv, envp));
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    char link[64], path[PATH_MAX];
    fexecve_fn f = (fexecve_fn)next(fexecve);
    if (!f)
        return real_missing();
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    path[n > 0 ? n : 0] = 0;
    NOTED(cutap_reg_exec_note(path, envp), f(fd, argv, envp));
}

/* execl, execlp, execle: the arguments gathered, then the real execve or
 * execvp (glibc's own execl* do the same). */
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
    NOTED(cutap_reg_exec_note(path, environ), f(path, argv, environ));
}

EXPORT int execle(const char *path, const char *arg, ...)
{
    va_list ap;
    char **envp;
    GATHER(arg, ap, argv, envp = va_arg(ap, char **));
    execve_fn f = (execve_fn)next(execve);
    if (!f)
        return real_missing();
    NOTED(cutap_reg_exec_note(path, envp), f(path, argv, envp));
}

EXPORT int execlp(const char *file, const char *arg, ...)
{
    va_list ap;
    char buf[PATH_MAX];
    GATHER(arg, ap, argv, (void)0);
    execv_fn f = (execv_fn)next(execvp);
    if (!f)
        return real_missing();
    NOTED(cutap_reg_exec_note(cutap_path_search(file, buf, sizeof buf), environ), f(file, argv));
}

/* posix_spawn: the note is the child's (its pid once known); posix_spawn
 * returns an error number rather than setting errno. */
static int spawn(void *real, pid_t *pid, const char *file, const char *noted,
                 const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr, char *const argv[],
                 char *const envp[])
{
    spawn_fn f = (spawn_fn)real;
    if (!f)
        return ENOSYS;
    pid_t child = 0;
    void *note = cutap_reg_exec_note(noted, envp);
    int rc = f(&child, file, fa, attr, argv, envp);
    if (rc)
        cutap_reg_exec_failed(note);
    else
        cutap_reg_exec_spawned(note, child);
    if (pid && !rc)
        *pid = child;
    return rc;
}

EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                       const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    return spawn(next(posix_spawn), pid, path, path, fa, attr, argv, envp);
}

EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                        const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    char buf[PATH_MAX];
    return spawn(next(posix_spawnp), pid, file, cutap_path_search(file, buf, sizeof buf), fa, attr, argv, envp);
}
