/* The ioctl layer (issue #15): the requests libcuda, NVML and the CUDA
 * libraries make to the NVIDIA kernel driver, and the opens, closes and
 * mappings of its device files, recorded as calls of layer "ioctl" nested
 * under the API call that made them on that thread.
 *
 * libcuda.so.1 (driver 580) imports ioctl, open, open64, mmap, mmap64,
 * close, munmap and mremap from glibc through its PLT (measured on the GPU
 * machine; no raw syscall instruction is used for them; it releases device
 * mappings with MAP_FIXED mappings over them, never munmap), so the
 * preloaded library sees them by exporting those names. Every other caller
 * in the process reaches these wrappers too: the pass-through is one load
 * from a table indexed by the file descriptor (is it an NVIDIA device
 * file?) and a jump to glibc's function (bench/ioctl.c measures it).
 *
 * A descriptor is an NVIDIA device's when it was opened by a path of the
 * device directory (/dev, or CUTAP_NV_DEVDIR for tests and containers that
 * mount the nodes elsewhere) named nvidiactl, nvidiaN, nvidia-uvm, ...;
 * dup/dup2/dup3/fcntl(F_DUPFD) carry the mark, close/close_range clear it. A
 * descriptor inherited across exec is looked at (its /proc/self/fd link)
 * at its first request that could be an NVIDIA one (CUTAP_NV_REQUEST_LOOKS),
 * once: start-up reads no descriptor (a process may inherit thousands).
 * Descriptors of 65,536 and above are never marked (not recorded).
 *
 * What the kernel is given is read only after it accepted it: the
 * parameter block of an nvidiactl/nvidiaN request (its size is in the
 * request number) after the ioctl returned 0, when the kernel has copied
 * it in and out; a UVM command's rmStatus and an IOCTL_XFER_CMD header
 * through process_vm_readv, which fails instead of faulting on a bad
 * pointer. A buggy program's bad pointer is the kernel's EFAULT, never a
 * fault in cutap. The records' words and results: docs/FORMAT.md, "The
 * ioctl layer". */
#define _GNU_SOURCE
#undef _FORTIFY_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "resolve_internal.h"
#include "ioctl_internal.h"
#include "cutap_format.h"
#include "nv_ioctl.h"

#define NV_FD_MAX 65536

/* --- device files ------------------------------------------------------ */

/* Per descriptor: kind (CUTAP_NVDEV_*, 0 for any other file), minor, and
 * the file's identity (st_dev, st_ino) when it was marked: a descriptor
 * closed where cutap cannot see it (closefrom, a raw close system call)
 * and reused for another file is found out by fstat on the slow path
 * before anything is recorded for it. */
static _Atomic uint8_t fd_kind[NV_FD_MAX];
static _Atomic uint16_t fd_minor[NV_FD_MAX];
static _Atomic uint64_t fd_ident[NV_FD_MAX];
/* Looked at already (an unmarked descriptor found not to be a device):
 * one bit each, cleared with its mark. */
static _Atomic uint64_t fd_seen[NV_FD_MAX / 64];

static uint64_t ident_of(int fd)
{
    struct stat st;
    if (fstat(fd, &st))
        return 0;
    return ((uint64_t)st.st_dev * 0x9e3779b97f4a7c15ull) ^ (uint64_t)st.st_ino ^ ((uint64_t)st.st_rdev << 32) ^ 1;
}

/* A vfork child shares this memory with its parent: what it opens,
 * closes or dups (subprocess closes the parent's descriptors in the
 * child) is not the parent's, and must not change the parent's marks. */
static _Atomic pid_t own_pid;
static void pid_after_fork(void) { atomic_store(&own_pid, (pid_t)syscall(SYS_getpid)); }
static int foreign(void)
{
    pid_t p = atomic_load_explicit(&own_pid, memory_order_relaxed), now = (pid_t)syscall(SYS_getpid);
    if (!p) {
        atomic_store(&own_pid, now);
        return 0;
    }
    return p != now;
}

static const char *devdir(size_t *len)
{
    static char dir[256];
    static _Atomic size_t dir_len;
    size_t n = atomic_load_explicit(&dir_len, memory_order_acquire);
    if (!n) {
        const char *e = getenv("CUTAP_NV_DEVDIR");
        if (!e || !*e || strlen(e) > sizeof dir - 2)
            e = "/dev";
        n = strlen(e);
        memcpy(dir, e, n);
        if (dir[n - 1] != '/')
            dir[n++] = '/';
        dir[n] = 0;
        atomic_store_explicit(&dir_len, n, memory_order_release);
    }
    *len = n;
    return dir;
}

static int digits(const char *p, unsigned *v)
{
    unsigned x = 0;
    if (!isdigit((unsigned char)*p))
        return 0;
    for (; isdigit((unsigned char)*p); p++)
        x = x < 100000 ? x * 10 + (unsigned)(*p - '0') : x;
    *v = x > 0xffff ? 0xffff : x;
    return *p == 0;
}

/* The kind of an NVIDIA device file path, or 0. Relative paths and paths
 * through other directories are not recognised: libcuda and NVML open the
 * nodes by absolute path. */
static int path_kind(const char *path, unsigned *minor)
{
    size_t n;
    const char *d = devdir(&n);
    *minor = 0;
    if (!path || strncmp(path, d, n) || strncmp(path + n, "nvidia", 6))
        return 0;
    const char *p = path + n + 6;
    if (!strcmp(p, "ctl"))
        return CUTAP_NVDEV_CTL;
    if (digits(p, minor))
        return CUTAP_NVDEV_GPU;
    if (!strcmp(p, "-uvm"))
        return CUTAP_NVDEV_UVM;
    if (!strcmp(p, "-uvm-tools"))
        return CUTAP_NVDEV_UVM_TOOLS;
    if (!strcmp(p, "-modeset"))
        return CUTAP_NVDEV_MODESET;
    if (!strncmp(p, "-caps/nvidia-cap", 16) && digits(p + 16, minor))
        return CUTAP_NVDEV_CAPS;
    return CUTAP_NVDEV_OTHER;
}

static inline unsigned kind_of(int fd)
{
    return (unsigned)fd < NV_FD_MAX ? atomic_load_explicit(&fd_kind[fd], memory_order_relaxed) : 0;
}

static void mark(int fd, unsigned kind, unsigned minor)
{
    if ((unsigned)fd >= NV_FD_MAX)
        return;
    atomic_fetch_and_explicit(&fd_seen[fd / 64], ~(1ull << (fd % 64)), memory_order_relaxed);
    atomic_store_explicit(&fd_ident[fd], kind ? ident_of(fd) : 0, memory_order_relaxed);
    atomic_store_explicit(&fd_minor[fd], (uint16_t)minor, memory_order_relaxed);
    atomic_store_explicit(&fd_kind[fd], (uint8_t)kind, memory_order_release);
}

/* An unmarked descriptor's first request that could be an NVIDIA one: is
 * it a device file (one inherited across exec, opened where cutap did not
 * see it)? Looked at once, by the path its /proc/self/fd link names, as an
 * open's path would be. */
static __attribute__((noinline)) unsigned classify(int fd)
{
    if ((unsigned)fd >= NV_FD_MAX || cutap_tls.internal ||
        (atomic_load_explicit(&fd_seen[fd / 64], memory_order_relaxed) >> (fd % 64) & 1))
        return 0;
    char link[64], target[512];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    int err = errno;
    ssize_t n = readlink(link, target, sizeof target - 1);
    errno = err;
    unsigned minor, kind = 0;
    if (n > 0) {
        target[n] = 0;
        kind = (unsigned)path_kind(target, &minor);
    }
    if (foreign())
        return 0;   /* a vfork child: the parent's marks are not its to change */
    if (kind)
        mark(fd, kind, minor);
    else
        atomic_fetch_or_explicit(&fd_seen[fd / 64], 1ull << (fd % 64), memory_order_relaxed);
    return kind;
}

/* On the slow path of a marked descriptor: still the device it was
 * marked for? If not, the mark is dropped (and nothing recorded). Not
 * while cutap itself is at work on the thread (its trace file). */
static int still_device(int fd)
{
    if (cutap_tls.internal)
        return 0;
    uint64_t want = atomic_load_explicit(&fd_ident[fd], memory_order_relaxed);
    if (want && ident_of(fd) == want)
        return 1;
    if (!foreign())
        mark(fd, 0, 0);
    return 0;
}

static inline uint64_t dev_word(int fd)
{
    return (uint64_t)kind_of(fd) << 16 | atomic_load_explicit(&fd_minor[fd], memory_order_relaxed);
}

/* --- the real functions --------------------------------------------------- */

/* glibc's functions, as the front found them (the core's own RTLD_NEXT
 * would find the front's entries). */
enum { R_IOCTL = CUTAP_IO_IOCTL, R_CLOSE = CUTAP_IO_CLOSE, R_CLOSE_RANGE = CUTAP_IO_CLOSE_RANGE,
       R_MUNMAP = CUTAP_IO_MUNMAP, R_COUNT = CUTAP_IO_COUNT };
#define real(k) cutap_front_real(k)
#define REAL(k, type) ((type)real(k))

/* Reads n bytes at src without ever faulting: 0, or -1 when they are not
 * all readable or the system refuses process_vm_readv (seccomp profiles
 * of some containers: then *refused is set). */
static _Atomic int vm_read_refused;
static int safe_read(void *dst, const void *src, size_t n)
{
    if (!n)
        return 0;
    if (atomic_load_explicit(&vm_read_refused, memory_order_relaxed))
        return -1;
    struct iovec l = {dst, n}, r = {(void *)(uintptr_t)src, n};
    int err = errno;
    ssize_t got = process_vm_readv(getpid(), &l, 1, &r, 1, 0);
    if (got < 0 && (errno == ENOSYS || errno == EPERM))
        atomic_store(&vm_read_refused, 1);
    errno = err;
    return got == (ssize_t)n ? 0 : -1;
}

int cutap_ioc_safe_read(void *dst, const void *src, size_t n)
{
    return safe_read(dst, src, n);
}

/* A block the kernel just accepted (copied in and out): read safely, or,
 * where process_vm_readv is refused, directly. */
static int read_accepted(void *dst, const void *src, size_t n)
{
    if (!safe_read(dst, src, n))
        return 0;
    if (!atomic_load_explicit(&vm_read_refused, memory_order_relaxed))
        return -1;   /* not readable now: unmapped meanwhile by another thread */
    memcpy(dst, src, n);
    return 0;
}

/* --- parameter blocks (issue #32) ---------------------------------------- */

/* CUTAP_IOCTL_PARAMS=1 (`cutap trace --ioctl-params`): the parameter
 * block of each RM_CONTROL and RM_ALLOC is recorded with its call
 * (record/params.c). Off: one test of this flag per request. */
static int ioc_params_on;

/* The block an RM_CONTROL (NVOS54 params, paramsSize) or RM_ALLOC (NVOS21
 * or NVOS64 pAllocParms, paramsSize) names, read (safely: the pointer is
 * the program's) from its NVOS block before the call; 0 when there is
 * none to record (an unreadable NVOS block is the kernel's EFAULT). */
static __attribute__((noinline)) int blk_prepare(struct cutap_ioc_blk *b, unsigned sig, const void *block,
                                                  size_t size, const uint64_t *w)
{
    uint32_t v[12];
    memset(b, 0, sizeof *b);
    if (sig == S_CONTROL && size >= 32 && !safe_read(v, block, 32)) {
        /* hClient hObject cmd flags, params (u64), paramsSize status */
        b->kind = CUTAP_PARAMS_CONTROL;
        b->what = v[2];
        b->ptr = (uint64_t)v[4] | (uint64_t)v[5] << 32;
        b->size = v[6];
    } else if (sig == S_ALLOC && (size == 32 || size == 48) && !safe_read(v, block, size)) {
        /* hRoot hObjectParent hObjectNew hClass, pAllocParms (u64), [pRightsRequested (u64)], paramsSize */
        b->kind = CUTAP_PARAMS_ALLOC;
        b->what = v[3];
        b->ptr = (uint64_t)v[4] | (uint64_t)v[5] << 32;
        b->size = v[size == 48 ? 8 : 6];
        if (!b->size && b->ptr)
            b->size = ioc_alloc_params_size(v[3]);   /* libcuda passes 0: the driver sizes it by class */
    } else {
        return 0;
    }
    b->args = w;
    return b->ptr && b->size;
}

/* --- the wrappers -------------------------------------------------------- */

/* The outcome a record of this layer keeps as its result: 0, -errno of a
 * failed system call, or the NV_STATUS the driver put in the block. */
static inline uint64_t failed(int err) { return (uint64_t)-(int64_t)err; }

/* A pre callback skipped the call: what the caller gets (for an ioctl, 0
 * or -1 with the errno a negative result names). */
static int skipped_ret(const struct cutap_external *x)
{
    int64_t r = (int64_t)x->call.c.result;
    if (r < 0) {
        errno = (int)-r;
        return -1;
    }
    return 0;
}

/* What an accepted RM request did to the objects mappings name. */
static void objects_after(unsigned sig, const uint64_t *w)
{
    if (sig == S_ALLOC || sig == S_ALLOC_MEMORY)
        ioc_handle_put((uint32_t)w[2], (uint32_t)w[4], (uint32_t)w[5]);
    else if (sig == S_FREE)
        ioc_handle_drop((uint32_t)w[2], (uint32_t)w[4]);
    else if (sig == S_MAP && (int64_t)w[10] >= 0)
        ioc_map_asked((int)w[10], (uint32_t)w[2], (uint32_t)w[4]);
}

static __attribute__((noinline)) int nv_ioctl(int fd, unsigned long req, void *arg, unsigned kind)
{
    ioctl_fn f = REAL(R_IOCTL, ioctl_fn);
    if (!f) {
        errno = ENOSYS;
        return -1;
    }
    if (!atomic_load_explicit(&ioc_ids_ready, memory_order_acquire))
        return f(fd, req, arg);
    uint64_t w[IOC_MAX_WORDS] = {(uint64_t)(int64_t)fd, dev_word(fd)};
    uint32_t id = ioc_id.other;
    unsigned sig = S_GENERIC, nw = 4;
    int unknown = 1, uvm = 0;   /* unknown: recorded as request and arg, nothing decoded */
    struct xfer xf = {0, 0, 0};
    size_t size = CUTAP_NV_IOC_SIZE(req);
    const void *block = arg;
    if (kind == CUTAP_NVDEV_UVM || kind == CUTAP_NVDEV_UVM_TOOLS) {
        id = ioc_uvm_cmd_id((uint32_t)req, &uvm);
        if (uvm) {
            unknown = 0;
            w[2] = cutap_nv_uvm_of((uint32_t)req)->params_size;
        }
    } else if (CUTAP_NV_IOC_TYPE(req) == CUTAP_NV_IOCTL_MAGIC && (kind == CUTAP_NVDEV_CTL || kind == CUTAP_NVDEV_GPU)) {
        unsigned nr = CUTAP_NV_IOC_NR(req);
        const struct cutap_nv_escape *e = cutap_nv_escape_of(nr);
        /* Larger blocks come wrapped: the request is the inner escape's. */
        if (e && !strcmp(e->name, "IOCTL_XFER_CMD") && size >= sizeof xf && !safe_read(&xf, arg, sizeof xf) &&
            xf.cmd < 256 && cutap_nv_escape_of(xf.cmd)) {
            nr = xf.cmd;
            e = cutap_nv_escape_of(nr);
            size = xf.size;
            block = (const void *)(uintptr_t)xf.ptr;
            w[1] |= CUTAP_NVDEV_XFER;
        }
        id = ioc_escape_id(nr);
        if (e) {
            unknown = 0;
            sig = ioc_escape_sig(nr);
            nw = ioc_sig_words(sig);
            if (sig == S_GENERIC)
                w[2] = size;
        }
    }
    if (unknown)
        w[2] = req, w[3] = (uintptr_t)arg;
    /* not wanted (the layer filtered out), or the descriptor is no longer
     * the device it was marked for: nothing recorded */
    if (id == CUTAP_ID_ALL || !atomic_load_explicit(&cutap_mask[id], memory_order_relaxed) || !still_device(fd))
        return f(fd, req, arg);
    struct cutap_external x;
    int ret, err = errno;
    /* --ioctl-params: the RM call's parameter block, for the recorder */
    struct cutap_ioc_blk blk, *prev_blk = NULL;
    int with_blk = 0;
    if (CUTAP_UNLIKELY(ioc_params_on) && (sig == S_CONTROL || sig == S_ALLOC) && block &&
        (with_blk = blk_prepare(&blk, sig, block, size, w))) {
        prev_blk = cutap_tls.ioc_blk;
        cutap_tls.ioc_blk = &blk;
        errno = err;
    }
    if (cutap_native_enter(&x, id, w, nw, (void *)f)) {
        ret = skipped_ret(&x);
        err = errno;
        cutap_native_exit(&x, x.call.c.result);
        if (with_blk)
            cutap_tls.ioc_blk = prev_blk;
        errno = err;
        return ret;
    }
    errno = err;
    ret = f(fd, req, arg);
    err = errno;
    if (with_blk)
        blk.after = ret == 0;   /* accepted: the kernel copied the block in and out */
    uint64_t outcome = ret == -1 ? failed(err) : 0;
    /* A version mismatch is refused with EINVAL after the driver wrote
     * its own version into the block: read it then too. */
    int accepted = ret == 0 || (ret == -1 && err == EINVAL && sig == S_VERSION);
    if (accepted && !unknown) {
        if (uvm) {
            const struct cutap_nv_uvm *u = cutap_nv_uvm_of((uint32_t)req);
            uint32_t st;
            if (u->params_size && u->status_off + sizeof st <= u->params_size &&
                !read_accepted(&st, (const char *)arg + u->status_off, sizeof st)) {
                outcome = w[3] = st;
                w[1] |= CUTAP_NVDEV_DECODED;
            }
        } else if (sig != S_GENERIC && block) {
            /* Accepted: the kernel copied the block in and out. Bounded:
             * a CARD_INFO array of 35 cards at most. */
            unsigned char buf[2560] __attribute__((aligned(8)));
            size_t n = size < sizeof buf ? size : sizeof buf;
            if (!read_accepted(buf, block, n) && ioc_decode(sig, buf, n, w, &outcome, ret == 0)) {
                w[1] |= CUTAP_NVDEV_DECODED;
                if (ret == 0 && !outcome)
                    objects_after(sig, w);
            }
        }
    }
    cutap_native_exit(&x, outcome);
    if (with_blk)
        cutap_tls.ioc_blk = prev_blk;
    errno = err;
    return ret;
}

/* Declared variadic by glibc, defined here with its one argument: on
 * x86-64 the third integer argument is in %rdx either way, and a
 * non-variadic definition saves no register area on every call. */
/* The front's ioctl, open, close, ... once the core is loaded
 * (struct cutap_core, src/front/io.c). */
static int io_ioctl(int fd, unsigned long req, void *arg)
{
    unsigned kind = kind_of(fd);
    if (CUTAP_UNLIKELY(!kind && CUTAP_NV_REQUEST_LOOKS(req)))
        kind = classify(fd);
    if (CUTAP_LIKELY(!kind)) {
        ioctl_fn f = REAL(R_IOCTL, ioctl_fn);
        if (CUTAP_LIKELY(f != NULL))
            return f(fd, req, arg);
        errno = ENOSYS;
        return -1;
    }
    return nv_ioctl(fd, req, arg, kind);
}

/* An open of a device file. The path is looked at only once the kernel
 * has read it (a bad pointer stays the program's own EFAULT), so the open
 * is recorded when it returned, with no duration of its own. */
static int kind_after_open(int fd, int err, const char *path, unsigned *minor)
{
    /* Succeeded: the kernel copied the whole path (up to its NUL), so it
     * is readable. Failed: perhaps before the kernel read it (EINVAL from
     * the flags, a seccomp filter's errno), so only a path found readable
     * (front/exec.c's probe, which cannot fault) is looked at. */
    (void)err;
    if (fd < 0 && !cutap_readable_str(path))
        return 0;
    return path_kind(path, minor);
}

static int opened(int fd, int err, const char *path, int flags)
{
    unsigned minor;
    int kind = kind_after_open(fd, err, path, &minor);
    if (!kind || cutap_tls.internal || foreign()) {
        errno = err;
        return fd;
    }
    if (fd >= 0)
        mark(fd, (unsigned)kind, minor);
    if (atomic_load_explicit(&ioc_ids_ready, memory_order_acquire) && ioc_id.open != CUTAP_ID_ALL &&
        atomic_load_explicit(&cutap_mask[ioc_id.open], memory_order_relaxed)) {
        uint64_t w[3] = {(uint64_t)kind << 16 | minor, (uint64_t)(unsigned)flags, (uint64_t)(int64_t)fd};
        struct cutap_external x;
        cutap_native_enter(&x, ioc_id.open, w, 3, NULL);   /* after the fact: nothing to skip */
        cutap_native_exit(&x, fd < 0 ? failed(err) : 0);
    }
    errno = err;
    return fd;
}

static inline int need_mode(int flags) { return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE; }

static int io_opened(int fd, int err, const char *path, int flags)
{
    return opened(fd, err, path, flags);
}

static int io_open(int k, int dirfd, const char *path, int flags, mode_t mode)
{
    int fd = cutap_real_open(k, dirfd, path, flags, mode);
    return opened(fd, errno, path, flags);
}

static __attribute__((noinline)) int nv_close(int fd)
{
    close_fn f = REAL(R_CLOSE, close_fn);
    if (!f) {
        errno = ENOSYS;
        return -1;
    }
    /* a vfork child closing its parent's descriptor: not the parent's close */
    if (foreign())
        return f(fd);
    int real = still_device(fd);
    uint64_t w[2] = {(uint64_t)(int64_t)fd, dev_word(fd)};
    /* Cleared first: once closed, the number may be another thread's new
     * descriptor at once. */
    mark(fd, 0, 0);
    if (!real || !atomic_load_explicit(&ioc_ids_ready, memory_order_acquire) || ioc_id.close == CUTAP_ID_ALL ||
        !atomic_load_explicit(&cutap_mask[ioc_id.close], memory_order_relaxed))
        return f(fd);
    struct cutap_external x;
    if (cutap_native_enter(&x, ioc_id.close, w, 2, (void *)f)) {
        int ret = skipped_ret(&x), err = errno;
        cutap_native_exit(&x, x.call.c.result);
        errno = err;
        return ret;
    }
    int ret = f(fd), err = errno;
    cutap_native_exit(&x, ret ? failed(err) : 0);
    errno = err;
    return ret;
}

static int no_fn(void) { errno = ENOSYS; return -1; }
#define CALL_OR_ENOSYS(k, type, ...) (real(k) ? REAL(k, type)(__VA_ARGS__) : no_fn())

static int io_close(int fd)
{
    if (CUTAP_UNLIKELY(kind_of(fd)))
        return nv_close(fd);
    return CALL_OR_ENOSYS(R_CLOSE, close_fn, fd);
}

static int io_close_range(unsigned first, unsigned last, int flags)
{
    int r = CALL_OR_ENOSYS(R_CLOSE_RANGE, close_range_fn, first, last, flags), err = errno;
    int checked = 0;
    if (!r && !(flags & CLOSE_RANGE_CLOEXEC))
        for (unsigned fd = first; fd <= last && fd < NV_FD_MAX; fd++)
            if (atomic_load_explicit(&fd_kind[fd], memory_order_relaxed)) {
                if (!checked++ && foreign())
                    break;   /* a vfork child closing its parent's descriptors */
                mark((int)fd, 0, 0);
            }
    errno = err;
    return r;
}

/* A duplicate is the same device; the descriptor it replaces is not. */
static int duped(int oldfd, int newfd)
{
    if (newfd >= 0 && newfd != oldfd && (kind_of(oldfd) || kind_of(newfd)) && !foreign())
        mark(newfd, kind_of(oldfd), kind_of(oldfd) ? atomic_load(&fd_minor[oldfd]) : 0);
    return newfd;
}
static int io_dup(int k, int fd, int fd2, int flags)
{
    int r = cutap_real_dup(k, fd, fd2, flags), err = errno;
    duped(fd, r);
    errno = err;
    return r;
}

/* fcntl's F_DUPFD and F_DUPFD_CLOEXEC duplicate too. */
static int io_fcntl(int k, int fd, int cmd, long arg)
{
    int r = cutap_real_fcntl(k, fd, cmd, arg);
    if ((cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && r >= 0) {
        int err = errno;
        duped(fd, r);
        errno = err;
    }
    return r;
}

/* Mappings of device files (src/resolve/ioctl_maps.c): each mmap of one
 * named by the object the thread's RM_MAP_MEMORY just before it asked for;
 * an munmap or mremap of any part of one, or a mapping laid over it
 * (MAP_FIXED), recorded with what it maps. */
static __attribute__((noinline)) void *nv_mmap(int k, void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    mmap_fn f = (mmap_fn)real(k);
    if (!f) {
        errno = ENOSYS;
        return MAP_FAILED;
    }
    if (!still_device(fd) || foreign())
        return f(addr, len, prot, flags, fd, off);
    struct ioc_map_info m = {dev_word(fd), 0, 0};
    int err = errno;
    (void)ioc_map_take_asked(fd, &m);
    uint64_t w[9] = {(uint64_t)(int64_t)fd, m.dev, len, (uint64_t)(unsigned)prot, (uint64_t)(unsigned)flags,
                     (uint64_t)off, 0, m.h, m.cls};
    int rec = atomic_load_explicit(&ioc_ids_ready, memory_order_acquire) && ioc_id.mmap != CUTAP_ID_ALL &&
              atomic_load_explicit(&cutap_mask[ioc_id.mmap], memory_order_relaxed);
    struct cutap_external x;
    if (rec && cutap_native_enter(&x, ioc_id.mmap, w, 9, (void *)f)) {
        err = (int)-(int64_t)x.call.c.result;
        cutap_native_exit(&x, x.call.c.result);
        errno = err > 0 ? err : ENOMEM;
        return MAP_FAILED;
    }
    errno = err;
    void *p = f(addr, len, prot, flags, fd, off);
    err = errno;
    if (p != MAP_FAILED)
        ioc_map_put((uintptr_t)p, len, &m);
    if (rec) {
        w[6] = (uintptr_t)p;
        cutap_native_exit(&x, p == MAP_FAILED ? failed(err) : 0);
    }
    errno = err;
    return p;
}

static int recording(uint32_t id)
{
    return atomic_load_explicit(&ioc_ids_ready, memory_order_acquire) && id != CUTAP_ID_ALL &&
           atomic_load_explicit(&cutap_mask[id], memory_order_relaxed);
}

/* A mapping of other memory laid (MAP_FIXED) over a device mapping: how
 * libcuda 580 releases one (measured: anonymous PROT_NONE over it, the
 * address range kept reserved; never munmap). Recorded as mmap_over with
 * what it ends and what stays mapped. The range is taken out before the
 * call (another thread may get the address from the kernel as soon as it
 * returns) and put back if the call fails. */
static __attribute__((noinline)) void *fixed_over(int k, void *addr, size_t len, int prot, int flags, int fd,
                                                  off_t off)
{
    struct ioc_map_info m;
    struct ioc_map_taken t;
    if (cutap_tls.internal || !ioc_map_look((uintptr_t)addr, len, &m, NULL) || !ioc_map_take((uintptr_t)addr, len, &t))
        return cutap_real_mmap(k, addr, len, prot, flags, fd, off);
    uint64_t w[9] = {(uintptr_t)addr, len, (uint64_t)(unsigned)prot, (uint64_t)(unsigned)flags,
                     (uint64_t)(int64_t)fd, t.m.dev, t.m.h, t.m.cls, t.left};
    struct cutap_external x;
    int rec = recording(ioc_id.mmap_over), err = errno;
    void *p;
    if (rec && cutap_native_enter(&x, ioc_id.mmap_over, w, 9, (void *)real(k))) {
        err = (int)-(int64_t)x.call.c.result;
        cutap_native_exit(&x, x.call.c.result);
        err = err > 0 ? err : ENOMEM;
        p = MAP_FAILED;
    } else {
        errno = err;
        p = cutap_real_mmap(k, addr, len, prot, flags, fd, off);
        err = errno;
        if (rec)
            cutap_native_exit(&x, p == MAP_FAILED ? failed(err) : 0);
    }
    if (p == MAP_FAILED)
        ioc_map_untake(&t);   /* what was there */
    errno = err;
    return p;
}

static void *io_mmap(int k, void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    if (CUTAP_UNLIKELY(kind_of(fd)) && !(flags & MAP_ANONYMOUS))
        return nv_mmap(k, addr, len, prot, flags, fd, off);
    if (CUTAP_UNLIKELY(flags & MAP_FIXED) && ioc_maps_count())
        return fixed_over(k, addr, len, prot, flags, fd, off);
    return cutap_real_mmap(k, addr, len, prot, flags, fd, off);
}

/* An munmap of [addr, addr + len) that overlaps device mapping m, taken
 * out of the ranges already: left, the bytes of the device ranges
 * overlapped that stay mapped. */
static __attribute__((noinline)) int nv_munmap(munmap_fn f, void *addr, size_t len, const struct ioc_map_taken *t)
{
    uint64_t w[6] = {(uintptr_t)addr, len, t->m.dev, t->m.h, t->m.cls, t->left};
    struct cutap_external x;
    int rec = recording(ioc_id.munmap), err = errno, ret;
    if (rec && cutap_native_enter(&x, ioc_id.munmap, w, 6, (void *)f)) {
        ret = skipped_ret(&x);
        err = errno;
        cutap_native_exit(&x, x.call.c.result);
    } else {
        errno = err;
        ret = f(addr, len);
        err = errno;
        if (rec)
            cutap_native_exit(&x, ret ? failed(err) : 0);
    }
    if (ret)
        ioc_map_untake(t);   /* still mapped */
    errno = err;
    return ret;
}

static int io_munmap(void *addr, size_t len)
{
    struct ioc_map_info m;
    struct ioc_map_taken t;
    munmap_fn f = REAL(R_MUNMAP, munmap_fn);
    if (CUTAP_UNLIKELY(!f)) {
        errno = ENOSYS;
        return -1;
    }
    /* (an address off a page or no length: the kernel's EINVAL, nothing
     * unmapped, nothing taken out) */
    if (CUTAP_UNLIKELY(ioc_maps_count()) && !cutap_tls.internal && len && !((uintptr_t)addr & 4095) &&
        ioc_map_look((uintptr_t)addr, len, &m, NULL) && ioc_map_take((uintptr_t)addr, len, &t))
        return nv_munmap(f, addr, len, &t);
    return f(addr, len);
}

/* An mremap of a device mapping: the range moves or changes size with what
 * it maps (MREMAP_DONTUNMAP: the old range stays too); taken out before the
 * call, put back if it fails. */
static __attribute__((noinline)) void *nv_mremap(void *old, size_t old_len, size_t len, int flags, void *at,
                                                 const struct ioc_map_info *m, const struct ioc_map_taken *t)
{
    uint64_t w[9] = {(uintptr_t)old, old_len, len, (uint64_t)(unsigned)flags,
                     flags & MREMAP_FIXED ? (uintptr_t)at : 0, m->dev, m->h, m->cls, 0};
    struct cutap_external x;
    int rec = recording(ioc_id.mremap), err = errno;
    void *p;
    if (rec && cutap_native_enter(&x, ioc_id.mremap, w, 9, (void *)cutap_real_mremap)) {
        err = (int)-(int64_t)x.call.c.result;
        cutap_native_exit(&x, x.call.c.result);
        err = err > 0 ? err : ENOMEM;
        p = MAP_FAILED;
    } else {
        errno = err;
        p = cutap_real_mremap(old, old_len, len, flags, at);
        err = errno;
        if (p != MAP_FAILED)
            ioc_map_put((uintptr_t)p, len, m);   /* (over whatever was at a fixed new address) */
        if (rec) {
            w[8] = (uintptr_t)p;
            cutap_native_exit(&x, p == MAP_FAILED ? failed(err) : 0);
        }
    }
    if (p == MAP_FAILED && t)
        ioc_map_untake(t);
    errno = err;
    return p;
}

static void *io_mremap(void *old, size_t old_len, size_t len, int flags, void *at)
{
    struct ioc_map_info m;
    if (CUTAP_LIKELY(!ioc_maps_count()) || cutap_tls.internal)
        return cutap_real_mremap(old, old_len, len, flags, at);
    if (ioc_map_look((uintptr_t)old, old_len, &m, NULL)) {
        struct ioc_map_taken t;
        if ((flags & MREMAP_DONTUNMAP) || !old_len)
            return nv_mremap(old, old_len, len, flags, at, &m, NULL);   /* (the old range stays) */
        if (ioc_map_take((uintptr_t)old, old_len, &t))
            return nv_mremap(old, old_len, len, flags, at, &t.m, &t);
    }
    void *p = cutap_real_mremap(old, old_len, len, flags, at);
    int err = errno;
    if (p != MAP_FAILED && (flags & MREMAP_FIXED))
        ioc_map_gone((uintptr_t)p, len);   /* other memory moved over a device range ends it */
    errno = err;
    return p;
}

/* --- start-up ------------------------------------------------------------ */

void cutap_ioctl_init(void)
{
    const char *p = getenv("CUTAP_IOCTL_PARAMS");
    ioc_params_on = p && *p && strcmp(p, "0");
    pid_after_fork();
    pthread_atfork(NULL, NULL, pid_after_fork);
    for (int k = 0; k < R_COUNT; k++)
        (void)real(k);
    ioc_ids_init();
}

/* The ioctl layer's side of the front's libc entries (src/front/io.c). */
void cutap_ioctl_core(struct cutap_core *c)
{
    c->ioctl = io_ioctl;
    c->open = io_open;
    c->opened = io_opened;
    c->close = io_close;
    c->close_range = io_close_range;
    c->dup = io_dup;
    c->mmap = io_mmap;
    c->munmap = io_munmap;
    c->mremap = io_mremap;
    c->fcntl = io_fcntl;
}
