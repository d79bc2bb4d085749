/* Write errors on demand, preloaded into a cutap command (the export
 * cases): CUTAP_TEST_WRITE_FAIL=N:E makes the Nth write(2) of 64 KiB or
 * more (the output's buffered writes, not messages) fail with errno E;
 * CUTAP_TEST_FDATASYNC_FAIL=N:E the Nth fdatasync; CUTAP_TEST_WRITE_SHORT=1
 * makes every such write write only its first half (a short write, as a
 * pipe or a signal may make). Counted over all threads (the parallel
 * formatters' workers write). With
 * CUTAP_TEST_WRITE_LOG=FILE, the bytes of those large writes that went
 * through and the fsyncs of directories are written there at exit
 * ("bytes N", "dirsyncs N"). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static unsigned long long big_bytes;   /* large writes' bytes that went through */
static unsigned long dir_syncs;        /* fsyncs of directories */

int fsync(int fd)
{
    static int (*real)(int);
    if (!real)
        real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    struct stat st;
    if (!fstat(fd, &st) && S_ISDIR(st.st_mode))
        __atomic_add_fetch(&dir_syncs, 1, __ATOMIC_RELAXED);
    return real(fd);
}

static long nth(const char *var, int *err)
{
    const char *v = getenv(var);
    long n = 0;
    if (!v || sscanf(v, "%ld:%d", &n, err) != 2)
        return 0;
    return n;
}

ssize_t write(int fd, const void *buf, size_t len)
{
    static ssize_t (*real)(int, const void *, size_t);
    static long seen;
    if (!real)
        real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    int e = 0;
    long n = len >= 65536 ? nth("CUTAP_TEST_WRITE_FAIL", &e) : 0;
    if (n && __atomic_add_fetch(&seen, 1, __ATOMIC_RELAXED) == n) {
        errno = e;
        return -1;
    }
    const char *sh = len >= 65536 ? getenv("CUTAP_TEST_WRITE_SHORT") : NULL;
    ssize_t k = real(fd, buf, sh && *sh == '1' ? len / 2 : len);
    if (k > 0 && len >= 65536)
        __atomic_add_fetch(&big_bytes, (unsigned long long)k, __ATOMIC_RELAXED);
    return k;
}

__attribute__((destructor)) static void log_bytes(void)
{
    const char *path = getenv("CUTAP_TEST_WRITE_LOG");
    FILE *f = path && *path ? fopen(path, "a") : NULL;
    if (f) {
        fprintf(f, "bytes %llu\ndirsyncs %lu\n", __atomic_load_n(&big_bytes, __ATOMIC_RELAXED),
                __atomic_load_n(&dir_syncs, __ATOMIC_RELAXED));
        fclose(f);
    }
}

int fdatasync(int fd)
{
    static int (*real)(int);
    static long seen;
    if (!real)
        real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    int e = 0;
    long n = nth("CUTAP_TEST_FDATASYNC_FAIL", &e);
    if (n && __atomic_add_fetch(&seen, 1, __ATOMIC_RELAXED) == n) {
        errno = e;
        return -1;
    }
    return real(fd);
}
