/* What the recorder (src/record) offers the generated fast paths and its
 * own files: the record clock, filters, the fast paths' helpers, capture
 * control. What the core calls here is declared in core_internal.h ("what
 * the core calls in src/record"); what the trace writer's files share
 * among themselves is in writer_internal.h. */
#ifndef CUTAP_RECORD_INTERNAL_H
#define CUTAP_RECORD_INTERNAL_H
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <x86intrin.h>

#include "core_internal.h"
#include "cutap_format.h"

/* Record clock: the time-stamp counter where the kernel itself trusts it
 * (its clocksource is tsc: invariant, synchronised across CPUs), else
 * CLOCK_MONOTONIC. Reading the TSC costs about half of a vDSO
 * clock_gettime; the reader turns ticks into ns with the (tsc, ns) pairs
 * stored in the file. */
extern int cutap_rec_tsc;   /* the file's clock is the TSC (ticks), else ns */
/* How the clock is read now: the counter, CLOCK_MONOTONIC, or (a TSC file
 * in a process that has since forbidden the counter: src/front/forbid.c)
 * CLOCK_MONOTONIC turned into ticks. One load and one test on the common
 * path, as before. */
enum { CUTAP_RCLK_NS = 0, CUTAP_RCLK_TSC = 1, CUTAP_RCLK_CONVERTED = 2, CUTAP_RCLK_DIAG = 3 };
extern int cutap_rclk __attribute__((visibility("hidden")));

/* What every generated fast path reads besides its thread's state, its
 * slot and its record, on one line of its own (clock.c; issue #27: in a
 * program that runs its own code between two CUDA calls, each line a call
 * needs is a likely miss). Its fields are read through names of their own
 * (cutap_rclk, cutap_no_kernel_names, cutap_fp_tls_off, cutap_fp_slots:
 * the first two stay what they were to the rest of the recorder and to the
 * benchmarks that find cutap_rclk by name; and each load is one
 * instruction relative to the code, where the struct's address in a
 * register made the counting fast path a byte longer than 2 lines). */
struct cutap_hotline {
    int rclk;                       /* cutap_rclk */
    int no_kernel_names;            /* cutap_no_kernel_names */
    intptr_t tls_off;               /* cutap_tls's address less the thread pointer (%fs:0):
                                       the same in every thread (the front's initial-exec block) */
    struct cutap_hot_slot *slots;   /* the front's cutap_hot */
} __attribute__((aligned(64)));
/* (hidden: one load relative to the code, not an address then a load) */
#define CUTAP_HOTLINE_VAR __attribute__((visibility("hidden")))
extern struct cutap_hotline cutap_hotline CUTAP_HOTLINE_VAR;
extern intptr_t cutap_fp_tls_off CUTAP_HOTLINE_VAR;
extern struct cutap_hot_slot *cutap_fp_slots CUTAP_HOTLINE_VAR;
/* The thread's state through %fs and the line above, not through the GOT
 * (a load of cutap_tls's offset from a line of its own). */
#define CUTAP_FS_TLS ((__seg_fs struct cutap_thread *)cutap_fp_tls_off)
/* CUTAP_RCLK_DIAG (CUTAP_DIAG_CLOCK=counter, a cost diagnostic, issue
 * #27): a counter stands for the clock, so that what reading the clock
 * costs a traced program can be told from the rest; its times mean
 * nothing. Read through cutap_rec_clock_converted, out of line. */
uint64_t cutap_rec_clock_converted(void);
/* The clock read any way but the time-stamp counter's (clock.c). */
uint64_t cutap_rec_clock_other(void);
static inline __attribute__((always_inline)) uint64_t cutap_rec_clock(void)
{
    if (__builtin_expect(__atomic_load_n(&cutap_rclk, __ATOMIC_RELAXED) == CUTAP_RCLK_TSC, 1))
        return __rdtsc();
    /* (out of line, also CLOCK_MONOTONIC: a fast path keeps no frame for
     * it, and its hot part stays within fewer lines) */
    return cutap_rec_clock_other();
}
/* The clock of a (clock, CLOCK_MONOTONIC) pair, which tells readers and
 * counting mode the tick rate: under CUTAP_RCLK_DIAG the time-stamp
 * counter, not the diagnostic's counter, so that the rate, counting's 1 us
 * threshold and the converted times stay the real clock's. */
static inline uint64_t cutap_rec_clock_for_pair(void)
{
    if (__builtin_expect(__atomic_load_n(&cutap_rclk, __ATOMIC_RELAXED) == CUTAP_RCLK_DIAG, 0))
        return __rdtsc();
    return cutap_rec_clock();
}
int cutap_tsc_usable(void);
/* The record clock chosen (at the recorder's start, and for a file made
 * after the counter was forbidden): TSC when usable and allowed. */
void cutap_rec_clock_choose(void);
/* Reads up to size-1 bytes of a small file (/proc, /sys) into buf,
 * NUL-terminated; returns the bytes read, or -1. */
long cutap_read_small(const char *path, char *buf, size_t size);

/* Applies a CUTAP_FILTER expression (NULL or empty: every id) to a client:
 * enables the ids it selects, now and those made later. Returns 0, or -1
 * after a warning when the expression is invalid (nothing is enabled). */
int cutap_filter_apply(int client, const char *expr);

/* --- the generated fast paths (src/generated/fast_*.c) ------------------ */
/* While the built-in recorder is the only client an id has (and nothing
 * else must run around its calls), the id's fast-path entry (cutap_hot) is
 * a generated function with the exact signature (gen/fastpath_generator.py):
 * trace mode writes the record in place, with the layout the generator
 * knew (argument words, up to two 4- or 8-byte outputs), and calls the
 * real function directly; counting mode counts an untimed call. Anything
 * else (the id's first call in the file, a full chunk, a timed count, a
 * call with other captures) takes the general path, cutap_slow_<name>.
 * (Which of them refresh may hand out: cutap_fast_kind, core_internal.h.) */

/* A thread's recorder state (struct rec_thread, in front_internal.h) is
 * part of the thread's one TLS block, cutap_tls: a fast path that counts
 * or records a call and keeps the nesting depth loads the block's offset
 * once (in a shared library each initial-exec TLS variable costs a load of
 * its offset from the GOT). */
#define cutap_rt (cutap_tls.rec)
extern _Atomic uint8_t cutap_named[];   /* ids named in this file */
extern int cutap_no_kernel_names __attribute__((visibility("hidden")));   /* (cutap_hotline's) */
extern uint64_t cutap_slow_ticks;
void cutap_fp_name_function(uint64_t handle);
/* A --gpu variant of a trace fast path (cutap_tg_<name>: a function that
 * enqueues GPU work) around its real call: the join's notes of the call
 * (record r, published; layer the id's) for CUPTI's callbacks, as gpu_pre
 * would make them (src/record/gpu_join.c); what the post needs (0:
 * nothing); then the post with the call's result word. */
uint64_t cutap_fp_gpu_pre(uint32_t id, int layer, struct cutap_rec_call *r);
void cutap_fp_gpu_post(uint64_t scratch, uint64_t result);

/* The slots a thread writes are asked for, for writing, this many slots
 * ahead: the pages were populated by the recorder's helper thread, on
 * another CPU, so their lines are not in this CPU's cache (on the H100
 * host a record into such a page cost 8.7 ns more than one into a page
 * this thread populated itself: bench/pages). A prefetch never faults, so
 * past the chunk's end it is harmless. */
#define CUTAP_PREFETCH_SLOTS 4
static inline __attribute__((always_inline)) void cutap_rec_prefetch(const struct cutap_rec_call *next)
{
    /* (as an integer: the address may lie past the chunk's object) */
    __builtin_prefetch((const void *)((uintptr_t)next + CUTAP_PREFETCH_SLOTS * CUTAP_SLOT), 1, 3);
}

/* n slots of the thread's chunk taken: 1 and *rp, or 0 (the general path
 * must take the call). th is the thread's struct cutap_thread, in either
 * address space (&cutap_tls, or CUTAP_FS_TLS in a generated fast path):
 * the one way every recording path takes slots (rec_reserve too).
 * - th->resv while it takes them: a call from a signal handler that comes
 *   then takes none (the general path counts it lost), where it would take
 *   the same slots as the call it interrupted;
 * - one test of room: the bytes left less those wanted, as an unsigned
 *   number, are below 256 GiB (a chunk is 256 KiB at most) only when there
 *   is room; fewer slots, no chunk (pos and end 0), or pos beside an end of
 *   0 (rec_thread_set and rec_thread_drop clear end first, so that is what
 *   a handler finds while its thread changes chunks) wrap or exceed it. */
#define CUTAP_TAKE_SLOTS(th, n, rp)                                                                              \
    __extension__({                                                                                              \
        int ok_ = 0;                                                                                             \
        if (__builtin_expect(!(th)->resv, 1)) {                                                                  \
            (th)->resv = 1;                                                                                      \
            atomic_signal_fence(memory_order_seq_cst);                                                           \
            struct cutap_rec_call *r_ = (th)->rec.pos;                                                           \
            ok_ = !(((uintptr_t)(th)->rec.end - (uintptr_t)r_ - (uintptr_t)(n) * CUTAP_SLOT) >> 38);             \
            if (__builtin_expect(ok_, 1))                                                                        \
                (th)->rec.pos = r_ + (n);                                                                        \
            atomic_signal_fence(memory_order_seq_cst);                                                           \
            (th)->resv = 0;                                                                                      \
            if (__builtin_expect(ok_, 1)) {                                                                      \
                cutap_rec_prefetch(r_ + (n));                                                                    \
                *(rp) = r_;                                                                                      \
            }                                                                                                    \
        }                                                                                                        \
        ok_;                                                                                                     \
    })
/* n slots for a call of id, or NULL (the general path must take it). */
static inline __attribute__((always_inline)) struct cutap_rec_call *cutap_fp_reserve(uint32_t id, unsigned n)
{
    struct cutap_rec_call *r;
    if (__builtin_expect(!atomic_load_explicit(&cutap_named[id], memory_order_relaxed), 0) ||
        !CUTAP_TAKE_SLOTS(&cutap_tls, n, &r))
        return 0;
    return r;
}
/* The same for a generated trace fast path: through %fs, and without the
 * name check (refresh hands the fast path out to named ids only). */
static inline __attribute__((always_inline)) int cutap_fp_reserve_fs(__seg_fs struct cutap_thread *th, unsigned n,
                                                                     struct cutap_rec_call **rp)
{
    return CUTAP_TAKE_SLOTS(th, n, rp);
}
/* The real function of static id, for a fast path (the slot's: refresh
 * set it before it handed the fast path out). */
#define CUTAP_FP_REAL(id) (cutap_fp_slots[id].real)

/* How the fast path counts a call of id: 0 not here (an entry not tagged
 * untimed: cutap_fp_counter_untagged; no counter yet: the general path),
 * 1 untimed, 2 perhaps timed (cutap_fp_sample_begin decides); *c its
 * counter. The recorder tags a table entry (bit 0) once its counter's
 * calls are past the first 16 and its id is not slow, after each timed
 * call (count_retag), so that this is count_is_timed's decision. */
struct cutap_counter *cutap_fp_counter_untagged(uint32_t id);
static inline __attribute__((always_inline)) int cutap_fp_counter(__seg_fs struct cutap_thread *th, uint32_t id,
                                                                  struct cutap_counter **c)
{
    __seg_fs struct rec_thread *t = &th->rec;
    struct cutap_counter **tab = t->tab;
    uintptr_t p;
    uint32_t cd;
    if (__builtin_expect(!tab || !((p = (uintptr_t)tab[id]) & 1) || !(cd = t->countdown), 0))
        return 0;
    t->countdown = cd - 1;
    *c = (struct cutap_counter *)(p & ~(uintptr_t)1);
    return cd == 1 ? 2 : 1;
}
/* A call that may be timed (2 above): before the call, whether and how
 * (count_is_timed's decision: the first calls and slow ids exactly, the
 * countdown's samples) with the start time, or 0 for an untimed call;
 * after it, its time, the call counted, the tag updated. A slow id's
 * calls (a launch, a synchronisation: at least 1 us) come here, not to
 * the general path (issue #27: the general path cost a counted call 4
 * times the instructions, and a PyTorch step makes some 100 such calls). */
uint64_t cutap_fp_sample_begin(uint32_t id, const struct cutap_counter *c);
void cutap_fp_sample_end(uint32_t id, struct cutap_counter *c, uint64_t t0, int error);

/* A call counted: its error, then the call. The counter is the thread's
 * own, so neither add is locked; each is one instruction, which a signal
 * handler's call on the thread cannot come into the middle of (a load,
 * add and store of calls lost the count of a handler's call of the same
 * id that came between the load and the store: case
 * stat_signal_handler_same_id). Readers on other threads read calls
 * last: the compiler keeps every store before it there (the memory
 * clobber: the timed statistics are written first), x86 the order. */
static inline __attribute__((always_inline)) void cutap_fp_count(struct cutap_counter *c, int error)
{
    __asm__ volatile("addq %1, %0" : "+m"(c->errors) : "er"((uint64_t)(unsigned)error));
    __asm__ volatile("addq $1, %0" : "+m"(c->calls) : : "memory");   /* (after every store before it) */
}

/* A capture header as written before the call (room 8 bytes) and after
 * it succeeded (len bytes in). */
#define CUTAP_FP_CAP(arg, len, state) \
    ((uint64_t)(len) | (uint64_t)8 << 16 | (uint64_t)(arg) << 32 | (uint64_t)CUTAP_CAP_OUT_BYTES << 40 | \
     (uint64_t)(state) << 48)

/* The thread's signals blocked while the recorder holds a lock or changes
 * the thread's chunk, restored after: a CUDA call from one of the
 * program's signal handlers on the thread would otherwise wait for a lock
 * its own thread holds, for ever (trace_signal_handler_calls: a handler's
 * call that needed the next chunk waited on grow_lock, held by the chunk
 * switch it had interrupted), or change the chunk under the switch. Two
 * system calls a section: a chunk switch (thousands of records), a name,
 * a counter, a capture change. Not in seccomp strict mode (no system call
 * is allowed there; the recorder stopped before it, and holds its locks
 * only for the rare records after). Returns whether it blocked. */
static inline int rec_sig_block(sigset_t *old)
{
    if (&cutap_tsc_forbidden && __atomic_load_n(&cutap_tsc_forbidden, __ATOMIC_ACQUIRE) == 2)
        return 0;
    sigset_t all;
    sigfillset(&all);
    return !pthread_sigmask(SIG_BLOCK, &all, old);
}
static inline void rec_sig_restore(int blocked, const sigset_t *old)
{
    if (blocked)
        pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* The process's rank: RANK, OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID
 * (the first set); -1 when none is. */
int cutap_rec_rank(void);

/* generated/cupti_gpu_cbid.c: CUPTI's callback ids of the driver and
 * runtime functions that enqueue GPU work (record/gpu.c). */
extern const unsigned cutap_gpu_driver_ncbids, cutap_gpu_runtime_ncbids;
extern const uint16_t cutap_gpu_driver_cbids[], cutap_gpu_runtime_cbids[];
extern const char *const cutap_gpu_driver_names[], *const cutap_gpu_runtime_names[];   /* each id's function */

/* --- capture control and freezing (capture.c, recorder.c) ------------- */
/* Calls are recorded while no reason blocks it; otherwise counted (the
 * counting client's counters, in the trace file's COUNTER_ENTRIES
 * chunks). FROZEN is never cleared. */
enum { CB_BEFORE = 1, CB_AFTER = 2, CB_OUTSIDE = 4, CB_FROZEN = 8 };
extern _Atomic uint32_t cutap_cap_block;
/* Sets and clears reasons; when recording turns on or off, every id the
 * recorder has is refreshed to the fast paths of the new mode. */
void cutap_capture_update(uint32_t set, uint32_t clear);
/* The process stops recording for good and its ring is never overwritten
 * again (header freeze_*; reason CUTAP_FREEZE_*). Once per process. */
void cutap_rec_freeze(uint32_t reason, uint32_t id, uint64_t result);
/* capture.c: reads CUTAP_CAPTURE_* and CUTAP_UNTIL_ERROR, registers its
 * clients (before the recorder's, so that their pre callbacks run first
 * and their post callbacks last); returns the reasons that block
 * recording at start, or -1 after a warning (bad settings: nothing is
 * recorded). */
int cutap_capture_start(void);
/* capture.c: the process made its trace file (header h): the capture
 * modes and ranges are written, the window's timer started. */
void cutap_capture_file_made(struct cutap_file_header *h);
uint32_t cutap_capture_modes(void);
/* After fork, in the child (its capture state starts again). */
void cutap_capture_child(void);
#endif
