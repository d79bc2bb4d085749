/* `cutap trace` and `cutap stat`: the trace directory's checks, its process
 * registry (src/common/cutap_registry.h), and the summary printed at the
 * end: processes, calls, bytes, losses, processes never traced and why,
 * and the warnings the traced processes had (kept out of their own
 * stderr). */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cutap_format.h"
#include "cutap_registry.h"

/* --- the -o directory -------------------------------------------------- */

/* Writable by users other than us: by all, or by a group that is not our
 * own primary group (umask 002 with user private groups gives 0775 to
 * directories nobody else can write). */
static int others_write(const struct stat *st)
{
    return (st->st_mode & S_IWOTH) || ((st->st_mode & S_IWGRP) && st->st_gid != getegid());
}

/* A directory in which another user could replace what we write: one they
 * own, or one anybody may write into without the sticky bit. */
static const char *unsafe_parent(const char *dir)
{
    char buf[PATH_MAX], real[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", dir);
    const char *parent = dirname(buf);
    struct stat st;
    if (!realpath(parent, real) || stat(real, &st))
        return NULL;   /* mkdir will say */
    if (st.st_uid != geteuid() && st.st_uid != 0)
        return "its parent directory belongs to another user";
    if (others_write(&st) && !(st.st_mode & S_ISVTX))
        return "its parent directory is writable by other users";
    return NULL;
}

/* A symbolic link on the way to dir (one of its leading components) that
 * another user owns (neither we nor root): that user decides where dir
 * really is, and could point it at any directory of ours. */
static const char *foreign_link(const char *dir)
{
    static char why[PATH_MAX + 64];
    char prefix[PATH_MAX];
    size_t n = strlen(dir);
    if (n >= sizeof prefix)
        return NULL;   /* mkdir and lstat will say */
    for (size_t i = 1; i < n; i++) {
        if (dir[i] != '/' || dir[i - 1] == '/')
            continue;
        memcpy(prefix, dir, i);
        prefix[i] = 0;
        struct stat st;
        if (!lstat(prefix, &st) && S_ISLNK(st.st_mode) && st.st_uid != geteuid() && st.st_uid != 0) {
            snprintf(why, sizeof why, "it is reached through %s, a symbolic link of another user", prefix);
            return why;
        }
    }
    return NULL;
}

/* What makes dir (once it exists) unfit to hold or give a trace: a
 * symbolic link itself, not a directory, not ours, writable by others,
 * or not open to us for mode (access(2)); NULL when it is fit. */
static const char *unfit_dir(const char *dir, int mode)
{
    struct stat st;
    if (lstat(dir, &st))
        return strerror(errno);
    if (S_ISLNK(st.st_mode))
        return "it is a symbolic link";
    if (!S_ISDIR(st.st_mode))
        return "it is not a directory";
    if (st.st_uid != geteuid())
        return "it belongs to another user";
    if (others_write(&st))
        return "it is writable by other users";
    if (access(dir, mode))
        return strerror(errno);
    return NULL;
}

const char *procs_dir_untrusted(const char *dir, int mode)
{
    const char *why = unsafe_parent(dir);
    if (!why)
        why = foreign_link(dir);
    return why ? why : unfit_dir(dir, mode);
}

int procs_check_dir(const char *dir, int create)
{
    const char *why = unsafe_parent(dir);
    if (!why)
        why = foreign_link(dir);
    if (why) {
        fprintf(stderr, "cutap: refusing -o %s: %s\n", dir, why);
        return -1;
    }
    if (create && mkdir(dir, 0700) && errno != EEXIST) {
        fprintf(stderr, "cutap: cannot create %s: %s\n", dir, strerror(errno));
        return -1;
    }
    why = unfit_dir(dir, W_OK | X_OK);
    if (why) {
        fprintf(stderr, "cutap: refusing -o %s: %s\n", dir, why);
        return -1;
    }
    return 0;
}

/* --- the registry ------------------------------------------------------ */

static struct cutap_reg_header *reg;

/* Made whole (every block allocated) before the command starts, so that
 * the processes can report into it when the disk fills later. */
int procs_create(const char *dir)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, CUTAP_REG_NAME);
    /* one left by an earlier run that traced nothing: replaced (the
     * directory is ours, checked, and holds no trace) */
    if (unlink(path) && errno != ENOENT)
        fprintf(stderr, "cutap: warning: cannot remove %s: %s\n", path, strerror(errno));
    /* smaller under a file-size limit below its full size (ulimit -f) */
    uint32_t nslots = cutap_reg_slots_now();
    off_t size = (off_t)nslots * CUTAP_REG_SLOT;
    int fd = nslots ? open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
    int rc = !nslots ? EFBIG : fd < 0 ? errno : 0;
    if (!rc) {
        rc = posix_fallocate(fd, 0, size);
        if (rc == EOPNOTSUPP || rc == EINVAL) {   /* no fallocate: zeros written */
            static const char zero[CUTAP_REG_SLOT];
            rc = 0;
            for (off_t o = 0; o < size && !rc; o += sizeof zero)
                if (pwrite(fd, zero, sizeof zero, o) != (ssize_t)sizeof zero)
                    rc = errno ? errno : ENOSPC;
        }
    }
    void *m = MAP_FAILED;
    if (!rc && (m = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED)
        rc = errno;
    if (fd >= 0)
        close(fd);
    if (rc) {
        if (fd >= 0)
            unlink(path);
        fprintf(stderr, "cutap: warning: cannot make %s: %s; losses and warnings of the traced processes "
                        "will not be reported\n", path, strerror(rc));
        return -1;
    }
    struct cutap_reg_header *h = m;
    h->version = CUTAP_REG_VERSION;
    h->slot_size = CUTAP_REG_SLOT;
    h->nslots = nslots;
    h->next = 1;
    memcpy(h->magic, CUTAP_REG_MAGIC, 8);
    reg = h;
    return 0;
}

static int env_has(const char *name, const char *part)
{
    const char *v = getenv(name);
    return v && *v && (!part || strstr(v, part));
}

/* In the forked child, before it execs the command: the exec note the
 * library writes for the processes it runs in. */
void procs_note_exec(const char *path)
{
    if (!reg)
        return;
    uint32_t i = __atomic_fetch_add(&reg->next, 1, __ATOMIC_RELAXED);
    if (i >= reg->nslots)
        return;
    struct cutap_reg_slot *s = (struct cutap_reg_slot *)((char *)reg + (size_t)i * CUTAP_REG_SLOT);
    s->pid = (int32_t)getpid();
    s->ppid = (int32_t)getppid();
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);   /* the library's clock (cutap_now_ns) */
    s->mono_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    snprintf(s->path, sizeof s->path, "%s", path);
    s->flags = (env_has("LD_PRELOAD", "libcutap") ? CUTAP_REGF_PRELOAD : 0) |
               (env_has("CUTAP_TRACE", NULL) || env_has("CUTAP_COUNT", NULL) ? CUTAP_REGF_MODE : 0);
    __atomic_store_n(&s->kind, CUTAP_REG_EXEC, __ATOMIC_RELEASE);
}


/* --- the summary ------------------------------------------------------- */

static const char *num(uint64_t v, char *buf)   /* 12,345 */
{
    char t[32];
    int n = snprintf(t, sizeof t, "%llu", (unsigned long long)v), o = 0;
    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = t[i];
    }
    buf[o] = 0;
    return buf;
}

static const char *bytes_str(uint64_t b, char *buf)
{
    if (b < 1024)
        sprintf(buf, "%llu B", (unsigned long long)b);
    else if (b < 1024 * 1024)
        sprintf(buf, "%.1f KiB", (double)b / 1024);
    else if (b < 1024ull * 1024 * 1024)
        sprintf(buf, "%.1f MiB", (double)b / 1048576);
    else
        sprintf(buf, "%.2f GiB", (double)b / 1073741824);
    return buf;
}

static const char *reason_str(uint32_t r)
{
    switch (r) {
    case CUTAP_STOP_SPACE: return "the trace file could not be extended";
    case CUTAP_STOP_MAP: return "the trace file could not be mapped";
    case CUTAP_STOP_LIMIT: return "the trace file reached cutap's size limit";
    case CUTAP_STOP_FILE: return "the program closed cutap's descriptor of the trace file and it could not be opened again";
    default: return "recording failed";
    }
}

/* Calls in one trace file (records, or counted calls), read with pread:
 * a damaged file gives a smaller count, never a fault. */
static uint64_t file_calls(int fd, const struct cutap_file_header *h, off_t size)
{
    uint32_t cs = h->chunk_size;
    if (cs < 4096 || cs > (64u << 20) || (cs & (cs - 1)))
        return 0;
    unsigned char *c = malloc(cs);
    uint64_t calls = 0;
    if (!c)
        return 0;
    for (off_t off = CUTAP_HEADER_SIZE; off + (off_t)cs <= size; off += cs) {
        if (pread(fd, c, cs, off) != (ssize_t)cs)
            break;
        const struct cutap_chunk_header *ch = (const void *)c;
        if (ch->magic != CUTAP_CHUNK_MAGIC)
            continue;
        if (ch->type == CUTAP_CHUNK_RECORDS) {
            for (uint32_t s = 1; s < cs / CUTAP_SLOT;) {
                const unsigned char *r = c + (size_t)s * CUTAP_SLOT;
                uint16_t n;
                memcpy(&n, r + 2, 2);
                if ((r[0] != CUTAP_REC_CALL && r[0] != CUTAP_REC_META) || !n)
                    break;
                calls += r[0] == CUTAP_REC_CALL;
                s += n;
            }
        } else if (ch->type == CUTAP_CHUNK_COUNTERS && h->version >= 2) {
            for (size_t o = CUTAP_SLOT; o + sizeof(struct cutap_counter) <= cs; o += sizeof(struct cutap_counter))
                calls += ((const struct cutap_counter *)(c + o))->calls;
        } else if (ch->type == CUTAP_CHUNK_COUNTER_ENTRIES) {
            for (size_t o = CUTAP_SLOT; o + sizeof(struct cutap_counter_entry) <= cs;
                 o += sizeof(struct cutap_counter_entry)) {
                const struct cutap_counter_entry *e = (const void *)(c + o);
                if (e->magic == CUTAP_ENTRY_MAGIC)
                    calls += e->c.calls;
            }
        }
    }
    free(c);
    return calls;
}

static const struct cutap_reg_slot *slot_at(const struct cutap_reg_header *h, uint32_t i)
{
    return (const struct cutap_reg_slot *)((const char *)h + (size_t)i * CUTAP_REG_SLOT);
}

/* Why the program at path (the note's, NUL-terminated), exec'd as the
 * note says, did not load cutap. */
static const char *why_not(const struct cutap_reg_slot *e, const char *path, int stat_mode)
{
    if (!(e->flags & CUTAP_REGF_PRELOAD))
        return "its environment has no LD_PRELOAD of libcutap";
    if (!(e->flags & CUTAP_REGF_MODE))
        return stat_mode ? "its environment has no CUTAP_COUNT" : "its environment has no CUTAP_TRACE";
    struct stat st;
    if (stat(path, &st))
        return "it could not be inspected";
    if (st.st_mode & S_ISUID)
        return "setuid";
    if (st.st_mode & S_ISGID)
        return "setgid";
    if (getxattr(path, "security.capability", NULL, 0) > 0)
        return "it has file capabilities";
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return "it could not be inspected";
    Elf64_Ehdr eh;
    const char *why = NULL;
    if (pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
        eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr)) {
        int interp = 0;
        for (unsigned i = 0; i < eh.e_phnum; i++) {
            Elf64_Phdr ph;
            if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + i * sizeof ph)) != (ssize_t)sizeof ph)
                break;
            interp |= ph.p_type == PT_INTERP;
        }
        if (!interp)
            why = "statically linked";
    }
    close(fd);
    return why ? why : "not known (it may have ended before cutap started in it)";
}

/* The trace files of this host's processes: pid and when each image made
 * its file (CLOCK_MONOTONIC, as the registry's slots are stamped). */
struct file_seen {
    int32_t pid;
    uint64_t start_mono_ns;
};

/* Whether the image that an exec note (slot i) announced started with
 * cutap. Its pid's slots in the order they were claimed (their times: a
 * slot reused once the registry was full lies anywhere in the file): the
 * first one after the note, an exec that failed aside, is its image's
 * (a spawn: any image of the child's pid). A trace file of that pid made
 * after the note and before the pid's next slot says the same: an image
 * that could not map the registry (an address-space limit) has no slot,
 * but its file (and what it lost) is listed already. */
static int note_served(const struct cutap_reg_header *h, uint32_t used, uint32_t i, const struct file_seen *files,
                       size_t nfiles)
{
    const struct cutap_reg_slot *s = slot_at(h, i);
    int spawn = (s->flags & CUTAP_REGF_SPAWN) != 0;
    const struct cutap_reg_slot *next = NULL;
    for (uint32_t j = 1; j < used; j++) {
        const struct cutap_reg_slot *t = slot_at(h, j);
        uint32_t k = __atomic_load_n(&t->kind, __ATOMIC_ACQUIRE);
        if (j == i || t->pid != s->pid || !k || (k == CUTAP_REG_EXEC && (t->flags & CUTAP_REGF_EXEC_FAILED)))
            continue;
        if (spawn) {
            if (k == CUTAP_REG_IMAGE)
                return 1;
            continue;
        }
        int after = t->mono_ns > s->mono_ns || (t->mono_ns == s->mono_ns && j > i);
        if (after && (!next || t->mono_ns < next->mono_ns || (t->mono_ns == next->mono_ns && t < next)))
            next = t;
    }
    if (next && __atomic_load_n(&next->kind, __ATOMIC_ACQUIRE) == CUTAP_REG_IMAGE)
        return 1;
    for (size_t f = 0; f < nfiles; f++)
        if (files[f].pid == s->pid && files[f].start_mono_ns >= s->mono_ns &&
            (spawn || !next || files[f].start_mono_ns < next->mono_ns))
            return 1;
    return 0;
}

/* Prints the summary on stderr. trace: also the "N processes traced" line.
 * Returns the number of processes with losses or never traced. */
int procs_summary(const char *dir, int trace)
{
    char a[32], b[32], c[32];
    uint64_t calls = 0, bytes = 0;
    int nfiles = 0, troubles = 0;
    char report[8192] = "";
    size_t rlen = 0;
#define ADD(...) do { int k_ = snprintf(report + rlen, sizeof report - rlen, __VA_ARGS__); \
        if (k_ > 0) rlen = rlen + (size_t)k_ < sizeof report ? rlen + (size_t)k_ : sizeof report - 1; } while (0)
    struct file_seen *files = NULL;
    size_t nseen = 0, cap = 0;
    char host[sizeof ((struct cutap_file_header *)0)->host] = "";
    gethostname(host, sizeof host - 1);
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        if (!tr_is_trace_name(de->d_name))
            continue;
        char p[PATH_MAX + 256];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        int fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        struct cutap_file_header h;
        if (fd < 0)
            continue;
        nfiles++;
        if (!fstat(fd, &st))
            bytes += (uint64_t)st.st_size;
        if (!fstat(fd, &st) && pread(fd, &h, sizeof h, 0) == (ssize_t)sizeof h &&
            !memcmp(h.magic, CUTAP_FILE_MAGIC, 8)) {
            uint64_t n = file_calls(fd, &h, st.st_size);
            calls += n;
            h.exe[sizeof h.exe - 1] = 0;
            h.host[sizeof h.host - 1] = 0;
            if (!strcmp(h.host, host)) {   /* pids and clocks are per host */
                if (nseen == cap) {
                    cap = cap ? 2 * cap : 64;
                    files = realloc(files, cap * sizeof *files);
                    if (!files) {
                        fprintf(stderr, "cutap: out of memory\n");
                        exit(1);
                    }
                }
                files[nseen++] = (struct file_seen){h.pid, h.start_mono_ns};
            }
            if (h.version >= 3 && (h.flags & CUTAP_FILE_STOPPED)) {
                troubles++;
                ADD("cutap: process %d (%s): recording stopped after %s calls: %s: %s; %s calls not recorded\n",
                    h.pid, h.exe, num(n, a), reason_str(h.stop_reason), strerror(h.stop_errno),
                    num(h.lost_calls, b));
            } else if (h.version >= 3 && h.lost_calls) {
                troubles++;
                ADD("cutap: process %d (%s): %s calls not recorded\n", h.pid, h.exe, num(h.lost_calls, b));
            }
        }
        close(fd);
    }
    if (d)
        closedir(d);
    int not_traced = 0;
    char nt[4096];
    size_t ntlen = 0;
    const struct cutap_reg_header *h = reg;
    if (h) {
        uint32_t used = __atomic_load_n(&h->next, __ATOMIC_ACQUIRE);
        if (used > h->nslots)
            used = h->nslots;
        for (uint32_t i = 1; i < used; i++) {
            const struct cutap_reg_slot *s = slot_at(h, i);
            uint32_t kind = __atomic_load_n(&s->kind, __ATOMIC_ACQUIRE);
            char path[sizeof s->path + 1];
            memcpy(path, s->path, sizeof s->path);
            path[sizeof s->path] = 0;
            if (kind == CUTAP_REG_IMAGE && (s->flags & CUTAP_REGF_NOFILE)) {
                troubles++;
                ADD("cutap: process %d (%s): no trace file: %s", s->pid, path, strerror(s->err));
                if (s->lost_calls)
                    ADD("; %s calls not recorded", num(s->lost_calls, a));
                ADD("\n");
            } else if (kind == CUTAP_REG_IMAGE && (s->flags & CUTAP_REGF_STOPPED) && s->stop_reason == CUTAP_STOP_FILE) {
                /* its file is gone: the registry says what its header would */
                troubles++;
                ADD("cutap: process %d (%s): recording stopped: %s: %s; %s calls not recorded\n", s->pid, path,
                    reason_str(s->stop_reason), strerror(s->err), num(s->lost_calls, a));
            }
            if (kind != CUTAP_REG_EXEC || (s->flags & CUTAP_REGF_EXEC_FAILED) ||
                note_served(h, used, i, files, nseen))
                continue;
            not_traced++;
            int k = snprintf(nt + ntlen, sizeof nt - ntlen, "%s%s (pid %d): %s", not_traced > 1 ? "; " : "", path,
                             s->pid, why_not(s, path, !trace));
            if (k > 0)
                ntlen = ntlen + (size_t)k < sizeof nt ? ntlen + (size_t)k : sizeof nt - 1;
        }
        if (h->overflow)
            ADD("cutap: %u processes not listed (the registry is full)\n", h->overflow);
    }
    if (trace && nfiles) {
        fprintf(stderr, "cutap: %d process%s traced into %s (cutap report %s): %s calls, %s\n", nfiles,
                nfiles == 1 ? "" : "es", dir, dir, num(calls, c), bytes_str(bytes, b));
    } else if (trace) {
        struct stat st;
        fprintf(stderr, "cutap: no process made a CUDA call: nothing was traced (%s%s)\n", dir,
                stat(dir, &st) ? " was not made" : " holds no trace");
    }
    fputs(report, stderr);
    if (not_traced)
        fprintf(stderr, "cutap: %d process%s not traced: %s\n", not_traced, not_traced == 1 ? "" : "es", nt);
    /* the warnings, as each process had them */
    if (h) {
        uint32_t used = __atomic_load_n(&h->next, __ATOMIC_ACQUIRE);
        if (used > h->nslots)
            used = h->nslots;
        for (uint32_t i = 1; i < used; i++) {
            const struct cutap_reg_slot *s = slot_at(h, i);
            uint32_t n = s->warn_len < sizeof s->warn ? s->warn_len : (uint32_t)sizeof s->warn;
            if (__atomic_load_n(&s->kind, __ATOMIC_ACQUIRE) != CUTAP_REG_IMAGE || !n)
                continue;
            fwrite(s->warn, 1, n, stderr);
            if (s->warn[n - 1] != '\n')
                fputs("...\n", stderr);
        }
    }
#undef ADD
    free(files);
    return troubles + not_traced;
}
