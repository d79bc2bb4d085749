/* What a fresh page of a trace file costs on this host, side by side in one
 * run: the recorder writes 64-byte records into a shared mapping of a file
 * whose blocks were allocated (fallocate) but never written, so every 4 KiB
 * page of records is a new page-cache page the kernel must find, zero and
 * map. This measures, on a file in DIR (default /tmp, where cutap trace
 * puts its directory), per page and per 64-byte record:
 *   touch      one store per page, each a page fault on the calling thread
 *   populate   madvise(MADV_POPULATE_WRITE) per 256 KiB chunk (what the
 *              recorder does when it takes a chunk), then the stores
 *   prefaulted the stores alone into pages populated beforehand (the cost
 *              left if population happened off the calling thread)
 * and prints the kernel's release (MADV_POPULATE_WRITE needs Linux 5.14).
 *   usage: bench/pages [DIR [MiB]]                          (no GPU needed) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#define CHUNK (256u << 10)
#define PAGE 4096u

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* A fresh fallocated file of size bytes in dir, mapped shared; NULL on error. */
static char *fresh_map(const char *dir, size_t size, int *fd)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/cutap-pages.XXXXXX", dir);
    *fd = mkstemp(path);
    if (*fd < 0) {
        perror(path);
        return NULL;
    }
    unlink(path);
    int rc = posix_fallocate(*fd, 0, (off_t)size);
    if (rc && ftruncate(*fd, (off_t)size)) {   /* no fallocate here (tmpfs has it): a sparse file */
        perror("ftruncate");
        return NULL;
    }
    char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void done(char *p, size_t size, int fd)
{
    munmap(p, size);
    close(fd);
}

/* Stores as the recorder makes them: 64 bytes per record, every record. */
static void write_records(char *p, size_t size)
{
    for (size_t off = 0; off < size; off += 64)
        memset(p + off, 1, 64);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    size_t size = (size_t)(argc > 2 ? atoi(argv[2]) : 256) << 20;
    if (size < CHUNK) {
        fprintf(stderr, "usage: %s [DIR [MiB >= 1]]\n", argv[0]);
        return 2;
    }
    struct utsname u;
    uname(&u);
    double pages = (double)size / PAGE, recs = (double)size / 64;
    printf("fresh trace pages in %s, %zu MiB, kernel %s\n", dir, size >> 20, u.release);
    printf("%-44s %10s %12s\n", "how the pages are made", "ns/page", "ns/record");
    for (int round = 0; round < 2; round++) {   /* the second round is the one printed */
        int fd;
        char *p;
        double t0, t1;
        double touch = 0, popul = 0, pre = 0, popwhole = 0;
        int pop_ok = 1;
        /* touch: page faults while writing */
        if (!(p = fresh_map(dir, size, &fd)))
            return 1;
        t0 = now_ns();
        write_records(p, size);
        touch = now_ns() - t0;
        done(p, size, fd);
        /* populate per chunk, then write (the recorder's way) */
        if (!(p = fresh_map(dir, size, &fd)))
            return 1;
        t0 = now_ns();
        for (size_t off = 0; off < size; off += CHUNK) {
            if (madvise(p + off, CHUNK, MADV_POPULATE_WRITE))
                pop_ok = 0;
            write_records(p + off, CHUNK);
        }
        popul = now_ns() - t0;
        done(p, size, fd);
        /* populated beforehand: the population and the writes apart */
        if (!(p = fresh_map(dir, size, &fd)))
            return 1;
        t0 = now_ns();
        for (size_t off = 0; off < size; off += CHUNK)
            madvise(p + off, CHUNK, MADV_POPULATE_WRITE);
        t1 = now_ns();
        popwhole = t1 - t0;
        write_records(p, size);
        pre = now_ns() - t1;
        done(p, size, fd);
        if (!round)
            continue;
        printf("%-44s %10.0f %12.2f\n", "touch (a page fault per page)", touch / pages, touch / recs);
        printf("%-44s %10.0f %12.2f%s\n", "populate per 256 KiB chunk, then write", popul / pages, popul / recs,
               pop_ok ? "" : "  (MADV_POPULATE_WRITE refused: faults)");
        printf("%-44s %10.0f %12.2f\n", "  of which population alone", popwhole / pages, popwhole / recs);
        printf("%-44s %10.0f %12.2f\n", "write into populated pages (off-thread case)", pre / pages, pre / recs);
    }
    return 0;
}
