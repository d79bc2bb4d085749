/* cutap's own descriptors (issue #24). A program may close descriptors it
 * does not know (closefrom(3), a loop up to the limit, os.closerange,
 * daemons), close 0-2, and expects its next open to return the lowest free
 * number. So every descriptor cutap keeps
 *   - lives above the numbers programs use (never 0-2, never what the
 *     program's next open would return), close-on-exec;
 *   - is checked to still name its file (device and inode) before every
 *     use: a number the program closed and got back for a file of its own
 *     is never written, mapped, extended or closed by cutap.
 * And no write of cutap's to its files raises SIGXFSZ in the program. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "front_internal.h"

/* The lowest number cutap takes: the top 64 of the first 1,024 (or of the
 * soft limit when it is lower), where the lowest-free rule of open puts a
 * program's files only when it has hundreds open. Not the top of a large
 * limit: a descriptor near 1,048,576 would make the kernel grow the
 * process's descriptor table to that size (megabytes, and a slower fork). */
static int floor_fd(void)
{
    struct rlimit rl;
    long top = 1024;
    if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY && (long)rl.rlim_cur < top)
        top = (long)rl.rlim_cur;
    long f = top >= 256 ? top - 64 : top / 2;
    return f < 3 ? 3 : (int)f;
}

CUTAP_FRONT int cutap_fd_hide(int fd)
{
    if (fd < 0)
        return -1;
    int lo = floor_fd(), nfd = fcntl(fd, F_DUPFD_CLOEXEC, lo);
    if (nfd < 0 && lo > 3)
        nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);   /* the top is full: anywhere but 0-2 */
    int e = errno;
    if (nfd < 0 && fd > 2)
        return fd;   /* no other number free: it keeps its own (never 0-2) */
    close(fd);
    errno = e;
    return nfd;
}

CUTAP_FRONT int cutap_fd_open(const char *path, int flags, mode_t mode)
{
    return cutap_fd_hide(open(path, flags | O_CLOEXEC, mode));
}

CUTAP_FRONT int cutap_fd_remember(struct cutap_fd *f)
{
    struct stat st;
    if (f->fd < 0 || fstat(f->fd, &st))
        return -1;
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    return 0;
}

static int names(int fd, const struct cutap_fd *f)
{
    struct stat st;
    return fd >= 0 && !fstat(fd, &st) && st.st_dev == f->dev && st.st_ino == f->ino;
}

CUTAP_FRONT int cutap_fd_is_ours(const struct cutap_fd *f)
{
    return names(f->fd, f);
}

/* Checked before it is duplicated, never after only: closing any
 * descriptor of a file drops every POSIX record lock the process holds on
 * it, so a duplicate of a file of the program's must never be made and
 * closed (the program's lock file on cutap's old number). The duplicate
 * is checked again (another thread may have replaced the number between
 * the two): one that names the program's file then is left open, a
 * descriptor lost rather than the program's locks. */
CUTAP_FRONT int cutap_fd_dup_checked(const struct cutap_fd *f)
{
    if (f->fd < 0 || !names(f->fd, f))
        return -1;
    int d = fcntl(f->fd, F_DUPFD_CLOEXEC, floor_fd());
    if (d < 0)
        d = fcntl(f->fd, F_DUPFD_CLOEXEC, 3);
    if (d < 0)
        return -1;
    return names(d, f) ? d : -1;
}

CUTAP_FRONT void cutap_fd_close(struct cutap_fd *f)
{
    if (cutap_fd_is_ours(f))
        close(f->fd);
    f->fd = -1;
}

/* --- file-size limits -------------------------------------------------- */

CUTAP_FRONT void cutap_xfsz_hold(struct cutap_xfsz *g)
{
    sigset_t s, p;
    sigemptyset(&s);
    sigaddset(&s, SIGXFSZ);
    g->held = !pthread_sigmask(SIG_BLOCK, &s, &g->old);
    g->pending = !sigpending(&p) && sigismember(&p, SIGXFSZ);
}

CUTAP_FRONT void cutap_xfsz_release(struct cutap_xfsz *g)
{
    if (!g->held)
        return;
    sigset_t s, p;
    sigemptyset(&s);
    sigaddset(&s, SIGXFSZ);
    /* Raised by our own write (the kernel sends it to the writing thread):
     * taken back before the mask is restored. One the program had pending
     * already stays (a second one is not queued). */
    if (!g->pending && !sigpending(&p) && sigismember(&p, SIGXFSZ)) {
        struct timespec zero = {0, 0};
        int e = errno;
        while (sigtimedwait(&s, NULL, &zero) < 0 && errno == EINTR) {
        }
        errno = e;
    }
    pthread_sigmask(SIG_SETMASK, &g->old, NULL);
}

/* Whether a file-size limit is set now (one system call). */
static int fsize_limited(void)
{
    struct rlimit rl;
    return getrlimit(RLIMIT_FSIZE, &rl) || rl.rlim_cur != RLIM_INFINITY;
}

CUTAP_FRONT int cutap_write_all(int fd, const void *buf, size_t n)
{
    struct cutap_xfsz g = {.held = 0};
    int limited = fsize_limited(), rc = 0;
    if (limited)
        cutap_xfsz_hold(&g);
    const char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            rc = -1;
            if (!w)
                errno = ENOSPC;
            break;
        }
        p += w;
        n -= (size_t)w;
    }
    int e = errno;
    if (limited)
        cutap_xfsz_release(&g);
    errno = e;
    return rc;
}
