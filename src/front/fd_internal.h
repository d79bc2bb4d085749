/* cutap's own descriptors and writes, kept out of the program's way
 * (src/front/fd.c). */
#ifndef CUTAP_FD_INTERNAL_H
#define CUTAP_FD_INTERNAL_H

#include <signal.h>
#include <sys/types.h>

/* A file cutap holds open: the number, and what it must still name. */
struct cutap_fd {
    int fd;
    dev_t dev;
    ino_t ino;
};

/* Opens path (O_CLOEXEC added) on a descriptor above the numbers the
 * program uses; -1 with errno on failure. */
int cutap_fd_open(const char *path, int flags, mode_t mode);
/* Moves fd (cutap's, just made) above the program's numbers, close-on-exec;
 * the old number is closed. -1 (fd closed) on failure. */
int cutap_fd_hide(int fd);
/* Records what f->fd names (fstat); -1 on failure. */
int cutap_fd_remember(struct cutap_fd *f);
/* 1 when f->fd still names the file remembered. */
int cutap_fd_is_ours(const struct cutap_fd *f);
/* A private duplicate of f->fd, checked to name the remembered file (the
 * duplicate cannot be closed or reused by another thread of the program
 * between the check and its use); -1 when f->fd is no longer ours. The
 * caller closes it. */
int cutap_fd_dup_checked(const struct cutap_fd *f);
/* Closes f->fd if it still names the remembered file (never a number the
 * program got back); f->fd becomes -1. */
void cutap_fd_close(struct cutap_fd *f);

/* A file-size limit (RLIMIT_FSIZE, ulimit -f) makes a write or fallocate
 * past it fail with EFBIG and raise SIGXFSZ, whose default action kills
 * the program. Around cutap's own extensions of its files the signal is
 * held in the calling thread and, when that operation raised it, taken
 * back: the program never sees it. */
struct cutap_xfsz {
    sigset_t old;
    int held;      /* 1: the mask was changed */
    int pending;   /* SIGXFSZ was pending before (the program's own) */
};
void cutap_xfsz_hold(struct cutap_xfsz *g);
void cutap_xfsz_release(struct cutap_xfsz *g);
/* write(2) of all of buf, SIGXFSZ held when a file-size limit is set;
 * 0, or -1 with errno. */
int cutap_write_all(int fd, const void *buf, size_t n);

#endif
