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
 * real function, found by name, and a warning says so.
 *
 * This header is what the front offers the rest of the library (and the
 * benchmarks, for the clock); it includes nothing of the layers above it
 * (core, record, resolve, generated). */
#ifndef CUTAP_FRONT_INTERNAL_H
#define CUTAP_FRONT_INTERNAL_H

#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "cutap.h"
#include "cutap_base.h"
#include "generated/cutap_ids.h"

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
    CUTAP_IO_MREMAP, CUTAP_IO_COUNT
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
void *cutap_real_mremap(void *old, size_t old_len, size_t len, int flags, void *at);
int cutap_real_fcntl(int k, int fd, int cmd, long arg);

/* The public API (include/cutap.h) and the NVTX injection entry, by index:
 * the front's exports forward to the core's (src/front/front_entry.S). */
enum {
    CUTAP_API_REGISTER, CUTAP_API_UNREGISTER, CUTAP_API_ENABLE, CUTAP_API_ENABLE_NAME, CUTAP_API_ENABLE_FILTER,
    CUTAP_API_CALL_COUNT, CUTAP_API_CALL_NAME, CUTAP_API_CALL_LAYER, CUTAP_API_CALL_NARGS, CUTAP_API_CALL_ARG,
    CUTAP_API_LOOKUP, CUTAP_API_LAYER_LOOKUP, CUTAP_API_LAYER_NAME, CUTAP_API_EXPORT_TABLE_NAME,
    CUTAP_API_THREAD_DEPTH, CUTAP_API_NVTX_INIT, CUTAP_API_ON_EXIT, CUTAP_API_RESULT_KIND,
    CUTAP_API_STATUS_NAME, CUTAP_API_WANT_TIME, CUTAP_API_COUNT
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
    /* a getenv (secure 0) or secure_getenv (1) answered value (NULL:
     * unset) to the code at caller (src/front/env.c, src/record/env.c) */
    void (*env)(int secure, const char *name, const char *value, const void *caller);
    /* the ioctl layer's mremap (at: the new address, read whatever the
     * flags: the kernel ignores it without MREMAP_FIXED) */
    void *(*mremap)(void *old, size_t old_len, size_t len, int flags, void *at);
};
void cutap_front_attach(const struct cutap_core *core);
void cutap_front_ready(void);   /* the core's constructor is done */

/* The core, loading it if it is not (NULL: it could not be loaded, or it
 * is being loaded by this thread). */
const struct cutap_core *cutap_core(void);
/* The core if loaded, else NULL (never loads it). */
const struct cutap_core *cutap_core_if_loaded(void);
/* glibc's getenv and secure_getenv found (src/front/env.c), at start-up */
void cutap_env_init(void);
/* An NVIDIA library's lookup made before the core was loaded (env.c),
 * and the NVIDIA libraries' file names */
#define CUTAP_ENV_EARLY_MAX 64
struct cutap_env_early {
    const void *caller;
    uint8_t secure, set, cut;
    char name[128], value[256];
};
/* Each kept lookup to fn, once (later calls: 0); *lost: those not kept. */
unsigned cutap_front_env_drain(void (*fn)(const struct cutap_env_early *e), unsigned *lost);
int cutap_front_nvidia_lib(const char *path);
extern _Atomic int cutap_env_on;   /* the core records lookups (record/env.c) */

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
 * (front/exec.c: a probe that cannot fault; 0 where it cannot tell);
 * errno as it was. */
int cutap_readable_str(const char *s);
/* The same for n bytes at p. */
int cutap_readable(const void *p, size_t n);

/* A warning of the front's: the registry when recording, else stderr. */
void cutap_front_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* --- cutap's own descriptors and writes (front/fd.c) ------------------- */

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

/* --- the clock, as the process allows it (front/forbid.c) --------------- */

/* Whether the process forbade the time-stamp counter (src/front/forbid.c):
 * 1 after prctl(PR_SET_TSC, PR_TSC_SIGSEGV), where the vDSO's
 * clock_gettime, which reads the counter, would fault too: the clock is
 * then read by system call; 2 in seccomp strict mode, where a system call
 * would kill the process: the clock stands still at its last reading.
 * Defined by libcutap.so (weak here: the benchmarks, which include this
 * header, never forbid anything and have no definition). */
extern int cutap_tsc_forbidden __attribute__((weak));
/* cupti_watch.c: when the program last registered CUPTI activity callbacks
 * of its own (CLOCK_MONOTONIC ns | 1), 0: never (record/gpu.c) */
extern uint64_t cutap_cupti_client_ns;
extern void (*cutap_cupti_yield)(void);
extern void (*cutap_cupti_sub_yield)(void);
/* cupti_watch.c: a dlsym of a watched CUPTI name on a handle (-1: not
 * one), and its answer (the watch's export, libcupti's kept for it). */
int cutap_cupti_watched(void *handle, const char *name);
void *cutap_cupti_dl_lookup(int w, void *handle, const char *version);
extern uint64_t cutap_frozen_ns __attribute__((weak));

/* A clock through the vDSO (~20 ns, no system call), or as allowed. */
static inline uint64_t cutap_clock_ns(clockid_t id)
{
    struct timespec ts;
    if (__builtin_expect(&cutap_tsc_forbidden && __atomic_load_n(&cutap_tsc_forbidden, __ATOMIC_RELAXED), 0)) {
        if (__atomic_load_n(&cutap_tsc_forbidden, __ATOMIC_RELAXED) == 2)
            return __atomic_load_n(&cutap_frozen_ns, __ATOMIC_RELAXED);   /* (any clock: nothing is recorded) */
        syscall(SYS_clock_gettime, id, &ts);
    } else {
        clock_gettime(id, &ts);
    }
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC ns. */
static inline uint64_t cutap_now_ns(void)
{
    return cutap_clock_ns(CLOCK_MONOTONIC);
}

/* --- the trace directory's process registry (front/registry.c) ---------
 * (src/common/cutap_registry.h), cutap's channel for warnings and losses:
 * in the front, since exec notes are made in every process. attach maps
 * DIR/.cutap-procs (create: make it, and DIR, when missing) and claims
 * this image's slot; 0 or -1. warn appends a line to the slot (-1: no
 * registry). back_range allocates every block of a file range
 * (fallocate, else zeros written); 0 or an errno. */
int cutap_back_range(int fd, long off, long len);
int cutap_reg_attach(const char *dir, int create);
int cutap_reg_dir_from_env(char *dir, size_t size);   /* CUTAP_TRACE or CUTAP_COUNT, absolute */
int cutap_reg_warn(const char *line, size_t n);
void cutap_reg_file(int err);
void cutap_reg_stop(int reason, int err);
void cutap_reg_exit(uint64_t lost_without_file);
/* exec_note reads path and envp: exec.c checks first that they can be read
 * (attached: a registry is mapped, notes can be made). */
int cutap_reg_attached(void);
void *cutap_reg_exec_note(const char *path, char *const envp[]);
void cutap_reg_exec_failed(void *note);
void cutap_reg_exec_spawned(void *note, int child);
void cutap_exec_init(void);     /* front/exec.c: the real exec family, looked up once */
void cutap_forbid_init(void);   /* front/forbid.c: what the process forbade before cutap started */

/* --- libc's dlsym, and lookups in one object (front/front.c) ----------- */

void *cutap_libc_dlsym(void *handle, const char *name);
void *cutap_libc_dlvsym(void *handle, const char *name, const char *version);
/* Address of name in one loaded object's own dynamic symbol table (no
 * dependency, no loader lock): base and dynamic section as dl_iterate_phdr
 * gives them. */
struct dl_phdr_info;
void *cutap_elf_lookup(struct dl_phdr_info *info, const char *name);
const void *cutap_elf_dynamic(struct dl_phdr_info *info);   /* its PT_DYNAMIC, or NULL */

/* --- where each call goes (src/generated/front_tables.c) --------------- */

/* Where a call of each static id goes (src/generated/fronts.S): to is
 * what the front's entry jumps to (the real function while no client wants
 * the id, a generated fast path, the typed slow path, a resolver or a
 * trampoline stub; 0 until the core set it: the core not loaded). real is
 * the real function as the core's refresh last saw it, for the recorder's
 * generated fast paths: beside to, so that a traced call finds it on the
 * line its entry just loaded (issue #27: a call in a large program finds
 * few of its lines in the nearest caches). */
struct cutap_hot_slot {
    void *_Atomic to;
    void *real;
};
extern struct cutap_hot_slot cutap_hot[CUTAP_STATIC_COUNT];

/* --- the thread state (front/tls.c) -------------------------------------
 * Everything cutap keeps per thread, in one initial-exec TLS block,
 * defined in the front (a dlopened core could get static TLS only from
 * glibc's small shared surplus). Kept tiny: it is touched on every
 * slow-path call. Its parts belong to the layers named beside them. */
struct cutap_rec_call;
struct cutap_counter;
struct cutap_ioc_blk;
/* A thread's recorder state (src/record: chunks.c, calls.c, ring.c). */
struct rec_thread {
    int32_t tid;
    uint32_t seq_rec, seq_cnt;    /* record runs (chunks and THREAD metas); counter chunks */
    uint32_t countdown;           /* calls until the next sampled one */
    uint64_t rng;                 /* xorshift64 state, never 0 once set */
    struct cutap_rec_call *pos, *end;
    struct cutap_counter **tab;   /* CUTAP_MAX_IDS pointers, mapped on first use */
    uint32_t ring_cur1;           /* ring files: its current ring chunk, index + 1 */
    uint32_t ring_pins1;          /* the first of the others it holds (ring.c) */
    uint8_t gone;                 /* its exit destructor ran: it takes fresh
                                     chunks only and gives nothing away again */
};
struct rt_stack;
struct shadow_stack;
#define CUTAP_NVTX_DEPTH_SLOTS 64
struct cutap_thread {
    uint32_t depth;
    /* record/: this thread is taking slots of its chunk (between reading
     * its position and moving it): a call from a signal handler that comes
     * then takes none (its record is counted lost), where it would take
     * the same slots as the call it interrupted (one record written over
     * the other) */
    uint8_t resv;
    cutap_call_t *current;
    struct rec_thread rec;
    /* non-zero while cutap's own code opens, maps or closes files (the
     * recorder growing its trace file): the ioctl layer's wrappers, which
     * those calls reach, then only pass through */
    uint32_t internal;
    int driver_adopting, lib_adopting;           /* resolve/driver.c, libs.c */
    struct shadow_stack *shadow;                 /* core/dispatch.c */
    uint64_t missing_status;                     /* core/dispatch.c */
    struct rt_stack *rt_stk;                     /* resolve/rt_calls.c */
    uint64_t rt_hook4[7];                        /* resolve/rt_hooks.c */
    void *last_slot_ret;                         /* core/dispatch.c, resolve/rt_hooks.c */
    uint32_t last_slot_id;
    const void *rt_site_ok[2];                   /* resolve/rt_hooks.c: entry, exit */
    int32_t nvtx_depth[CUTAP_NVTX_DEPTH_SLOTS];  /* resolve/nvtx.c */
    struct {                                     /* record/capture.c */
        uint8_t armed, pending;
        uint64_t domain;
        int32_t level;
    } nv_push;
    uint8_t nv_start_pending;
    uint8_t refreshing;                          /* core/refresh.c: this thread holds (or is about to
                                                    take) the refresh lock: a signal handler's refresh on
                                                    it is left to the holder, never waited for */
    uint32_t gpu_open;                           /* record/gpu.c: enqueuing calls open with an id given */
    uint32_t gpu_last_corr;                      /* record/gpu.c: the correlation id last paired with
                                                    gpu_ext (a runtime call's callback and its driver
                                                    call's carry the same: one pair) */
    uint64_t gpu_ext;                            /* record/gpu.c: the outermost open enqueuing call's
                                                    place, for CUPTI's callbacks (0: none) */
    uint32_t gpu_capturing;                      /* record/gpu_join.c: stream captures open */
    uint8_t gpu_refused, gpu_known;              /* record/gpu_join.c: the outermost open enqueuing call or
                                                    one inside it is of a function the CUPTI refused /
                                                    knows */
    uint8_t real_tables;                         /* record/gpu.c: CUPTI starting for cutap on this
                                                    thread: its export tables are the driver's own
                                                    (resolve/exporttable.c) */
    uint32_t cupti_corr;                         /* resolve/cupti_rt.c: CUPTI's correlation id of the
                                                    runtime call being reported at its entry (record/gpu.c) */
    uint8_t env_busy;                            /* record/env.c: a lookup being recorded (a signal
                                                    handler's lookup then passes through) */
    struct cutap_ioc_blk *ioc_blk;               /* resolve/ioctl.c: the block of the RM call under way
                                                    (record/params.c) */
    struct {                                     /* resolve/ioctl_maps.c: the object this thread's last
                                                    RM_MAP_MEMORY asked the next mmap of fd + 1 to map */
        int32_t fd1;
        uint32_t client, h;
    } map_asked;
};
/* (on a line of its own: the fast paths touch its first 64 bytes only) */
extern __thread struct cutap_thread cutap_tls __attribute__((tls_model("initial-exec"), aligned(64)));

#endif
