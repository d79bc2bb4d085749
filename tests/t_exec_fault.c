/* Bad pointers given to the exec family (issue #24): every wrapper that
 * libcutap.so exports (src/front/exec.c) called with a path, an argv or
 * envp array, a string inside argv or envp, or an environ that cannot be
 * read, and posix_spawn* with bad pid, file-actions and attribute
 * pointers. Each call runs in a forked child, which prints what it
 * returned (rc and errno; posix_spawn*: the error number it returned and
 * how the spawned child ended); when the child dies instead, the parent
 * prints the signal. Run bare and under cutap by
 * tests/cases/pitfalls/exec_bad_pointers.sh, which requires the same
 * output: cutap must return EFAULT where glibc does and may crash only
 * where glibc itself crashes (it reads the pointer: execvp's file,
 * posix_spawn's argv, a bad environ before PATH).
 *
 * With the argument "filtered", a seccomp filter first makes
 * rt_sigaction(SIGKILL, ...) fail with EPERM: cutap's probe of what it may
 * read (src/front/exec.c) then cannot work, and it must read nothing (no
 * exec note) and still change nothing.
 *
 * Bad pointers (kinds): "null" (the path only), "one" ((char *)1: the
 * unmapped first page), "none" (a PROT_NONE page), "edge" (a string with no
 * NUL at the end of a readable page, or an array with no NULL slot there,
 * that runs into a PROT_NONE page: readable at its start, not to its end). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuda_min.h"

extern char **environ;

static long pg;

/* Two pages: a readable one, then a PROT_NONE one; returns the start of the second. */
static char *guarded(void)
{
    char *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED || mprotect(m + pg, pg, PROT_NONE)) {
        perror("mmap");
        exit(2);
    }
    return m + pg;
}

static const char *const kinds[] = {"null", "one", "none", "edge"};

/* A string of that kind. */
static char *bad_str(const char *kind)
{
    if (!strcmp(kind, "null"))
        return NULL;
    if (!strcmp(kind, "one"))
        return (char *)1;
    char *g = guarded();
    if (!strcmp(kind, "none"))
        return g;
    memcpy(g - 8, "/bin/tru", 8);   /* no NUL before the PROT_NONE page */
    return g - 8;
}

/* An array of that kind: first, second, then no NULL before the PROT_NONE page. */
static char **bad_arr(const char *kind, char *first, char *second)
{
    if (!strcmp(kind, "one"))
        return (char **)1;
    char **g = (char **)guarded();
    if (!strcmp(kind, "none"))
        return g;
    g[-2] = first;
    g[-1] = second;
    return g - 2;
}

/* What one call gets: the wrapper's arguments. */
struct call {
    const char *path;
    char **argv, **envp;
    pid_t *pid;
    posix_spawn_file_actions_t *fa;
    posix_spawnattr_t *attr;
};

static void spawned(int rc, pid_t child)
{
    printf("rc=%d (%s)", rc, rc ? strerror(rc) : "ok");
    int st;
    if (!rc && waitpid(child, &st, 0) == child) {
        if (WIFSIGNALED(st))
            printf(", child killed by signal %d", WTERMSIG(st));
        else
            printf(", child exit %d", WEXITSTATUS(st));
    }
}

/* In the child: the call, what it returned. */
static void call(const char *fn, struct call *c, int fd)
{
    errno = 0;
    int rc = 0, spawn = 0;
    pid_t child = 0;
    if (!strcmp(fn, "execve"))
        rc = execve(c->path, c->argv, c->envp);
    else if (!strcmp(fn, "execv"))
        rc = execv(c->path, c->argv);
    else if (!strcmp(fn, "execvp"))
        rc = execvp(c->path, c->argv);
    else if (!strcmp(fn, "execvpe"))
        rc = execvpe(c->path, c->argv, c->envp);
    else if (!strcmp(fn, "execl"))
        rc = execl(c->path, c->argv[0], c->argv[1], (char *)NULL);
    else if (!strcmp(fn, "execle"))
        rc = execle(c->path, c->argv[0], c->argv[1], (char *)NULL, c->envp);
    else if (!strcmp(fn, "execlp"))
        rc = execlp(c->path, c->argv[0], c->argv[1], (char *)NULL);
    else if (!strcmp(fn, "fexecve"))
        rc = fexecve(fd, c->argv, c->envp);
    else if (!strcmp(fn, "posix_spawn"))
        spawn = 1, rc = posix_spawn(c->pid ? c->pid : &child, c->path, c->fa, c->attr, c->argv, c->envp);
    else if (!strcmp(fn, "posix_spawnp"))
        spawn = 1, rc = posix_spawnp(c->pid ? c->pid : &child, c->path, c->fa, c->attr, c->argv, c->envp);
    int e = errno;
    if (spawn)
        spawned(rc, child);
    else
        printf("rc=%d errno=%d (%s)", rc, e, strerror(e));
}

/* Which arguments a wrapper takes: p a path or file (s: searched on PATH),
 * a an argv array, v an envp, E the environ (read by the wrappers without
 * envp, and by the PATH search), S posix_spawn's pid, file actions, attr. */
static const struct {
    const char *fn, *takes;
} fns[] = {
    {"execve", "pav"},   {"execv", "paE"},     {"execvp", "psaE"},   {"execvpe", "psavE"},
    {"execl", "pE"},     {"execle", "pv"},     {"execlp", "psE"},    {"fexecve", "av"},
    {"posix_spawn", "pavS"}, {"posix_spawnp", "psavES"},
};

static int takes(int f, char what) { return strchr(fns[f].takes, what) != NULL; }

/* One case: FN, the bad argument (what), its kind, the file for the
 * wrappers that search PATH. */
static void one(int f, const char *what, const char *kind, const char *file, int fd)
{
    static char x[] = "x", y[] = "y", a1[] = "A=1", b2[] = "B=2", path[] = "PATH=/usr/bin:/bin";
    char *argv[] = {x, y, NULL}, *envp[] = {a1, b2, NULL}, *env[] = {path, a1, NULL};
    struct call c = {.path = file, .argv = argv, .envp = envp};
    char **environ_to = NULL;
    pid_t *no_pid = NULL;
    if (!strcmp(what, "path"))
        c.path = bad_str(kind);
    else if (!strcmp(what, "argv"))
        c.argv = bad_arr(kind, x, y);
    else if (!strcmp(what, "argv[1]"))
        argv[1] = bad_str(kind);
    else if (!strcmp(what, "envp"))
        c.envp = bad_arr(kind, a1, b2);
    else if (!strcmp(what, "envp[1]"))
        envp[1] = bad_str(kind);
    else if (!strcmp(what, "environ"))
        environ_to = bad_arr(kind, path, a1);
    else if (!strcmp(what, "environ[1]"))   /* after PATH: glibc's getenv stops before it */
        env[1] = bad_str(kind), environ_to = env;
    else if (!strcmp(what, "pid"))
        no_pid = (pid_t *)(void *)bad_arr(kind, NULL, NULL);
    else if (!strcmp(what, "fa"))
        c.fa = (posix_spawn_file_actions_t *)(void *)bad_arr(kind, NULL, NULL);
    else if (!strcmp(what, "attr"))
        c.attr = (posix_spawnattr_t *)(void *)bad_arr(kind, NULL, NULL);
    c.pid = no_pid;
    int searching = takes(f, 's') && strcmp(what, "path");
    char label[96];
    snprintf(label, sizeof label, "%s %s=%s%s%s:", fns[f].fn, what, kind, searching ? " file=" : "",
             searching ? file : "");
    fflush(stdout);
    pid_t p = fork();
    if (p < 0) {
        perror("fork");
        exit(2);
    }
    if (!p) {
        printf("%s ", label);
        if (environ_to)
            environ = environ_to;
        call(fns[f].fn, &c, fd);
        printf("\n");
        fflush(stdout);
        _exit(42);
    }
    int st;
    if (waitpid(p, &st, 0) != p) {
        perror("waitpid");
        exit(2);
    }
    /* The child's line is whole when it returned; else it died in the call,
     * with its label still in its stdio buffer: nothing of it printed. */
    if (WIFSIGNALED(st))
        printf("%s killed by signal %d\n", label, WTERMSIG(st));
    else if (WEXITSTATUS(st) != 42)
        printf("%s exit %d (the exec ran)\n", label, WEXITSTATUS(st));
}

/* rt_sigaction(SIGKILL, ...): EPERM; everything else allowed. (No
 * architecture check: the test runs on the build's own architecture.) */
static int filter_probe(void)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_rt_sigaction, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SIGKILL, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {.len = sizeof f / sizeof *f, .filter = f};
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    pg = sysconf(_SC_PAGESIZE);
    if (argc > 1 && !strcmp(argv[1], "filtered")) {
        if (filter_probe()) {
            perror("seccomp filter");
            return 77;
        }
        struct sigaction sa = {.sa_handler = SIG_DFL};
        if (syscall(SYS_rt_sigaction, SIGKILL, &sa, NULL, (size_t)(_NSIG / 8)) != -1 || errno != EPERM) {
            fprintf(stderr, "the filter does not work\n");
            return 2;
        }
    }
    /* A driver call first: under plain CUTAP_TRACE/CUTAP_COUNT the
     * recorder then starts and makes the registry that the exec notes go
     * to (cutap trace/stat make it before the program starts). */
    cuInit(0);
    int fd = open("/bin/true", O_RDONLY);
    if (fd < 0) {
        perror("/bin/true");
        return 2;
    }
    /* The bad arguments, each with the letter of fns[].takes it needs. */
    static const struct {
        const char *what;
        char t;
    } whats[] = {{"path", 'p'},    {"argv", 'a'},       {"argv[1]", 'A'}, {"envp", 'v'}, {"envp[1]", 'v'},
                 {"environ", 'E'}, {"environ[1]", 'E'}, {"pid", 'S'},     {"fa", 'S'},   {"attr", 'S'}};
    for (size_t f = 0; f < sizeof fns / sizeof *fns; f++)
        for (size_t w = 0; w < sizeof whats / sizeof *whats; w++) {
            const char *what = whats[w].what;
            char t = whats[w].t;
            /* argv[1] is an argument of every wrapper */
            if (t != 'A' && !takes((int)f, t))
                continue;
            for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
                const char *kind = kinds[k];
                if (!strcmp(kind, "null") && t != 'p')
                    continue;   /* NULL ends an array, and NULL arrays are empty ones to Linux */
                if (t == 'S' && strcmp(kind, "one") && strcmp(kind, "none"))
                    continue;   /* pid, file actions, attr: not strings or arrays */
                /* A searching wrapper both with a name to search for on PATH
                 * (through environ) and with a path it does not search. */
                one((int)f, what, kind, "/bin/true", fd);
                if (takes((int)f, 's') && t != 'p')
                    one((int)f, what, kind, "true", fd);
            }
        }
    fflush(stdout);
    return 0;
}
