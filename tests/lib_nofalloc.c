/* A filesystem without fallocate, for the recorder's full-disk tests: every
 * fallocate entry point fails with EOPNOTSUPP (preloaded beside libcutap). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>

int posix_fallocate(int fd, off_t off, off_t len)
{
    (void)fd, (void)off, (void)len;
    return EOPNOTSUPP;
}
int posix_fallocate64(int fd, off_t off, off_t len) __attribute__((alias("posix_fallocate")));
int fallocate(int fd, int mode, off_t off, off_t len)
{
    (void)fd, (void)mode, (void)off, (void)len;
    errno = EOPNOTSUPP;
    return -1;
}
int fallocate64(int fd, int mode, off_t off, off_t len) __attribute__((alias("fallocate")));
