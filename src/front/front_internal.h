/* libcutap.so, the front, and libcutap_core.so, the core (issue #24).
 *
 * The front is what LD_PRELOAD names: small, no relocation that writes a
 * page, a constructor of a few system calls. It exports every name cutap
 * intercepts and keeps what every process needs from its start: the exec
 * family (the trace registry's notes), the trace registry, cutap's own
 * descriptors, what the process forbids itself (prctl, syscall), the entry
 * of dlsym, the libc functions of the ioctl layer, the thread state (TLS
 * must be in the initial block), and the table of where each call goes
 * (cutap_hot). The core (every wrapper, table, decoder, the recorder, the
 * clients: 30 MB and 80,000 relocations) is loaded at the first call that
 * needs it: a CUDA call, a lookup of a CUDA name, an open of an NVIDIA
 * device file, an NVIDIA request on an inherited descriptor, the NVTX
 * injection, the public API, or at start-up when plugins are named. A
 * process that never calls CUDA (a shell, a compiler run under cutap
 * trace) never loads it. If it cannot be loaded, every call passes to the
 * real function, found by name, and a warning says so. */
#ifndef CUTAP_FRONT_INTERNAL_H
#define CUTAP_FRONT_INTERNAL_H

#include <stdint.h>
#include <sys/types.h>

/* A definition of the front that the core uses (it links against the
 * front; everything else of the front stays local). */
#define CUTAP_FRONT __attribute__((visibility("default")))

/* The libc functions of the ioctl layer (src/resolve/ioctl.c), by index:
 * the front exports them (src/front/io.c) and resolves glibc's
 * (cutap_front_real); while the core is not loaded they pass straight on,
 * once it is they go through the core's (struct cutap_core). */
enum {
    CUTAP_IO_IOCTL, CUTAP_IO_OPEN, CUTAP_IO_OPEN64, CUTAP_IO_OPENAT, CUTAP_IO_OPENAT64, CUTAP_IO_OPEN_2,
    CUTAP_IO_OPEN64_2, CUTAP_IO_OPENAT_2, CUTAP_IO_OPENAT64_2, CUTAP_IO_CLOSE, CUTAP_IO_CLOSE_RANGE, CUTAP_IO_DUP,
    CUTAP_IO_DUP2, CUTAP_IO_DUP3, CUTAP_IO_MMAP, CUTAP_IO_MMAP64, CUTAP_IO_MUNMAP, CUTAP_IO_FCNTL, CUTAP_IO_FCNTL64,
    CUTAP_IO_COUNT
};
void *cutap_front_real(int k);   /* glibc's function k, or NULL */
void cutap_io_init(void);        /* at start-up (front/io.c) */
typedef int (*ioctl_fn)(int, unsigned long, void *);
typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);
typedef int (*open2_fn)(const char *, int);
typedef int (*openat2_fn)(int, const char *, int);
typedef int (*close_fn)(int);
typedef int (*close_range_fn)(unsigned, unsigned, int);
typedef int (*dup_fn)(int);
typedef int (*dup2_fn)(int, int);
typedef int (*dup3_fn)(int, int, int);
typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);
typedef int (*munmap_fn)(void *, size_t);
typedef int (*fcntl_fn)(int, int, long);
/* glibc's by index (k: the libc function the program called); -1 (or
 * MAP_FAILED) with ENOSYS when there is none. */
int cutap_real_open(int k, int dirfd, const char *path, int flags, mode_t mode);
int cutap_real_dup(int k, int fd, int fd2, int flags);
void *cutap_real_mmap(int k, void *addr, size_t len, int prot, int flags, int fd, off_t off);
int cutap_real_fcntl(int k, int fd, int cmd, long arg);

/* The public API (include/cutap.h) and the NVTX injection entry, by index:
 * the front's exports forward to the core's (src/front/front_entry.S). */
enum {
    CUTAP_API_REGISTER, CUTAP_API_UNREGISTER, CUTAP_API_ENABLE, CUTAP_API_ENABLE_NAME, CUTAP_API_ENABLE_FILTER,
    CUTAP_API_CALL_COUNT, CUTAP_API_CALL_NAME, CUTAP_API_CALL_LAYER, CUTAP_API_CALL_NARGS, CUTAP_API_CALL_ARG,
    CUTAP_API_LOOKUP, CUTAP_API_LAYER_LOOKUP, CUTAP_API_LAYER_NAME, CUTAP_API_EXPORT_TABLE_NAME,
    CUTAP_API_THREAD_DEPTH, CUTAP_API_NVTX_INIT, CUTAP_API_COUNT
};

/* What the core hands the front when it is loaded: its constructor's
 * first act (cutap_front_attach), so that what runs during the rest of its
 * start (plugins calling the API, the driver adopted) finds it. */
struct cutap_core {
    uint32_t size;   /* sizeof (struct cutap_core) */
    /* Where a call of static id goes now (the front's entries jump there
     * while cutap_hot[id] is still 0). The core fills cutap_hot before it
     * answers, so that later calls go straight there. */
    void *(*entry)(uint32_t id);
    /* dlsym and dlvsym of a name that may be a CUDA one (resolve/dl.c) */
    int (*dl_divert)(void *handle, const char *name, const char *version);
    void *(*dl_lookup)(void *handle, const char *name, const char *version, void *caller);
    /* The ioctl layer (k: CUTAP_IO_*, the libc function the program
     * called; the core makes the real call). opened: an open the front
     * made while the core was not loaded, of a path that names an NVIDIA
     * device file (the core marks and records it, and returns fd). */
    int (*ioctl)(int fd, unsigned long req, void *arg);
    int (*open)(int k, int dirfd, const char *path, int flags, mode_t mode);
    int (*opened)(int fd, int err, const char *path, int flags);
    int (*close)(int fd);
    int (*close_range)(unsigned first, unsigned last, int flags);
    int (*dup)(int k, int fd, int fd2, int flags);
    void *(*mmap)(int k, void *addr, size_t len, int prot, int flags, int fd, off_t off);
    int (*munmap)(void *addr, size_t len);
    int (*fcntl)(int k, int fd, int cmd, long arg);
    void *api[CUTAP_API_COUNT];
    /* the process is about to forbid the time-stamp counter / to enter
     * seccomp strict mode (src/front/forbid.c) */
    void (*forbid_tsc)(void);
    void (*strict)(void);
};
void cutap_front_attach(const struct cutap_core *core);
void cutap_front_ready(void);   /* the core's constructor is done */

/* The core, loading it if it is not (NULL: it could not be loaded, or it
 * is being loaded by this thread). */
const struct cutap_core *cutap_core(void);
/* The core if loaded, else NULL (never loads it). */
const struct cutap_core *cutap_core_if_loaded(void);

/* dlsym(RTLD_NEXT) from the front: the definition after libcutap.so in the
 * global scope (for the core, whose own RTLD_NEXT would find the front's). */
void *cutap_front_next(const char *name, const char *version);
/* What RTLD_DEFAULT finds for caller after the global scope: its own
 * group (a library opened RTLD_LOCAL with its dependencies), NULL if
 * none or only cutap's entries. */
void *cutap_front_caller_group(const char *name, const char *version, const void *caller);

/* The front's tables (src/generated/front_tables.c): each static id's
 * name, layer (bit 7: no status), and each layer's "library missing". */
extern const char cutap_front_names[];
extern const uint32_t cutap_front_name_at[];
extern const uint8_t cutap_front_layer[];
extern const uint32_t cutap_front_unavailable[];
extern const uint32_t cutap_front_ids;

/* A string of the program's can be read to its NUL without a fault
 * (front/exec.c: a probe that cannot fault; 0 where it cannot tell). */
int cutap_readable_str(const char *s);

/* A warning of the front's: the registry when recording, else stderr. */
void cutap_front_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
