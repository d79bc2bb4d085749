/* An independent count of the environment lookups (getenv, secure_getenv)
 * a process makes, per calling object (issue #32's GPU proof,
 * tests/gpu/env_check.py), built as
 *
 *     cc -O2 -shared -fPIC -o libgetenv_count.so tests/gpu/getenv_count.c -ldl
 *     GETENV_COUNT_DIR=DIR LD_PRELOAD=$PWD/libgetenv_count.so:$PWD/build/libcutap.so \
 *         build/cutap trace -o TRACE -- CMD...
 *
 * It shares nothing with cutap. Preloaded in front of libcutap.so (cutap
 * trace keeps an LD_PRELOAD that already names its library as it is), its
 * getenv and secure_getenv are what every caller reaches first. They are
 * assembly trampolines: push %rdi, count_c(name, the caller's return
 * address, secure), pop %rdi, jmp to the next definition (libcutap's, or
 * glibc's without cutap), so that the next one sees the caller's own
 * return address in (%rsp), as if it had been called directly: cutap's
 * __builtin_return_address(0) still names the caller, not this library.
 *
 * count_c finds the caller's object: its file name as the dynamic linker
 * has it (l_name, what dladdr gives as dli_fname), through
 * _dl_find_object (glibc 2.35: lock-free, async-signal-safe) or, before
 * 2.35, dladdr (which takes the loader's lock); the basename, "(main:NAME)"
 * for the program, "(unknown)" for an address in no object. It
 * counts per (object, name, secure) in a static table of 8192 entries
 * (names copied, no malloc; a full table counts "overflow"). A spinlock
 * (atomic exchange, spinning with pause then sched_yield) guards it. A
 * lookup made while the same thread is already in here (a signal handler
 * that interrupted a lookup; an allocator asking under the dlsym that
 * finds the next definition, answered from environ as glibc would) is not
 * counted ("skipped"): it could wait for a lock its own thread holds.
 * count_c calls no getenv and leaves errno as it found it.
 *
 * Output, where GETENV_COUNT_DIR was set when the library was loaded
 * (read from environ by the constructor): DIR/getenv.PID.tsv, appended
 * (open O_APPEND, write, close: no stdio, no descriptor of the program),
 * lines
 *     object<TAB>name<TAB>secure(0|1)<TAB>count
 *     #overflow<TAB>N
 *     #skipped<TAB>N
 * Each flush writes what was counted since the previous one and zeroes it,
 * so a process's counts are the sum of its lines (the same pid can write
 * several blocks: atexit, then the destructor, then one per lookup made
 * after that; an exec'd image of the same pid appends its own). Flushes:
 * the atexit handler (registered by the constructor), the destructor,
 * _exit/_Exit (multiprocessing's os._exit), before execve/execv/execvp/
 * execvpe/fexecve; after the destructor each lookup is flushed as it
 * comes. A forked child starts from zero (pthread_atfork); a process whose
 * pid is not the table's owner (a vfork child sharing its parent's memory)
 * writes nothing. Names and objects are written with \\, \t, \n, \r
 * escaped as such. A process killed by a signal writes nothing. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define HIDDEN __attribute__((visibility("hidden")))

typedef char *(*getenv_fn)(const char *);

#define SLOTS 8192           /* a power of two */
#define OBJ_MAX 128
#define NAME_MAX_ 192

struct slot {
    uint32_t hash;            /* 0: empty */
    uint32_t count;
    uint8_t secure;
    char obj[OBJ_MAX];
    char name[NAME_MAX_];
};

static struct slot table[SLOTS];
static uint32_t used[SLOTS];  /* the indexes of the slots in use, nused of them */
static uint32_t nused;
static uint64_t overflow, skipped;
static int lock;
/* this thread: how deep in count_c or flush */
static __thread int depth __attribute__((tls_model("initial-exec")));

static getenv_fn next_getenv, next_secure_getenv;
static char out_dir[PATH_MAX];
static pid_t owner;
static int final_done;        /* the destructor flushed: flush each lookup from now on */

extern char **environ;

/* The value of name in environ, for a lookup made while the next
 * definition is being found (dlsym's allocator asking), or where there is
 * none; NULL when unset. */
static char *scan(const char *name)
{
    if (!name || !*name)
        return NULL;
    size_t len = strlen(name);
    for (size_t i = 0; environ && environ[i]; i++) {
        const char *kv = environ[i];
        if (memcmp(kv, name, len) == 0 && kv[len] == '=')
            return (char *)kv + len + 1;
    }
    return NULL;
}
static char *fallback_getenv(const char *name)
{
    return scan(name);
}
static char *fallback_secure_getenv(const char *name)
{
    return getauxval(AT_SECURE) ? NULL : scan(name);
}

static getenv_fn next_of(int secure)
{
    getenv_fn *p = secure ? &next_secure_getenv : &next_getenv;
    getenv_fn f = __atomic_load_n(p, __ATOMIC_ACQUIRE);
    if (f)
        return f;
    if (depth > 1)   /* (this thread is inside the dlsym below) */
        return secure ? fallback_secure_getenv : fallback_getenv;
    f = (getenv_fn)dlsym(RTLD_NEXT, secure ? "secure_getenv" : "getenv");
    if (!f)
        f = secure ? fallback_secure_getenv : fallback_getenv;
    __atomic_store_n(p, f, __ATOMIC_RELEASE);
    return f;
}

static void take(void)
{
    for (unsigned spins = 0; __atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE);) {
        while (__atomic_load_n(&lock, __ATOMIC_RELAXED)) {
            if (++spins < 1000)
                __builtin_ia32_pause();
            else
                sched_yield();
        }
    }
}
static void give(void)
{
    __atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
}

static uint32_t hash_of(const char *obj, const char *name, int secure)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)obj; *p; p++)
        h = (h ^ *p) * 16777619u;
    h = (h ^ 0xff) * 16777619u;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 16777619u;
    h = (h ^ (uint32_t)(secure + 1)) * 16777619u;
    return h ? h : 1;
}

static void copy(char *dst, const char *src, size_t size)
{
    size_t n = strnlen(src, size - 1);
    memcpy(dst, src, n);
    dst[n] = 0;
}

/* --- the output ----------------------------------------------------------- */

static char buf[65536];
static size_t nbuf;
static int out_fd = -1;

static void out_flush(void)
{
    size_t off = 0;
    while (off < nbuf) {
        ssize_t w = write(out_fd, buf + off, nbuf - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    nbuf = 0;
}
static void out_bytes(const char *s, size_t n)
{
    while (n) {
        if (nbuf == sizeof buf)
            out_flush();
        size_t k = sizeof buf - nbuf < n ? sizeof buf - nbuf : n;
        memcpy(buf + nbuf, s, k);
        nbuf += k, s += k, n -= k;
    }
}
static void out_str(const char *s)
{
    out_bytes(s, strlen(s));
}
static void out_escaped(const char *s)
{
    for (; *s; s++) {
        const char *e = *s == '\\' ? "\\\\" : *s == '\t' ? "\\t" : *s == '\n' ? "\\n" : *s == '\r' ? "\\r" : NULL;
        if (e)
            out_str(e);
        else
            out_bytes(s, 1);
    }
}
static void out_u64(uint64_t v)
{
    char d[24];
    int i = sizeof d;
    do
        d[--i] = (char)('0' + v % 10);
    while (v /= 10);
    out_bytes(d + i, sizeof d - (size_t)i);
}

/* What was counted since the last flush, appended to DIR/getenv.PID.tsv
 * and zeroed; nothing where no directory was given, where nothing was
 * counted, or in a process that does not own the table. */
static void flush(void)
{
    if (depth)   /* (a signal handler's _exit while this thread counts: the lock may be its own) */
        return;
    int err = errno;
    depth++;
    take();
    pid_t pid = getpid();
    uint64_t skip = __atomic_exchange_n(&skipped, 0, __ATOMIC_RELAXED);
    int any = overflow || skip;
    for (uint32_t i = 0; i < nused && !any; i++)
        any = table[used[i]].count != 0;
    if (out_dir[0] && pid == owner && any) {
        char path[PATH_MAX + 64];
        size_t n = strlen(out_dir);
        memcpy(path, out_dir, n);
        memcpy(path + n, "/getenv.", 8);
        n += 8;
        char d[16];
        int k = sizeof d;
        unsigned v = (unsigned)pid;
        do
            d[--k] = (char)('0' + v % 10);
        while (v /= 10);
        memcpy(path + n, d + k, sizeof d - (size_t)k);
        n += sizeof d - (size_t)k;
        memcpy(path + n, ".tsv", 5);
        out_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY, 0644);
        if (out_fd >= 0) {
            for (uint32_t i = 0; i < nused; i++) {
                struct slot *s = &table[used[i]];
                if (!s->count)
                    continue;
                out_escaped(s->obj);
                out_str("\t");
                out_escaped(s->name);
                out_str(s->secure ? "\t1\t" : "\t0\t");
                out_u64(s->count);
                out_str("\n");
                s->count = 0;
            }
            out_str("#overflow\t");
            out_u64(overflow);
            out_str("\n#skipped\t");
            out_u64(skip);
            out_str("\n");
            overflow = skip = 0;
            out_flush();
            close(out_fd);
            out_fd = -1;
        }
    }
    if (skip)   /* (not written: kept for the next flush) */
        __atomic_fetch_add(&skipped, skip, __ATOMIC_RELAXED);
    give();
    depth--;
    errno = err;
}

/* --- counting ------------------------------------------------------------- */

static void count(const char *name, void *ra, int secure)
{
    const char *obj = "(unknown)", *path = NULL;
#ifdef DLFO_STRUCT_HAS_EH_DBASE   /* (glibc 2.35: _dl_find_object) */
    struct dl_find_object fo;
    if (ra && !_dl_find_object(ra, &fo))
        path = fo.dlfo_link_map ? fo.dlfo_link_map->l_name : "";
#else
    Dl_info di;
    if (ra && dladdr(ra, &di))
        path = di.dli_fname ? di.dli_fname : "";
#endif
    char o[OBJ_MAX], nm[NAME_MAX_];
    if (path) {
        const char *b = strrchr(path, '/');
        obj = b ? b + 1 : path;
    }
    if (path && !*obj) {   /* the program: "(main:NAME)" */
        const char *p = program_invocation_short_name ? program_invocation_short_name : "";
        size_t n = strnlen(p, sizeof o - 8);
        memcpy(o, "(main:", 6);
        memcpy(o + 6, p, n);
        memcpy(o + 6 + n, ")", 2);
    } else {
        copy(o, obj, sizeof o);
    }
    copy(nm, name, sizeof nm);
    uint32_t h = hash_of(o, nm, secure);
    take();
    uint32_t i = h & (SLOTS - 1);
    for (uint32_t probes = 0;; probes++, i = (i + 1) & (SLOTS - 1)) {
        struct slot *s = &table[i];
        if (probes == SLOTS || (!s->hash && nused >= SLOTS - SLOTS / 8)) {
            overflow++;   /* (kept 1/8 free: probing stays short) */
            break;
        }
        if (!s->hash) {
            s->hash = h, s->secure = (uint8_t)secure, s->count = 1;
            memcpy(s->obj, o, sizeof o);
            memcpy(s->name, nm, sizeof nm);
            used[nused++] = i;
            break;
        }
        if (s->hash == h && s->secure == secure && !strcmp(s->name, nm) && !strcmp(s->obj, o)) {
            s->count++;
            break;
        }
    }
    give();
}

/* Called by the trampolines: counts the lookup, returns the function to
 * go on to. */
HIDDEN __attribute__((used)) void *count_c(const char *name, void *ra, int secure)
{
    int err = errno;
    depth++;
    getenv_fn f = next_of(secure);
    if (depth > 1)
        __atomic_fetch_add(&skipped, 1, __ATOMIC_RELAXED);
    else if (name)
        count(name, ra, secure);
    depth--;
    if (__atomic_load_n(&final_done, __ATOMIC_ACQUIRE))
        flush();
    errno = err;
    return (void *)f;
}

/* getenv, secure_getenv: the caller's return address stays at (%rsp) for
 * the function jumped to; push %rdi keeps the stack 16-byte aligned for
 * the call. */
__asm__(".text\n"
        ".p2align 4\n"
        ".globl getenv\n"
        ".type getenv, @function\n"
        "getenv:\n"
        ".cfi_startproc\n"
        "endbr64\n"
        "pushq %rdi\n"
        ".cfi_adjust_cfa_offset 8\n"
        "movq 8(%rsp), %rsi\n"
        "xorl %edx, %edx\n"
        "call count_c\n"
        "popq %rdi\n"
        ".cfi_adjust_cfa_offset -8\n"
        "jmp *%rax\n"
        ".cfi_endproc\n"
        ".size getenv, .-getenv\n"
        "\n"
        ".p2align 4\n"
        ".globl secure_getenv\n"
        ".type secure_getenv, @function\n"
        "secure_getenv:\n"
        ".cfi_startproc\n"
        "endbr64\n"
        "pushq %rdi\n"
        ".cfi_adjust_cfa_offset 8\n"
        "movq 8(%rsp), %rsi\n"
        "movl $1, %edx\n"
        "call count_c\n"
        "popq %rdi\n"
        ".cfi_adjust_cfa_offset -8\n"
        "jmp *%rax\n"
        ".cfi_endproc\n"
        ".size secure_getenv, .-secure_getenv\n");

/* --- start, fork, the exit paths -------------------------------------------- */

static void child(void)
{
    __atomic_store_n(&lock, 0, __ATOMIC_RELAXED);   /* (a holder's thread is not in the child) */
    for (uint32_t i = 0; i < nused; i++)
        table[used[i]].count = 0;
    overflow = skipped = 0;
    owner = getpid();
}

static void at_exit(void)
{
    flush();
}

__attribute__((constructor)) static void start(void)
{
    owner = getpid();
    (void)next_of(0), (void)next_of(1);
    size_t n = strlen("GETENV_COUNT_DIR=");
    for (char **e = environ; e && *e; e++)
        if (!strncmp(*e, "GETENV_COUNT_DIR=", n)) {
            if (strlen(*e + n) < sizeof out_dir - 64)
                strcpy(out_dir, *e + n);
            break;
        }
    pthread_atfork(NULL, NULL, child);
    atexit(at_exit);
}

__attribute__((destructor)) static void stop(void)
{
    flush();
    __atomic_store_n(&final_done, 1, __ATOMIC_RELEASE);
}

#define NEXT(T, name) ((T)dlsym(RTLD_NEXT, name))

EXPORT void _exit(int status)
{
    flush();
    NEXT(void (*)(int), "_exit")(status);
    __builtin_unreachable();
}

EXPORT void _Exit(int status)
{
    flush();
    NEXT(void (*)(int), "_Exit")(status);
    __builtin_unreachable();
}

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    flush();
    return NEXT(execve_fn, "execve")(path, argv, envp);
}

EXPORT int execv(const char *path, char *const argv[])
{
    flush();
    return NEXT(execv_fn, "execv")(path, argv);
}

EXPORT int execvp(const char *file, char *const argv[])
{
    flush();
    return NEXT(execv_fn, "execvp")(file, argv);
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    flush();
    return NEXT(execve_fn, "execvpe")(file, argv, envp);
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    flush();
    return NEXT(int (*)(int, char *const[], char *const[]), "fexecve")(fd, argv, envp);
}
