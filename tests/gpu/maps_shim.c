/* How libcuda maps and unmaps memory (issue #32, mappings), seen without
 * cutap: an LD_PRELOAD shim that logs each mmap, mmap64, munmap and mremap
 * made by code in an object whose file name starts with "libcuda" (found
 * by its return address), with its arguments, result and, for a mapping
 * of a file, the file's name; and, for a MAP_FIXED mapping or an unmapping,
 * whether it lands on a device-file mapping this shim saw made.
 *
 *   cc -O2 -shared -fPIC -o libmaps_shim.so tests/gpu/maps_shim.c -ldl
 *   MAPS_SHIM_OUT=FILE LD_PRELOAD=./libmaps_shim.so PROGRAM
 *
 * A diagnostic for the device machine (tests/gpu/issue32.sh), never run in
 * CI; not thread-careful beyond a lock around the log and the range list. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int out = -1;
static __thread int inside;
static struct {
    uintptr_t a, b;
} dev[4096];
static int ndev;

static void *next(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

static int from_libcuda(const void *ra)
{
    Dl_info di;
    if (!dladdr(ra, &di) || !di.dli_fname)
        return 0;
    const char *b = strrchr(di.dli_fname, '/');
    return !strncmp(b ? b + 1 : di.dli_fname, "libcuda", 7);
}

/* Whether [a, a + len) overlaps a device mapping seen; drop: forget it. */
static int on_device(uintptr_t a, size_t len, int drop)
{
    int hit = 0;
    for (int i = 0; i < ndev; i++)
        if (dev[i].a < a + len && a < dev[i].b) {
            hit = 1;
            if (drop)
                dev[i] = dev[--ndev], i--;
        }
    return hit;
}

static void say(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (out < 0) {
        const char *p = getenv("MAPS_SHIM_OUT");
        out = p ? open(p, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : 2;
    }
    if (n > 0)
        (void)!write(out, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

static void file_of(int fd, char *name, size_t size)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
    ssize_t n = fd >= 0 ? readlink(p, name, size - 1) : -1;
    name[n > 0 ? n : 0] = 0;
}

static void *do_mmap(const char *what, void *(*f)(void *, size_t, int, int, int, off_t), void *ra, void *addr,
                     size_t len, int prot, int flags, int fd, off_t off)
{
    void *r = f(addr, len, prot, flags, fd, off);
    if (inside)
        return r;
    inside = 1;
    char name[256];
    file_of(fd, name, sizeof name);
    int devfile = !strncmp(name, "/dev/nvidia", 11);
    pthread_mutex_lock(&lock);
    int over = (flags & MAP_FIXED) && on_device((uintptr_t)addr, len, 1);
    if (devfile && r != MAP_FAILED && ndev < 4096)
        dev[ndev].a = (uintptr_t)r, dev[ndev].b = (uintptr_t)r + len, ndev++;
    if (from_libcuda(ra) || devfile || over)
        say("%s %p %zu prot=%d flags=0x%x fd=%d %s -> %p%s%s\n", what, addr, len, prot, flags, fd, name, r,
            from_libcuda(ra) ? " [libcuda]" : "", over ? " OVER-DEVICE" : "");
    pthread_mutex_unlock(&lock);
    inside = 0;
    return r;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    static void *(*f)(void *, size_t, int, int, int, off_t);
    if (!f)
        f = next("mmap");
    return do_mmap("mmap", f, __builtin_return_address(0), addr, len, prot, flags, fd, off);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    static void *(*f)(void *, size_t, int, int, int, off_t);
    if (!f)
        f = next("mmap64");
    return do_mmap("mmap64", f, __builtin_return_address(0), addr, len, prot, flags, fd, off);
}

int munmap(void *addr, size_t len)
{
    static int (*f)(void *, size_t);
    if (!f)
        f = next("munmap");
    void *ra = __builtin_return_address(0);
    int r = f(addr, len);
    if (inside)
        return r;
    inside = 1;
    pthread_mutex_lock(&lock);
    int hit = on_device((uintptr_t)addr, len, 1);
    if (from_libcuda(ra) || hit)
        say("munmap %p %zu -> %d%s%s\n", addr, len, r, from_libcuda(ra) ? " [libcuda]" : "", hit ? " DEVICE" : "");
    pthread_mutex_unlock(&lock);
    inside = 0;
    return r;
}

void *mremap(void *old, size_t old_len, size_t len, int flags, ...)
{
    static void *(*f)(void *, size_t, size_t, int, ...);
    if (!f)
        f = next("mremap");
    va_list ap;
    va_start(ap, flags);
    void *at = va_arg(ap, void *);
    va_end(ap);
    void *ra = __builtin_return_address(0);
    void *r = f(old, old_len, len, flags, at);
    if (inside)
        return r;
    inside = 1;
    pthread_mutex_lock(&lock);
    int hit = on_device((uintptr_t)old, old_len, 0);
    if (from_libcuda(ra) || hit)
        say("mremap %p %zu -> %zu flags=0x%x at=%p -> %p%s%s\n", old, old_len, len, flags, at, r,
            from_libcuda(ra) ? " [libcuda]" : "", hit ? " DEVICE" : "");
    pthread_mutex_unlock(&lock);
    inside = 0;
    return r;
}
