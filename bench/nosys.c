/* For bench/ioctl.c: ioctl, close, mmap and munmap that make no system
 * call, preloaded below libcutap.so, so that what libcutap's wrappers add
 * is timed without a system call's noise around it. */
#define _GNU_SOURCE
#include <stddef.h>
#include <sys/types.h>

static char page[4096] __attribute__((aligned(4096)));

__attribute__((visibility("default"))) int ioctl(int fd, unsigned long req, ...)
{
    (void)fd, (void)req;
    return 0;
}
__attribute__((visibility("default"))) int close(int fd) { return fd < 0 ? -1 : 0; }
__attribute__((visibility("default"))) void *mmap(void *a, size_t n, int p, int f, int fd, off_t o)
{
    (void)a, (void)n, (void)p, (void)f, (void)fd, (void)o;
    return page;
}
__attribute__((visibility("default"))) int munmap(void *a, size_t n)
{
    (void)a, (void)n;
    return 0;
}
