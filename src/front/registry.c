/* The process registry of the trace directory (src/common/cutap_registry.h):
 * cutap's own channel for what a traced process has to say (its warnings,
 * its losses) and for the exec notes from which `cutap trace` tells which
 * processes were never traced. Nothing here writes to the program's file
 * descriptors, and nothing here can fault: the file's blocks are all
 * allocated before it is given its name and mapped. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cutap_format.h"
#include "cutap_registry.h"
#include "front_internal.h"

static struct cutap_reg_header *_Atomic reg;   /* the mapping, or NULL */
static struct cutap_reg_slot *_Atomic mine;    /* this image's slot */
static _Atomic pid_t mine_pid;                 /* the process that claimed it */
static _Atomic int attaching;

/* Every block of [off, off + len) allocated, so that stores through a
 * mapping of it can never fault. Past a file-size limit this fails with
 * EFBIG like a full disk, and the SIGXFSZ the kernel raises for it is
 * taken back (src/front/fd.c): the program is never killed for cutap's
 * file. */
static int back_range(int fd, long off, long len)
{
    int rc = posix_fallocate(fd, off, len);
    if (rc != EOPNOTSUPP && rc != EINVAL && rc != ENOSYS)
        return rc;
    /* No fallocate on this filesystem: write the zeros, so that every page
     * is backed before it is mapped (an unbacked page of a shared mapping
     * is a SIGBUS when the filesystem is full). */
    static const char zero[16384];
    while (len > 0) {
        ssize_t w = pwrite(fd, zero, len < (off_t)sizeof zero ? (size_t)len : sizeof zero, off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : ENOSPC;
        off += w;
        len -= w;
    }
    return 0;
}

CUTAP_FRONT int cutap_back_range(int fd, long off, long len)
{
    struct cutap_xfsz g;
    cutap_xfsz_hold(&g);
    int rc = back_range(fd, off, len);
    cutap_xfsz_release(&g);
    return rc;
}

/* A registry made whole under a private name, then linked to its name:
 * another process sees the finished file or none. */
static int reg_create(const char *dir, const char *path)
{
    char tmp[PATH_MAX + 64];
    snprintf(tmp, sizeof tmp, "%s/%s.%d", dir, CUTAP_REG_NAME, (int)getpid());
    uint32_t nslots = cutap_reg_slots_now();
    if (!nslots) {
        errno = EFBIG;
        return -1;
    }
    int fd = cutap_fd_open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
    if (fd < 0)
        return -1;
    struct cutap_reg_header h = {.version = CUTAP_REG_VERSION, .slot_size = CUTAP_REG_SLOT,
                                 .nslots = nslots, .next = 1};
    memcpy(h.magic, CUTAP_REG_MAGIC, 8);
    int rc = cutap_back_range(fd, 0, (off_t)nslots * CUTAP_REG_SLOT);
    if (!rc && pwrite(fd, &h, sizeof h, 0) != (ssize_t)sizeof h)   /* within the blocks just allocated */
        rc = errno ? errno : ENOSPC;
    if (!rc && link(tmp, path) && errno != EEXIST)
        rc = errno;
    unlink(tmp);
    close(fd);
    errno = rc;
    return rc ? -1 : 0;
}

static struct cutap_reg_slot *claim(uint32_t kind, const char *path, uint32_t flags)
{
    struct cutap_reg_header *h = atomic_load(&reg);
    if (!h)
        return NULL;
    uint32_t i = __atomic_fetch_add(&h->next, 1, __ATOMIC_RELAXED);
    struct cutap_reg_slot *s = NULL;
    if (i < h->nslots) {
        s = (struct cutap_reg_slot *)((char *)h + (size_t)i * CUTAP_REG_SLOT);
    } else {
        /* All used once: a slot freed since (an exec note whose program
         * arrived), emptied for its new owner. */
        for (uint32_t j = 1; j < h->nslots && !s; j++) {
            struct cutap_reg_slot *f = (struct cutap_reg_slot *)((char *)h + (size_t)j * CUTAP_REG_SLOT);
            uint32_t expect = CUTAP_REG_FREE;
            if (__atomic_load_n(&f->kind, __ATOMIC_RELAXED) == CUTAP_REG_FREE &&
                __atomic_compare_exchange_n(&f->kind, &expect, 0, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
                memset((char *)f + sizeof f->kind, 0, sizeof *f - sizeof f->kind);
                s = f;
            }
        }
        if (!s) {
            __atomic_fetch_add(&h->overflow, 1, __ATOMIC_RELAXED);
            return NULL;
        }
    }
    s->pid = (int32_t)getpid();
    s->ppid = (int32_t)getppid();
    s->mono_ns = cutap_now_ns();
    if (path)
        snprintf(s->path, sizeof s->path, "%s", path);
    else {
        ssize_t n = readlink("/proc/self/exe", s->path, sizeof s->path - 1);
        s->path[n > 0 ? n : 0] = 0;
    }
    __atomic_or_fetch(&s->flags, flags, __ATOMIC_RELAXED);
    __atomic_store_n(&s->kind, kind, __ATOMIC_RELEASE);
    return s;
}

/* This process's IMAGE slot, claimed when it first has something to say
 * (a warning, its trace file, a stop, calls lost without a file): a
 * process that only passes through (a shell, a compiler driver run under
 * cutap) takes no slot. A forked child claims its own. Under a lock: two
 * threads saying something at once claim one slot. */
static pthread_mutex_t me_lock = PTHREAD_MUTEX_INITIALIZER;
CUTAP_FORK_SAFE(me_lock)

static struct cutap_reg_slot *me(void)
{
    if (!atomic_load(&reg))
        return NULL;
    pid_t p = getpid();
    if (atomic_load_explicit(&mine_pid, memory_order_acquire) == p)
        return atomic_load(&mine);
    pthread_mutex_lock(&me_lock);
    if (atomic_load(&mine_pid) != p) {
        atomic_store(&mine, claim(CUTAP_REG_IMAGE, NULL, 0));
        atomic_store_explicit(&mine_pid, p, memory_order_release);
    }
    pthread_mutex_unlock(&me_lock);
    return atomic_load(&mine);
}

/* This image has started with cutap: the exec note its predecessor wrote
 * (the latest of this pid) has served (`cutap trace` lists the notes left
 * as programs not traced) and is freed for reuse; without one (a
 * posix_spawn child that got here before its parent wrote its pid), an
 * IMAGE slot says that this pid arrived. So a run of many short programs
 * (a build, a shell script) does not fill the registry. */
static void arrive(void)
{
    struct cutap_reg_header *h = atomic_load(&reg);
    uint32_t used = __atomic_load_n(&h->next, __ATOMIC_ACQUIRE);
    if (used > h->nslots)
        used = h->nslots;
    int32_t p = (int32_t)getpid();
    for (uint32_t i = used; i-- > 1;) {
        struct cutap_reg_slot *s = (struct cutap_reg_slot *)((char *)h + (size_t)i * CUTAP_REG_SLOT);
        if (__atomic_load_n(&s->kind, __ATOMIC_ACQUIRE) != CUTAP_REG_EXEC || s->pid != p)
            continue;
        if (__atomic_load_n(&s->flags, __ATOMIC_ACQUIRE) & CUTAP_REGF_EXEC_FAILED)
            break;   /* an older note of this pid: not ours */
        __atomic_store_n(&s->kind, CUTAP_REG_FREE, __ATOMIC_RELEASE);
        return;
    }
    me();
}

/* arrive() for an image that cannot map the registry (an address-space
 * limit: RLIMIT_AS): its exec note is freed all the same, through the
 * file, or `cutap trace` would list as never traced a process that
 * started with cutap (and, when its trace file says it lost calls, list
 * it twice). Safe without the mapping: once the exec has succeeded, only
 * the new image writes its note (the old one is gone; a posix_spawn
 * parent writes pid and flags, never kind), and a claimer takes a slot
 * back only after it is FREE. The same search as arrive(). */
static void arrive_unmapped(int fd, uint64_t size)
{
    struct cutap_reg_slot s;
    const size_t head = offsetof(struct cutap_reg_slot, path);   /* kind .. mono_ns */
    struct cutap_reg_header h;
    if (pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h || memcmp(h.magic, CUTAP_REG_MAGIC, 8) ||
        h.version != CUTAP_REG_VERSION || h.slot_size != CUTAP_REG_SLOT || (uint64_t)h.nslots * CUTAP_REG_SLOT != size)
        return;
    uint32_t used = h.next < h.nslots ? h.next : h.nslots;
    int32_t p = (int32_t)getpid();
    for (uint32_t i = used; i-- > 1;) {
        off_t at = (off_t)i * CUTAP_REG_SLOT;
        if (pread(fd, &s, head, at) != (ssize_t)head || s.kind != CUTAP_REG_EXEC || s.pid != p)
            continue;
        if (s.flags & CUTAP_REGF_EXEC_FAILED)
            return;   /* an older note of this pid: not ours */
        uint32_t k = CUTAP_REG_FREE;
        (void)!pwrite(fd, &k, sizeof k, at + (off_t)offsetof(struct cutap_reg_slot, kind));
        return;
    }
}

/* The trace directory the environment names (CUTAP_TRACE, else
 * CUTAP_COUNT), made absolute as the recorder names it; -1 when none (or
 * a name too long). */
CUTAP_FRONT int cutap_reg_dir_from_env(char *dir, size_t size)
{
    const char *rd = getenv("CUTAP_TRACE");
    if (!rd || !*rd)
        rd = getenv("CUTAP_COUNT");
    if (!rd || !*rd)
        return -1;
    char cwd[PATH_MAX];
    int n;
    if (rd[0] == '/')
        n = snprintf(dir, size, "%s", rd);
    else if (getcwd(cwd, sizeof cwd))
        n = snprintf(dir, size, "%s/%s", cwd, rd);
    else
        return -1;
    return n > 0 && (size_t)n < size ? 0 : -1;
}

CUTAP_FRONT int cutap_reg_attach(const char *dir, int create)
{
    if (atomic_load(&reg))
        return 0;
    int expect = 0;
    if (!atomic_compare_exchange_strong(&attaching, &expect, 1))
        return -1;
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, CUTAP_REG_NAME);
    int fd = cutap_fd_open(path, O_RDWR | O_NOFOLLOW, 0);
    if (fd < 0 && errno == ENOENT && create) {
        mkdir(dir, 0700);
        if (!reg_create(dir, path))
            fd = cutap_fd_open(path, O_RDWR | O_NOFOLLOW, 0);
    }
    struct stat st;
    void *m = MAP_FAILED;
    uint64_t size = 0;
    /* Only a whole registry of ours: the size it was made with (all of
     * its blocks allocated by its maker), owned by this user. */
    if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
        st.st_size >= (off_t)CUTAP_REG_MIN_SLOTS * CUTAP_REG_SLOT && (uint64_t)st.st_size <= CUTAP_REG_SIZE &&
        st.st_size % CUTAP_REG_SLOT == 0) {
        size = (uint64_t)st.st_size;
        m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        /* once per image (attach is tried again at each warning), and
         * not in its forked children: only an exec brings a note */
        static _Atomic int unmapped_arrived;
        if (m == MAP_FAILED && !atomic_exchange(&unmapped_arrived, 1))
            arrive_unmapped(fd, size);
    }
    if (fd >= 0)
        close(fd);
    if (m != MAP_FAILED) {
        struct cutap_reg_header *h = m;
        if (memcmp(h->magic, CUTAP_REG_MAGIC, 8) || h->version != CUTAP_REG_VERSION ||
            h->slot_size != CUTAP_REG_SLOT || (uint64_t)h->nslots * CUTAP_REG_SLOT != size) {
            munmap(m, size);
            m = MAP_FAILED;
        }
    }
    if (m != MAP_FAILED) {
        atomic_store(&reg, (struct cutap_reg_header *)m);
        arrive();
    }
    atomic_store(&attaching, 0);
    return m == MAP_FAILED ? -1 : 0;
}

CUTAP_FRONT int cutap_reg_warn(const char *line, size_t n)
{
    struct cutap_reg_slot *s = me();
    if (!s)
        return -1;
    uint32_t at = __atomic_fetch_add(&s->warn_len, (uint32_t)n, __ATOMIC_RELAXED);
    if (at < sizeof s->warn) {
        size_t k = n < sizeof s->warn - at ? n : sizeof s->warn - at;
        memcpy(s->warn + at, line, k);
    }
    return 0;
}

CUTAP_FRONT void cutap_reg_file(int err)
{
    struct cutap_reg_slot *s = me();
    if (!s)
        return;
    if (err)
        s->err = err;
    __atomic_or_fetch(&s->flags, err ? CUTAP_REGF_NOFILE : CUTAP_REGF_FILE, __ATOMIC_RELEASE);
}

CUTAP_FRONT void cutap_reg_stop(int reason, int err)
{
    struct cutap_reg_slot *s = me();
    if (!s)
        return;
    s->err = err;
    s->stop_reason = (uint32_t)reason;
    __atomic_or_fetch(&s->flags, CUTAP_REGF_STOPPED, __ATOMIC_RELEASE);
}

CUTAP_FRONT void cutap_reg_exit(uint64_t lost_without_file)
{
    /* A process that had nothing to say exits without a slot. */
    if (!lost_without_file && atomic_load(&mine_pid) != getpid())
        return;
    struct cutap_reg_slot *s = me();
    if (!s)
        return;
    s->lost_calls = lost_without_file;
    __atomic_or_fetch(&s->flags, CUTAP_REGF_EXITED, __ATOMIC_RELEASE);
}

/* --- exec notes ------------------------------------------------------ */

CUTAP_FRONT int cutap_reg_attached(void)
{
    return atomic_load(&reg) != NULL;
}

static int env_has(char *const envp[], const char *name, const char *part)
{
    size_t n = strlen(name);
    for (char *const *e = envp; e && *e; e++)
        if (!strncmp(*e, name, n) && (*e)[n] == '=')
            return (*e)[n + 1] && (!part || strstr(*e + n + 1, part));
    return 0;
}

/* Reads path and envp, the program's memory: exec.c calls it only once
 * it has found every byte of them readable (issue #24). */
CUTAP_FRONT void *cutap_reg_exec_note(const char *path, char *const envp[])
{
    if (!atomic_load(&reg))
        return NULL;
    uint32_t f = 0;
    if (env_has(envp, "LD_PRELOAD", "libcutap"))
        f |= CUTAP_REGF_PRELOAD;
    if (env_has(envp, "CUTAP_TRACE", NULL) || env_has(envp, "CUTAP_COUNT", NULL))
        f |= CUTAP_REGF_MODE;
    return claim(CUTAP_REG_EXEC, path, f);
}

CUTAP_FRONT void cutap_reg_exec_failed(void *note)
{
    struct cutap_reg_slot *s = note;
    if (s)
        __atomic_or_fetch(&s->flags, CUTAP_REGF_EXEC_FAILED, __ATOMIC_RELEASE);
}

CUTAP_FRONT void cutap_reg_exec_spawned(void *note, int child)
{
    struct cutap_reg_slot *s = note;
    if (!s)
        return;
    s->pid = (int32_t)child;
    s->ppid = (int32_t)getpid();
    __atomic_or_fetch(&s->flags, CUTAP_REGF_SPAWN, __ATOMIC_RELEASE);
}
