/* The libc functions of the ioctl layer, as the front exports them
 * (src/resolve/ioctl.c has what they do once the core is loaded).
 *
 * libcuda.so.1 (driver 580) imports ioctl, open, open64, mmap, mmap64,
 * close, munmap and mremap from glibc through its PLT (it releases device
 * mappings with MAP_FIXED mappings over them, never munmap: measured), so
 * the preloaded library sees them by exporting those names; every other
 * caller in the process reaches these entries too. While the core is not
 * loaded, each is one load and a call of glibc's function, except two that
 * may be the first sign of CUDA: an open of a path under the device
 * directory named nvidia* (looked at only after the kernel read it: a bad
 * pointer stays the program's own EFAULT), and a request that could be an
 * NVIDIA one (on a descriptor inherited across exec). Those load the core,
 * which marks and records them. */
#define _GNU_SOURCE
#undef _FORTIFY_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "front_internal.h"
#include "nv_ioctl.h"

#define EXPORT __attribute__((visibility("default")))

static const char *const real_names[CUTAP_IO_COUNT] = {
    "ioctl", "open", "open64", "openat", "openat64", "__open_2", "__open64_2", "__openat_2", "__openat64_2",
    "close", "close_range", "dup", "dup2", "dup3", "mmap", "mmap64", "munmap", "fcntl", "fcntl64", "mremap"};
static void *_Atomic real_fns[CUTAP_IO_COUNT];

/* glibc's function (the next definition after libcutap's), looked up at
 * its first call. */
CUTAP_FRONT void *cutap_front_real(int k)
{
    void *f = __atomic_load_n(&real_fns[k], __ATOMIC_ACQUIRE);
    if (CUTAP_LIKELY(f != NULL))
        return f;
    if ((f = cutap_front_next(real_names[k], NULL)))
        __atomic_store_n(&real_fns[k], f, __ATOMIC_RELEASE);
    return f;
}

static int no_fn(void)
{
    errno = ENOSYS;
    return -1;
}
#define REAL(k, type, ...) (cutap_front_real(k) ? ((type)cutap_front_real(k))(__VA_ARGS__) : no_fn())

/* The real calls by index, for the front and the core alike. */
CUTAP_FRONT int cutap_real_open(int k, int dirfd, const char *path, int flags, mode_t mode)
{
    switch (k) {
    case CUTAP_IO_OPEN:
    case CUTAP_IO_OPEN64: return REAL(k, open_fn, path, flags, mode);
    case CUTAP_IO_OPENAT:
    case CUTAP_IO_OPENAT64: return REAL(k, openat_fn, dirfd, path, flags, mode);
    case CUTAP_IO_OPEN_2:
    case CUTAP_IO_OPEN64_2: return REAL(k, open2_fn, path, flags);
    default: return REAL(k, openat2_fn, dirfd, path, flags);
    }
}

CUTAP_FRONT int cutap_real_dup(int k, int fd, int fd2, int flags)
{
    switch (k) {
    case CUTAP_IO_DUP: return REAL(k, dup_fn, fd);
    case CUTAP_IO_DUP2: return REAL(k, dup2_fn, fd, fd2);
    default: return REAL(k, dup3_fn, fd, fd2, flags);
    }
}

CUTAP_FRONT void *cutap_real_mmap(int k, void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    mmap_fn f = (mmap_fn)cutap_front_real(k);
    if (!f) {
        errno = ENOSYS;
        return MAP_FAILED;
    }
    return f(addr, len, prot, flags, fd, off);
}

typedef void *(*mremap_fn)(void *, size_t, size_t, int, ...);
CUTAP_FRONT void *cutap_real_mremap(void *old, size_t old_len, size_t len, int flags, void *at)
{
    mremap_fn f = (mremap_fn)cutap_front_real(CUTAP_IO_MREMAP);
    if (!f) {
        errno = ENOSYS;
        return MAP_FAILED;
    }
    return f(old, old_len, len, flags, at);
}

CUTAP_FRONT int cutap_real_fcntl(int k, int fd, int cmd, long arg)
{
    return REAL(k, fcntl_fn, fd, cmd, arg);
}

/* --- the exports ------------------------------------------------------------ */

static int device_path(const char *path);

/* While the core is not loaded: a request that could be an NVIDIA one, on
 * a descriptor whose /proc/self/fd link names an NVIDIA device file (one
 * inherited across exec)? FIBMAP on a file, a framebuffer's 'F' requests
 * never load the core (they cost a readlink each meanwhile). */
static __attribute__((noinline)) int device_request(int fd)
{
    char link[64], target[512];
    int err = errno;
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    int dev = n > 0 && (target[n] = 0, device_path(target));
    errno = err;
    return dev;
}

EXPORT int cutap_f_ioctl(int fd, unsigned long req, void *arg) __asm__("ioctl");
int cutap_f_ioctl(int fd, unsigned long req, void *arg)
{
    const struct cutap_core *c = cutap_core_if_loaded();
    if (CUTAP_UNLIKELY(!c) && CUTAP_NV_REQUEST_LOOKS(req) && device_request(fd))
        c = cutap_core();   /* a device descriptor the core never saw */
    if (c)
        return c->ioctl(fd, req, arg);
    return REAL(CUTAP_IO_IOCTL, ioctl_fn, fd, req, arg);
}

/* The device directory: /dev, or CUTAP_NV_DEVDIR (tests, containers that
 * mount the nodes elsewhere), read once at start-up (src/front/front.c):
 * never a getenv beside the program's own setenv. */
static char devdir[256] = "/dev";
static size_t devdir_len = 4;
void cutap_io_init(void)
{
    const char *d = getenv("CUTAP_NV_DEVDIR");
    size_t n = d ? strlen(d) : 0;
    while (n > 1 && d[n - 1] == '/')
        n--;
    if (n && n < sizeof devdir) {
        memcpy(devdir, d, n);
        devdir[n] = 0;
        devdir_len = n;
    }
    /* glibc's functions now: a first close or dup2 may come from a vfork
     * child or a signal handler, where a lookup must not run */
    for (int k = 0; k < CUTAP_IO_COUNT; k++)
        (void)cutap_front_real(k);
}

/* The path may name an NVIDIA device file (the core decides which): the
 * device directory, then "nvidia". Looked at only when it can be read:
 * the open succeeded (the kernel read the whole path), or the path is
 * found readable (an open may fail before the kernel reads its path:
 * EINVAL from the flags, a seccomp filter's errno). */
static int device_path(const char *path)
{
    return path && !strncmp(path, devdir, devdir_len) && path[devdir_len] == '/' &&
           !strncmp(path + devdir_len + 1, "nvidia", 6);
}

static int maybe_device(int fd, const char *path)
{
    return (fd >= 0 || cutap_readable_str(path)) && device_path(path);
}

static int do_open(int k, int dirfd, const char *path, int flags, mode_t mode)
{
    const struct cutap_core *c = cutap_core_if_loaded();
    if (c)
        return c->open(k, dirfd, path, flags, mode);
    int fd = cutap_real_open(k, dirfd, path, flags, mode), err = errno;
    if (CUTAP_UNLIKELY(maybe_device(fd, path)) && (c = cutap_core()))
        return c->opened(fd, err, path, flags);
    errno = err;
    return fd;
}

static inline int need_mode(int flags) { return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE; }
#define GET_MODE(flags)                 \
    mode_t mode = 0;                    \
    if (need_mode(flags)) {             \
        va_list ap;                     \
        va_start(ap, flags);            \
        mode = (mode_t)va_arg(ap, int); \
        va_end(ap);                     \
    }

EXPORT int cutap_f_open(const char *path, int flags, ...) __asm__("open");
int cutap_f_open(const char *path, int flags, ...)
{
    GET_MODE(flags);
    return do_open(CUTAP_IO_OPEN, AT_FDCWD, path, flags, mode);
}
EXPORT int cutap_f_open64(const char *path, int flags, ...) __asm__("open64");
int cutap_f_open64(const char *path, int flags, ...)
{
    GET_MODE(flags);
    return do_open(CUTAP_IO_OPEN64, AT_FDCWD, path, flags, mode);
}
EXPORT int cutap_f_openat(int dirfd, const char *path, int flags, ...) __asm__("openat");
int cutap_f_openat(int dirfd, const char *path, int flags, ...)
{
    GET_MODE(flags);
    return do_open(CUTAP_IO_OPENAT, dirfd, path, flags, mode);
}
EXPORT int cutap_f_openat64(int dirfd, const char *path, int flags, ...) __asm__("openat64");
int cutap_f_openat64(int dirfd, const char *path, int flags, ...)
{
    GET_MODE(flags);
    return do_open(CUTAP_IO_OPENAT64, dirfd, path, flags, mode);
}
/* The _FORTIFY_SOURCE entries (no mode argument). */
EXPORT int cutap_f_open_2(const char *path, int flags) __asm__("__open_2");
int cutap_f_open_2(const char *path, int flags) { return do_open(CUTAP_IO_OPEN_2, AT_FDCWD, path, flags, 0); }
EXPORT int cutap_f_open64_2(const char *path, int flags) __asm__("__open64_2");
int cutap_f_open64_2(const char *path, int flags) { return do_open(CUTAP_IO_OPEN64_2, AT_FDCWD, path, flags, 0); }
EXPORT int cutap_f_openat_2(int dirfd, const char *path, int flags) __asm__("__openat_2");
int cutap_f_openat_2(int dirfd, const char *path, int flags) { return do_open(CUTAP_IO_OPENAT_2, dirfd, path, flags, 0); }
EXPORT int cutap_f_openat64_2(int dirfd, const char *path, int flags) __asm__("__openat64_2");
int cutap_f_openat64_2(int dirfd, const char *path, int flags)
{
    return do_open(CUTAP_IO_OPENAT64_2, dirfd, path, flags, 0);
}

EXPORT int cutap_f_close(int fd) __asm__("close");
int cutap_f_close(int fd)
{
    const struct cutap_core *c = cutap_core_if_loaded();
    return c ? c->close(fd) : REAL(CUTAP_IO_CLOSE, close_fn, fd);
}

EXPORT int cutap_f_close_range(unsigned first, unsigned last, int flags) __asm__("close_range");
int cutap_f_close_range(unsigned first, unsigned last, int flags)
{
    const struct cutap_core *c = cutap_core_if_loaded();
    return c ? c->close_range(first, last, flags) : REAL(CUTAP_IO_CLOSE_RANGE, close_range_fn, first, last, flags);
}

static int do_dup(int k, int fd, int fd2, int flags)
{
    const struct cutap_core *c = cutap_core_if_loaded();
    return c ? c->dup(k, fd, fd2, flags) : cutap_real_dup(k, fd, fd2, flags);
}
EXPORT int cutap_f_dup(int fd) __asm__("dup");
int cutap_f_dup(int fd) { return do_dup(CUTAP_IO_DUP, fd, 0, 0); }
EXPORT int cutap_f_dup2(int fd, int fd2) __asm__("dup2");
int cutap_f_dup2(int fd, int fd2) { return do_dup(CUTAP_IO_DUP2, fd, fd2, 0); }
EXPORT int cutap_f_dup3(int fd, int fd2, int flags) __asm__("dup3");
int cutap_f_dup3(int fd, int fd2, int flags) { return do_dup(CUTAP_IO_DUP3, fd, fd2, flags); }

/* fcntl's F_DUPFD and F_DUPFD_CLOEXEC duplicate too. Declared variadic by
 * glibc, defined with its one argument (in %rdx either way on x86-64). */
static int do_fcntl(int k, int fd, int cmd, long arg)
{
    const struct cutap_core *c = cutap_core_if_loaded();
    return c ? c->fcntl(k, fd, cmd, arg) : cutap_real_fcntl(k, fd, cmd, arg);
}
EXPORT int cutap_f_fcntl(int fd, int cmd, long arg) __asm__("fcntl");
int cutap_f_fcntl(int fd, int cmd, long arg) { return do_fcntl(CUTAP_IO_FCNTL, fd, cmd, arg); }
EXPORT int cutap_f_fcntl64(int fd, int cmd, long arg) __asm__("fcntl64");
int cutap_f_fcntl64(int fd, int cmd, long arg) { return do_fcntl(CUTAP_IO_FCNTL64, fd, cmd, arg); }

static void *do_mmap(int k, void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    const struct cutap_core *c = cutap_core_if_loaded();
    return c ? c->mmap(k, addr, len, prot, flags, fd, off) : cutap_real_mmap(k, addr, len, prot, flags, fd, off);
}
EXPORT void *cutap_f_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off) __asm__("mmap");
void *cutap_f_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    return do_mmap(CUTAP_IO_MMAP, addr, len, prot, flags, fd, off);
}
EXPORT void *cutap_f_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off) __asm__("mmap64");
void *cutap_f_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    return do_mmap(CUTAP_IO_MMAP64, addr, len, prot, flags, fd, off);
}

EXPORT int cutap_f_munmap(void *addr, size_t len) __asm__("munmap");
int cutap_f_munmap(void *addr, size_t len)
{
    const struct cutap_core *c = cutap_core_if_loaded();
    return c ? c->munmap(addr, len) : REAL(CUTAP_IO_MUNMAP, munmap_fn, addr, len);
}

/* mremap: glibc's is variadic (the new address, with MREMAP_FIXED); the
 * fifth argument is read as a plain one (%r8 on x86-64, whatever it holds
 * when the caller passed none) and handed on: the kernel looks at it only
 * with MREMAP_FIXED. Device mappings only interest the core. */
EXPORT void *cutap_f_mremap(void *old, size_t old_len, size_t len, int flags, void *at) __asm__("mremap");
void *cutap_f_mremap(void *old, size_t old_len, size_t len, int flags, void *at)
{
    const struct cutap_core *c = cutap_core_if_loaded();
    if (c && c->size > offsetof(struct cutap_core, mremap) && c->mremap)
        return c->mremap(old, old_len, len, flags, at);
    return cutap_real_mremap(old, old_len, len, flags, at);
}
