/* An independent count of the requests a process makes to the NVIDIA
 * kernel driver (issue #15's GPU proof, tests/gpu/ioctl_layer.sh), built to
 * build/gpu/libioctl_count.so:
 *
 *     gcc -O2 -shared -fPIC tests/gpu/ioctl_count.c -o build/gpu/libioctl_count.so -ldl
 *     IOCTL_COUNT_OUT=FILE LD_PRELOAD=$PWD/build/gpu/libioctl_count.so CMD...
 *
 * It shares nothing with cutap: its own ioctl definition (forwarding to
 * dlsym(RTLD_NEXT, "ioctl")), its own idea of which descriptor is an
 * NVIDIA device file (the target of /proc/self/fd/N, read with readlink at
 * the first request on N and cached until N is closed, dup'ed over or
 * reopened through the open/close/dup wrappers defined here), its own
 * unwrapping of IOCTL_XFER_CMD. Under `cutap trace`, put it in cutap's own
 * environment (LD_PRELOAD=<this> cutap trace ...): cutap puts libcutap.so
 * in front of an LD_PRELOAD it finds (cli/run/launch.c, set_preload), so the
 * traced program gets LD_PRELOAD=libcutap.so:<this>, libcuda's ioctl calls
 * reach libcutap's ioctl first and this one is what libcutap calls as "the
 * kernel": it sees exactly the requests cutap passes on.
 *
 * What it counts, per process, for every request on a descriptor whose
 * link is $IOCTL_COUNT_DEVDIR/nvidia* (default /dev):
 *   counts   "DEV:0xNN" for an _IOWR('F', NN, ...) request on nvidiactl or
 *            nvidiaN (an IOCTL_XFER_CMD, nr 0xd3, whose nv_ioctl_xfer_t
 *            header {u32 cmd; u32 size; u64 ptr} can be read and whose cmd
 *            is below 256 counts as its inner escape cmd), "DEV:r0xREQ"
 *            (the low 32 bits of the raw request) for anything else: every
 *            request on nvidia-uvm(-tools), nvidia-modeset, nvidia-caps,
 *            other nvidia* nodes, and non-'F' requests on nvidiactl/N.
 *            DEV: ctl, gpuN, uvm, uvmtools, modeset, capN, other.
 *   xfer     the same keys, for the requests that came wrapped in
 *            IOCTL_XFER_CMD (also in counts)
 *   controls RM_CONTROL (escape 0x2a) requests that returned 0: the NVOS54
 *            cmd (offset 8 of the block), "0x%08x"
 *   classes  RM_ALLOC (0x2b) requests that returned 0: the NVOS21/NVOS64
 *            hClass (offset 12), "0x%x"
 *   unread   IOCTL_XFER_CMD requests whose header could not be read
 *            (counted as escape 0xd3)
 *   dropped  requests not counted because a table was full (0 expected)
 * The XFER header is read before the call through process_vm_readv (which
 * fails instead of faulting); the RM_CONTROL/RM_ALLOC blocks after the call
 * returned 0 (the kernel copied them in and out), the same way or, where
 * process_vm_readv is refused (seccomp), directly.
 *
 * Output: lines appended to $IOCTL_COUNT_OUT (opened, written with one
 * write(2) of O_APPEND and closed at each flush: no descriptor of the
 * program is ever written), one JSON object per flush:
 *   {"pid":..,"ppid":..,"exe":"..","seq":N,"why":"atexit","after_exit":false,
 *    "counts":{"ctl:0x2a":N,..},"xfer":{..},"controls":{"0x20800101":N,..},
 *    "classes":{"0xc86f":N,..},"unread":0,"dropped":0}
 * A line carries what was counted since the previous line of the process
 * (the first line: everything), so a process's counts are the sum of its
 * lines (match them by pid). Flushes: the atexit handler (registered at
 * load), the library destructor, _exit/_Exit, and before execve/execv/
 * execvp/execvpe/fexecve (the new image starts from zero and writes lines
 * of its own under the same pid). Requests made after the first flush of
 * the exit path (libcuda's own destructor, which can run after ours) are
 * flushed one by one as they come, "after_exit":true. A forked child
 * starts from zero (pthread_atfork); a process whose pid is not the one
 * that owns the counts (a vfork child sharing its parent's memory) writes
 * nothing. A process killed by a signal writes nothing more.
 *
 * IOCTL_COUNT_RECHECK=1: readlink at every request (no cache). */
#define _GNU_SOURCE
#undef _FORTIFY_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

enum { K_CTL = 1, K_GPU, K_UVM, K_UVMTOOLS, K_MODESET, K_CAPS, K_OTHER };
#define NVBIT 0x80000000u      /* fd class: an NVIDIA device; kind << 16 | minor below */
#define NOTNV 1u               /* fd class: any other file; 0: not known yet */
#define ESC_CONTROL 0x2a
#define ESC_ALLOC 0x2b
#define ESC_XFER 0xd3

/* --- the real functions ------------------------------------------------- */

enum { R_IOCTL, R_OPEN, R_OPEN64, R_OPENAT, R_OPENAT64, R_OPEN_2, R_OPEN64_2, R_OPENAT_2, R_OPENAT64_2, R_CLOSE,
       R_CLOSE_RANGE, R_CLOSEFROM, R_DUP, R_DUP2, R_DUP3, R_EXECVE, R_EXECV, R_EXECVP, R_EXECVPE, R_FEXECVE, R_EXIT,
       R_EXIT2, R_COUNT };
static const char *const real_names[R_COUNT] = {
    "ioctl", "open", "open64", "openat", "openat64", "__open_2", "__open64_2", "__openat_2", "__openat64_2", "close",
    "close_range", "closefrom", "dup", "dup2", "dup3", "execve", "execv", "execvp", "execvpe", "fexecve", "_exit",
    "_Exit"};
static void *_Atomic real_fns[R_COUNT];

static void *real(int k)
{
    void *f = atomic_load_explicit(&real_fns[k], memory_order_acquire);
    if (!f) {
        int err = errno;
        f = dlsym(RTLD_NEXT, real_names[k]);
        errno = err;
        if (f)
            atomic_store_explicit(&real_fns[k], f, memory_order_release);
    }
    return f;
}

typedef int (*ioctl_fn)(int, unsigned long, void *);
typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);
typedef int (*open2_fn)(const char *, int);
typedef int (*openat2_fn)(int, const char *, int);
typedef int (*close_fn)(int);
typedef int (*close_range_fn)(unsigned, unsigned, int);
typedef void (*closefrom_fn)(int);
typedef int (*dup_fn)(int);
typedef int (*dup2_fn)(int, int);
typedef int (*dup3_fn)(int, int, int);
typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef void (*exit_fn)(int);

static int no_fn(void)
{
    errno = ENOSYS;
    return -1;
}
#define CALL(k, type, ...) (real(k) ? ((type)real(k))(__VA_ARGS__) : no_fn())

/* --- which descriptors are NVIDIA device files ------------------------- */

#define FD_CACHE 65536
static _Atomic uint32_t fd_class_cache[FD_CACHE];
static char devdir[PATH_MAX + 1], devdir_real[PATH_MAX + 1];
static size_t devdir_len, devdir_real_len;
static int recheck;
static _Atomic int inited;
static char out_path[PATH_MAX + 1];   /* $IOCTL_COUNT_OUT, read at load */

static void set_dir(char *dst, size_t *len, const char *src)
{
    size_t n = strlen(src);
    if (!n || n > PATH_MAX - 2)
        return;
    memcpy(dst, src, n);
    if (dst[n - 1] != '/')
        dst[n++] = '/';
    dst[n] = 0;
    *len = n;
}

static void init_once(void)
{
    int expect = 0;
    if (!atomic_compare_exchange_strong(&inited, &expect, 1))
        return;
    int err = errno;
    const char *d = getenv("IOCTL_COUNT_DEVDIR");
    if (!d || !*d)
        d = "/dev";
    set_dir(devdir, &devdir_len, d);
    char rp[PATH_MAX];
    if (realpath(d, rp))
        set_dir(devdir_real, &devdir_real_len, rp);
    const char *r = getenv("IOCTL_COUNT_RECHECK");
    recheck = r && *r == '1';
    const char *o = getenv("IOCTL_COUNT_OUT");
    if (o && strlen(o) < sizeof out_path)
        strcpy(out_path, o);
    errno = err;
}

static int all_digits(const char *p, unsigned *v)
{
    unsigned x = 0;
    if (*p < '0' || *p > '9')
        return 0;
    for (; *p >= '0' && *p <= '9'; p++)
        x = x < 100000 ? x * 10 + (unsigned)(*p - '0') : x;
    *v = x > 0xffff ? 0xffff : x;
    return *p == 0;
}

/* The class of a path (a descriptor's link target). */
static uint32_t class_of_path(const char *t)
{
    const char *p = NULL;
    if (devdir_len && !strncmp(t, devdir, devdir_len))
        p = t + devdir_len;
    else if (devdir_real_len && !strncmp(t, devdir_real, devdir_real_len))
        p = t + devdir_real_len;
    if (!p || strncmp(p, "nvidia", 6))
        return NOTNV;
    p += 6;
    unsigned minor = 0, kind;
    if (!strcmp(p, "ctl"))
        kind = K_CTL;
    else if (all_digits(p, &minor))
        kind = K_GPU;
    else if (!strcmp(p, "-uvm"))
        kind = K_UVM;
    else if (!strcmp(p, "-uvm-tools"))
        kind = K_UVMTOOLS;
    else if (!strcmp(p, "-modeset"))
        kind = K_MODESET;
    else if (!strncmp(p, "-caps/nvidia-cap", 16) && all_digits(p + 16, &minor))
        kind = K_CAPS;
    else
        kind = K_OTHER, minor = 0;
    return NVBIT | kind << 16 | minor;
}

static uint32_t fd_class(int fd)
{
    if (fd < 0)
        return NOTNV;
    if (fd < FD_CACHE && !recheck) {
        uint32_t v = atomic_load_explicit(&fd_class_cache[fd], memory_order_acquire);
        if (v)
            return v;
    }
    char link[48], target[PATH_MAX + 1];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    long n = syscall(SYS_readlinkat, AT_FDCWD, link, target, sizeof target - 1);
    if (n <= 0)
        return NOTNV;   /* not open (EBADF follows) or no /proc: not cached */
    target[n] = 0;
    uint32_t v = class_of_path(target);
    if (fd < FD_CACHE)
        atomic_store_explicit(&fd_class_cache[fd], v, memory_order_release);
    return v;
}

static void forget(int fd)
{
    if (fd >= 0 && fd < FD_CACHE)
        atomic_store_explicit(&fd_class_cache[fd], 0, memory_order_release);
}

/* --- counting ------------------------------------------------------------ */

struct slot {
    _Atomic uint64_t key;   /* 0: free; else the key with bit 63 set */
    _Atomic uint64_t n;     /* counted */
    uint64_t done;          /* of n, written already (under the flush lock) */
};
#define NCOUNTS 8192
#define NXFER 1024
#define NCTRL 8192
#define NCLASS 2048
static struct slot t_counts[NCOUNTS], t_xfer[NXFER], t_ctrl[NCTRL], t_class[NCLASS];
static _Atomic uint64_t n_unread, n_dropped;
static uint64_t done_unread, done_dropped;

static unsigned hash64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (unsigned)k;
}

static void bump(struct slot *t, unsigned cap, uint64_t key)
{
    key |= 1ull << 63;
    unsigned i = hash64(key) & (cap - 1);
    for (unsigned k = 0; k < cap; k++, i = (i + 1) & (cap - 1)) {
        uint64_t v = atomic_load_explicit(&t[i].key, memory_order_acquire);
        if (!v) {
            uint64_t zero = 0;
            v = atomic_compare_exchange_strong(&t[i].key, &zero, key) ? key : zero;
        }
        if (v == key) {
            atomic_fetch_add_explicit(&t[i].n, 1, memory_order_relaxed);
            return;
        }
    }
    atomic_fetch_add(&n_dropped, 1);
}

/* A count key: device (kind << 16 | minor) << 34, bit 32 for a raw
 * request, the escape number or the raw request's low 32 bits. */
static uint64_t count_key(uint32_t dev, int raw, uint32_t v)
{
    return (uint64_t)dev << 34 | (uint64_t)(raw ? 1 : 0) << 32 | v;
}

static _Atomic int vm_refused;

/* n bytes at src: 0; -1 when they are not all readable; -2 when the
 * system refuses process_vm_readv. Never faults. */
static int vm_read(void *dst, const void *src, size_t n)
{
    if (!src)
        return -1;
    if (atomic_load_explicit(&vm_refused, memory_order_relaxed))
        return -2;
    struct iovec l = {dst, n}, r = {(void *)(uintptr_t)src, n};
    ssize_t got = process_vm_readv(getpid(), &l, 1, &r, 1, 0);
    if (got < 0 && (errno == ENOSYS || errno == EPERM)) {
        atomic_store(&vm_refused, 1);
        return -2;
    }
    return got == (ssize_t)n ? 0 : -1;
}

/* A block the kernel accepted (the call returned 0). */
static int read_accepted(void *dst, const void *src, size_t n)
{
    int r = vm_read(dst, src, n);
    if (r == -2 && src) {
        memcpy(dst, src, n);
        return 0;
    }
    return r;
}

/* --- flushing -------------------------------------------------------------- */

static _Atomic pid_t owner;           /* the process the counts are of */
static _Atomic int exiting;           /* an exit-path flush happened */
static _Atomic unsigned seq;          /* lines written by this image */
static atomic_flag flush_lock = ATOMIC_FLAG_INIT;
static char buf[1 << 20];

struct out {
    size_t len;
};

/* Appends to buf; what closes a line always fits (table members stop
 * ROOM bytes before the end, the exe path is cut at 512 bytes). */
static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + o->len, sizeof buf - o->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->len = o->len + (size_t)n < sizeof buf ? o->len + (size_t)n : sizeof buf - 1;
}

static void put_json_str(struct out *o, const char *s)
{
    put(o, "\"");
    for (size_t i = 0; s[i] && i < 512; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            put(o, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f)
            put(o, "\\u%04x", c);
        else
            put(o, "%c", c);
    }
    put(o, "\"");
}

static const char *dev_label(uint32_t dev, char *b, size_t n)
{
    unsigned kind = dev >> 16 & 0xff, minor = dev & 0xffff;
    switch (kind) {
    case K_CTL: snprintf(b, n, "ctl"); break;
    case K_GPU: snprintf(b, n, "gpu%u", minor); break;
    case K_UVM: snprintf(b, n, "uvm"); break;
    case K_UVMTOOLS: snprintf(b, n, "uvmtools"); break;
    case K_MODESET: snprintf(b, n, "modeset"); break;
    case K_CAPS: snprintf(b, n, "cap%u", minor); break;
    case K_OTHER: snprintf(b, n, "other"); break;
    default: snprintf(b, n, "kind%u_%u", kind, minor);
    }
    return b;
}

/* One table's members counted since the last flush, as a JSON object;
 * returns how many. style 0: count keys, 1: controls, 2: classes. A
 * member that does not fit (never with these table sizes) is left for the
 * next line. */
#define ROOM 4096   /* kept free for what closes the line */
static uint64_t put_table(struct out *o, const char *name, struct slot *t, unsigned cap, int style)
{
    uint64_t total = 0;
    int first = 1;
    put(o, ",\"%s\":{", name);
    for (unsigned i = 0; i < cap; i++) {
        uint64_t k = atomic_load_explicit(&t[i].key, memory_order_acquire);
        if (!k)
            continue;
        uint64_t n = atomic_load_explicit(&t[i].n, memory_order_relaxed), d = n - t[i].done;
        if (!d)
            continue;
        char e[96], lb[32];
        k &= ~(1ull << 63);
        if (style == 1)
            snprintf(e, sizeof e, "\"0x%08x\":%llu", (unsigned)k, (unsigned long long)d);
        else if (style == 2)
            snprintf(e, sizeof e, "\"0x%x\":%llu", (unsigned)k, (unsigned long long)d);
        else if (k >> 32 & 1)
            snprintf(e, sizeof e, "\"%s:r0x%x\":%llu", dev_label((uint32_t)(k >> 34), lb, sizeof lb), (unsigned)k,
                     (unsigned long long)d);
        else
            snprintf(e, sizeof e, "\"%s:0x%02x\":%llu", dev_label((uint32_t)(k >> 34), lb, sizeof lb),
                     (unsigned)k & 0xff, (unsigned long long)d);
        if (o->len + strlen(e) + 1 > sizeof buf - ROOM)
            continue;
        put(o, "%s%s", first ? "" : ",", e);
        first = 0;
        t[i].done = n;
        total += d;
    }
    put(o, "}");
    return total;
}

static void write_all(const char *path, const char *p, size_t n)
{
    long fd = syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    while (n) {
        long w = syscall(SYS_write, (int)fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        p += w, n -= (size_t)w;
    }
    syscall(SYS_close, (int)fd);
}

/* Writes what was counted since the last line; the first line of an
 * image even when empty (it shows the counter was there). Returns 0 when
 * this process is not the one the counts are of (a vfork child). */
static __thread int in_flush;   /* a signal handler's request during a flush: not flushed again */
static int flush(const char *why)
{
    pid_t me = (pid_t)syscall(SYS_getpid);
    if (me != atomic_load(&owner))
        return 0;
    if (!out_path[0] || in_flush)
        return 1;
    int err = errno;
    in_flush = 1;
    while (atomic_flag_test_and_set_explicit(&flush_lock, memory_order_acquire))
        sched_yield();
    int after = atomic_load(&exiting);
    struct out o = {0};
    char exe[PATH_MAX + 1];
    long n = syscall(SYS_readlinkat, AT_FDCWD, "/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    put(&o, "{\"pid\":%d,\"ppid\":%d,\"exe\":", (int)me, (int)syscall(SYS_getppid));
    put_json_str(&o, exe);
    unsigned s = atomic_load(&seq);
    put(&o, ",\"seq\":%u,\"why\":\"%s\",\"after_exit\":%s", s, why, after ? "true" : "false");
    uint64_t any = put_table(&o, "counts", t_counts, NCOUNTS, 0);
    any += put_table(&o, "xfer", t_xfer, NXFER, 0);
    any += put_table(&o, "controls", t_ctrl, NCTRL, 1);
    any += put_table(&o, "classes", t_class, NCLASS, 2);
    uint64_t u = atomic_load(&n_unread), dr = atomic_load(&n_dropped);
    any += (u - done_unread) + (dr - done_dropped);
    put(&o, ",\"unread\":%llu,\"dropped\":%llu}\n", (unsigned long long)(u - done_unread),
        (unsigned long long)(dr - done_dropped));
    done_unread = u, done_dropped = dr;
    if (any || !s) {
        write_all(out_path, buf, o.len);
        atomic_store(&seq, s + 1);
    }
    atomic_flag_clear_explicit(&flush_lock, memory_order_release);
    in_flush = 0;
    errno = err;
    return 1;
}

/* A flush on the way out: from then on every request is written as it
 * comes (libcuda's destructor may run after ours). */
static void exit_flush(const char *why)
{
    if (flush(why))
        atomic_store(&exiting, 1);
}

static void at_exit(void) { exit_flush("atexit"); }

static void reset_tables(struct slot *t, unsigned cap)
{
    for (unsigned i = 0; i < cap; i++) {
        atomic_store(&t[i].key, 0);
        atomic_store(&t[i].n, 0);
        t[i].done = 0;
    }
}

/* A forked child: its own counts, from zero. */
static void child_after_fork(void)
{
    atomic_flag_clear(&flush_lock);
    reset_tables(t_counts, NCOUNTS);
    reset_tables(t_xfer, NXFER);
    reset_tables(t_ctrl, NCTRL);
    reset_tables(t_class, NCLASS);
    atomic_store(&n_unread, 0);
    atomic_store(&n_dropped, 0);
    done_unread = done_dropped = 0;
    atomic_store(&seq, 0);
    atomic_store(&exiting, 0);
    atomic_store(&owner, (pid_t)syscall(SYS_getpid));
}

__attribute__((constructor)) static void counter_init(void)
{
    init_once();
    atomic_store(&owner, (pid_t)syscall(SYS_getpid));
    for (int k = 0; k < R_COUNT; k++)
        (void)real(k);
    pthread_atfork(NULL, NULL, child_after_fork);
    atexit(at_exit);
}

__attribute__((destructor)) static void counter_fini(void) { exit_flush("fini"); }

/* --- the wrappers ---------------------------------------------------------- */

struct xfer {
    uint32_t cmd, size;
    uint64_t ptr;
};

EXPORT int ioctl(int fd, unsigned long req, ...)
{
    va_list ap;
    va_start(ap, req);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    ioctl_fn f = (ioctl_fn)real(R_IOCTL);
    if (!f) {
        errno = ENOSYS;
        return -1;
    }
    int err = errno;
    if (!atomic_load_explicit(&inited, memory_order_acquire))
        init_once();
    uint32_t cls = fd_class(fd);
    errno = err;
    if (!(cls & NVBIT))
        return f(fd, req, arg);
    uint32_t dev = cls & 0xffffff, kind = dev >> 16;
    int esc = (kind == K_CTL || kind == K_GPU) && ((req >> 8) & 0xff) == 'F';
    unsigned nr = (unsigned)req & 0xff;
    size_t size = (req >> 16) & 0x3fff;
    const char *block = arg;
    struct xfer xf = {0, 0, 0};
    int xr = -1, wrapped = 0;
    if (esc && nr == ESC_XFER)
        xr = vm_read(&xf, arg, sizeof xf);
    errno = err;
    int ret = f(fd, req, arg);
    err = errno;
    if (esc && nr == ESC_XFER) {
        if (xr == -2 && ret == 0 && arg) {
            memcpy(&xf, arg, sizeof xf);
            xr = 0;
        }
        if (xr == 0 && xf.cmd < 256) {
            wrapped = 1;
            nr = xf.cmd;
            size = xf.size;
            block = (const char *)(uintptr_t)xf.ptr;
        } else
            atomic_fetch_add(&n_unread, 1);
    }
    uint64_t key = esc ? count_key(dev, 0, nr) : count_key(dev, 1, (uint32_t)req);
    bump(t_counts, NCOUNTS, key);
    if (wrapped)
        bump(t_xfer, NXFER, key);
    if (esc && ret == 0 && block) {
        uint32_t v;
        if (nr == ESC_CONTROL && size >= 12 && !read_accepted(&v, block + 8, sizeof v))
            bump(t_ctrl, NCTRL, v);
        else if (nr == ESC_ALLOC && size >= 16 && !read_accepted(&v, block + 12, sizeof v))
            bump(t_class, NCLASS, v);
    }
    if (atomic_load_explicit(&exiting, memory_order_relaxed))
        (void)flush("late");
    errno = err;
    return ret;
}

/* Opens: the descriptor a number now names is found out again at its
 * first request. */
static int opened(int fd, int err)
{
    forget(fd);
    errno = err;
    return fd;
}

#define GET_MODE(flags)                                                    \
    mode_t mode = 0;                                                       \
    if ((flags) & O_CREAT || ((flags) & O_TMPFILE) == O_TMPFILE) {         \
        va_list ap;                                                        \
        va_start(ap, flags);                                               \
        mode = (mode_t)va_arg(ap, int);                                    \
        va_end(ap);                                                        \
    }

EXPORT int open(const char *path, int flags, ...)
{
    GET_MODE(flags);
    int fd = CALL(R_OPEN, open_fn, path, flags, mode);
    return opened(fd, errno);
}
EXPORT int open64(const char *path, int flags, ...)
{
    GET_MODE(flags);
    int fd = CALL(R_OPEN64, open_fn, path, flags, mode);
    return opened(fd, errno);
}
EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
    GET_MODE(flags);
    int fd = CALL(R_OPENAT, openat_fn, dirfd, path, flags, mode);
    return opened(fd, errno);
}
EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
    GET_MODE(flags);
    int fd = CALL(R_OPENAT64, openat_fn, dirfd, path, flags, mode);
    return opened(fd, errno);
}
EXPORT int __open_2(const char *path, int flags);
EXPORT int __open_2(const char *path, int flags)
{
    int fd = CALL(R_OPEN_2, open2_fn, path, flags);
    return opened(fd, errno);
}
EXPORT int __open64_2(const char *path, int flags);
EXPORT int __open64_2(const char *path, int flags)
{
    int fd = CALL(R_OPEN64_2, open2_fn, path, flags);
    return opened(fd, errno);
}
EXPORT int __openat_2(int dirfd, const char *path, int flags);
EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
    int fd = CALL(R_OPENAT_2, openat2_fn, dirfd, path, flags);
    return opened(fd, errno);
}
EXPORT int __openat64_2(int dirfd, const char *path, int flags);
EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
    int fd = CALL(R_OPENAT64_2, openat2_fn, dirfd, path, flags);
    return opened(fd, errno);
}

EXPORT int close(int fd)
{
    forget(fd);
    int r = CALL(R_CLOSE, close_fn, fd), err = errno;
    forget(fd);
    errno = err;
    return r;
}

EXPORT int close_range(unsigned first, unsigned last, int flags)
{
    for (unsigned fd = first; fd <= last && fd < FD_CACHE; fd++)
        forget((int)fd);
    return CALL(R_CLOSE_RANGE, close_range_fn, first, last, flags);
}

EXPORT void closefrom(int low)
{
    for (int fd = low < 0 ? 0 : low; fd < FD_CACHE; fd++)
        forget(fd);
    closefrom_fn f = (closefrom_fn)real(R_CLOSEFROM);
    if (f)
        f(low);
}

EXPORT int dup(int fd)
{
    int r = CALL(R_DUP, dup_fn, fd);
    return opened(r, errno);
}
EXPORT int dup2(int fd, int fd2)
{
    int r = CALL(R_DUP2, dup2_fn, fd, fd2);
    return opened(r, errno);
}
EXPORT int dup3(int fd, int fd2, int flags)
{
    int r = CALL(R_DUP3, dup3_fn, fd, fd2, flags);
    return opened(r, errno);
}

/* Execs: this image's counts written first (the new image, same pid,
 * counts from zero). */
static void before_exec(void) { (void)flush("exec"); }

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    before_exec();
    int r = CALL(R_EXECVE, execve_fn, path, argv, envp), err = errno;
    errno = err;
    return r;
}
EXPORT int execv(const char *path, char *const argv[])
{
    before_exec();
    int r = CALL(R_EXECV, execv_fn, path, argv), err = errno;
    errno = err;
    return r;
}
EXPORT int execvp(const char *file, char *const argv[])
{
    before_exec();
    int r = CALL(R_EXECVP, execv_fn, file, argv), err = errno;
    errno = err;
    return r;
}
EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    before_exec();
    int r = CALL(R_EXECVPE, execve_fn, file, argv, envp), err = errno;
    errno = err;
    return r;
}
EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    before_exec();
    int r = CALL(R_FEXECVE, fexecve_fn, fd, argv, envp), err = errno;
    errno = err;
    return r;
}

EXPORT void _exit(int status)
{
    exit_flush("_exit");
    exit_fn f = (exit_fn)real(R_EXIT);
    if (f)
        f(status);
    for (;;)
        syscall(SYS_exit_group, status);
}
EXPORT void _Exit(int status)
{
    exit_flush("_exit");
    exit_fn f = (exit_fn)real(R_EXIT2);
    if (f)
        f(status);
    for (;;)
        syscall(SYS_exit_group, status);
}
