/* The recorder: a client of the callback API that writes the binary trace
 * of include/cutap_format.h (docs/FORMAT.md).
 *
 *   CUTAP_TRACE=DIR   one record per call (start, end, result, argument
 *                     words, captured outputs and strings)
 *   CUTAP_COUNT=DIR   counters only: per thread and id, calls, errors,
 *                     timed calls and their total, min and max time (what
 *                     `cutap stat` reads); not every call is timed (see
 *                     "counting mode" below; CUTAP_STAT_TIMING=all: every
 *                     call is)
 *   CUTAP_FILTER=EXPR the ids to record (see filter.c); others cost only
 *                     the pass-through
 *
 * Each process writes DIR/<host>.<pid>[.<n>].cutap. The file is mapped and
 * written in place: what a thread completed is in the page cache the moment
 * it is written, so SIGKILL, abort or _exit lose nothing completed. Each
 * thread owns its chunk: the hot path takes no lock and makes no system
 * call; a new chunk costs one atomic add, a new segment (256 KiB to 64 MiB)
 * one fallocate (or zeros written) and one mmap under a lock: every page
 * is backed before it is mapped, so a full disk stops recording (the
 * header says why, and counts the calls lost) and never raises SIGBUS.
 * When a thread ends, the rest of its chunk passes to the next new thread
 * (a THREAD meta record marks where); counting mode keeps one entry per
 * thread and id in shared COUNTER_ENTRIES chunks. Nothing is decoded
 * here.
 *
 * What the recorder's files share among themselves (nothing outside
 * src/record includes this; what the recorder offers the rest of the
 * library is in record_internal.h):
 *   file.c      the trace file: made, header, segments, page helper, stop
 *   ring.c      the flight recorder's ring of chunks
 *   chunks.c    threads and the chunks they take; tails of exited threads
 *   meta.c      meta records: ids, layers, kernels named once per file
 *   calls.c     trace mode, counting mode, the fused path (the hot path)
 *   inplace.c   a runtime copy's reported calls written in place (issue #25)
 *   stack.c     native stacks (CUTAP_STACK)
 *   recorder.c  start, fork, capture control (freeze, ranges)
 *   capture.c   what turns recording on and off (profiler ranges, signals, timers)
 *   clock.c, filter.c, inject.c: the record clock, CUTAP_FILTER, injected failures
 * Everything here has hidden visibility: calls and loads as direct as
 * between the functions of one file. */
#ifndef CUTAP_RECORDER_PRIV_H
#define CUTAP_RECORDER_PRIV_H

#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "cutap_format.h"
#include "record_internal.h"

#define CHUNK_SIZE (256u * 1024)
/* The file grows by segments of 256 KiB, 512 KiB, 1, 2 … 64 MiB: a
 * process with a handful of calls costs 260 KiB of disk, a long run few
 * mappings. */
#define SEG_MIN_CHUNKS 1u
#define SEG_MAX_CHUNKS 256u
#define MAX_SEGS 1100                       /* > 64 GiB per process (segments 8 on: 64 MiB) */
#define ENTRIES_PER_CHUNK ((rec_file.csize - CUTAP_SLOT) / sizeof(struct cutap_counter_entry))
/* A thread's id -> counter table (counting mode), its own mapping */
#define TAB_BYTES ((size_t)CUTAP_MAX_IDS * sizeof(struct cutap_counter *))
/* The rest of an exited thread's record chunk is passed on when it has at
 * least this many slots; at most TAILS_MAX such tails wait for a thread. */
#define TAIL_MIN 16
#define TAILS_MAX 4096
#define MAX_REC_SLOTS 64                    /* 4 KiB: longest record */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#pragma GCC visibility push(hidden)

/* What the recorder's files define for the rest of the library
 * (record_internal.h, core_internal.h), declared again here, hidden:
 * between the recorder's files they are reached as directly as when one
 * file held them all (the rest of the library reaches them as before). */
extern _Atomic uint8_t cutap_named[CUTAP_MAX_IDS];
extern uint64_t cutap_slow_ticks;
extern int cutap_fast_kind, cutap_no_kernel_names, cutap_rec_tsc;
extern _Atomic uint8_t cutap_fast_mask;
extern _Atomic uint8_t cutap_gpu_fast_bit;   /* (calls.c) */
extern _Atomic uint32_t cutap_cap_block;
extern char cutap_rec_dir[];
void cutap_rec_freeze(uint32_t reason, uint32_t id, uint64_t result);
void cutap_capture_update(uint32_t set, uint32_t clear);
void cutap_fp_name_function(uint64_t handle);

/* --- file.c ------------------------------------------------------------- */

/* The process's trace file. Replaced in a forked child. */
struct rec_file {
    struct cutap_fd file;         /* kept above the program's numbers, checked before each use */
    char path[PATH_MAX + 128];    /* to open it again if the program closed our descriptor */
    int counts;
    uint32_t csize;               /* chunk size: CHUNK_SIZE, or the ring's */
    struct cutap_file_header *hdr;
    _Atomic uint64_t next_chunk;
    char *_Atomic seg[MAX_SEGS];
    _Atomic int dead;             /* an error stopped recording */
    _Atomic int opened;           /* the file exists (made by the first record) */
    char dir[PATH_MAX];
};
extern struct rec_file rec_file;

/* Recording stops for this process (the program goes on): the header says
 * why and when, cutap's registry too, and every later call is counted as
 * lost. Called on failure paths only. */
void rec_stop(int reason, int err, const char *what);
/* A call that could not be recorded, counted. Returns NULL for rec_begin. */
__attribute__((noinline, cold)) void *rec_lost_call(void);
/* The record clock and CLOCK_MONOTONIC, read together. */
void rec_clock_pair(uint64_t *clk, uint64_t *mono);
/* The file, made at the first record; 0, or -1 when recording is dead. */
int rec_file_ensure(void);
/* Address of chunk i, mapping its segment first if no thread has; NULL
 * with errno and *why (CUTAP_STOP_*) set. */
char *rec_chunk_addr(uint64_t i, int *why);
/* The page helper: whether it populated chunk i; after chunk i was taken,
 * made if need be and told to go on; CUTAP_PREFAULT read. */
int rec_pf_populated(uint64_t i);
void rec_pf_kick(uint64_t i);
void rec_pf_config(void);
/* At exit: the end clock pair, the file closed; losses to the registry. */
void rec_file_at_exit(void);

/* --- ring.c ------------------------------------------------------------- */

struct rec_ring {
    uint32_t n;                   /* ring chunks; 0: no ring */
    char *base;                   /* the ring's mapping */
    _Atomic uint8_t *state;       /* ring.c's RS_* per chunk */
    uint32_t *next_pin;           /* a thread's held chunks, chained (index + 1) */
    _Atomic uint64_t cursor;      /* takes so far: the next chunk is cursor % n */
    _Atomic uint64_t takes;       /* chunks taken (every kind, ring or not): their take numbers */
    _Atomic uint64_t populated;   /* first lap: chunks below this one are populated */
    _Atomic int warned;
};
extern struct rec_ring rec_ring;

/* CUTAP_RING=BYTES: the ring's size and chunk size; -1 after a warning. */
int rec_ring_setup(void);
/* The helper's work in a ring file; whether it did anything. */
int rec_ring_prepare(void);
/* The next ring chunk for thread t, NULL when none can be had. */
char *rec_ring_take(struct rec_thread *t);
/* A thread's ring chunks given back (it exits). */
void rec_ring_release_all(struct rec_thread *t);

/* --- chunks.c ----------------------------------------------------------- */

/* A thread's first record: its id, sampling generator, exit destructor. */
void rec_thread_init(struct rec_thread *t);
/* A new chunk of a type (CUTAP_CHUNK_*) for thread t, its header written. */
void *rec_chunk_take(struct rec_thread *t, int type, uint32_t first_id);
__attribute__((noinline)) struct cutap_rec_call *rec_reserve_slow(unsigned n);
/* The thread exit destructor's key (when recording starts); a thread that
 * records again after its destructor ran, asked again. */
void rec_threads_start(void);
void rec_thread_exit_again(void);

/* Room for a record of n slots in the thread's chunk. A record never spans
 * two chunks: the rest of a chunk that cannot hold it stays zero. */
static inline struct cutap_rec_call *rec_reserve(unsigned n)
{
    struct cutap_thread *th = &cutap_tls;
    struct cutap_rec_call *r;
    /* a signal handler's call that interrupted this thread's taking of
     * slots (CUTAP_TAKE_SLOTS) takes none, nor a new chunk: NULL, lost */
    if (CUTAP_UNLIKELY(th->resv))
        return NULL;
    if (CUTAP_LIKELY(CUTAP_TAKE_SLOTS(th, n, &r)))
        return r;
    return rec_reserve_slow(n);
}

/* The thread's chunk given up, or another one taken: the end cleared
 * before the position changes and set after, so that a signal handler's
 * call on the thread never finds a position beside an end not its own
 * (between them it finds an end of 0, which both rec_reserve and
 * cutap_fp_reserve_fs refuse: the handler's call takes a chunk of its own,
 * helper-25's review found the general path's old test let it write past
 * the full chunk's end). */
static inline void rec_thread_drop(struct rec_thread *t)
{
    t->end = NULL;
    atomic_signal_fence(memory_order_seq_cst);
    t->pos = NULL;
}
static inline void rec_thread_set(struct rec_thread *t, struct cutap_rec_call *pos, struct cutap_rec_call *end)
{
    t->end = NULL;
    atomic_signal_fence(memory_order_seq_cst);
    t->pos = pos;
    atomic_signal_fence(memory_order_seq_cst);
    t->end = end;
}

/* --- meta.c ------------------------------------------------------------- */

extern _Atomic uint8_t rec_layer_noted[CUTAP_LAYER_COUNT];
/* A meta record of len bytes of text (NUL-separated fields allowed). */
/* 0 written; 1 not written for now (a signal handler's call that came
 * while its thread took slots): a caller that marked the thing written
 * unmarks it, so that a later call writes it; -1 not (no room: a full or
 * dead file, where trying again on every call would only cost) */
int rec_write_meta_n(int sub, uint32_t aux, uint64_t key, const char *text, size_t len);
/* A layer's binding, once per file. */
void rec_note_layer(int layer);
/* An id's name and signature, once per file: the check inline, the
 * writing out of line. */
void rec_name_id_slow(uint32_t id);
static inline void rec_name_id(uint32_t id)
{
    if (CUTAP_LIKELY(atomic_load_explicit(&cutap_named[id], memory_order_relaxed)))
        return;
    rec_name_id_slow(id);
}
/* The kernel behind a launch, named once per handle (the checks inline,
 * as rec_name_id). */
extern _Atomic int rec_funcs_full;   /* no room for more handles */
void rec_name_function_slow(uint64_t f);
static inline void rec_name_function(uint64_t f)
{
    if (!f || atomic_load_explicit(&rec_funcs_full, memory_order_relaxed))
        return;
    rec_name_function_slow(f);
}

/* --- calls.c, stack.c --------------------------------------------------- */

/* PLAN_NOSTATUS: the result is no status code (a pointer, a count, void):
 * outputs are read whatever it is. */
enum { PLAN_READY = 1, PLAN_INSTR = 2, PLAN_IN = 4, PLAN_OUT = 8, PLAN_FUNC = 16, PLAN_SIMPLE = 32, PLAN_NOSTATUS = 64,
       PLAN_WORDS = 128 };
/* SIMPLE: every capture is a 4- or 8-byte output (cuCtxGetCurrent,
 * cuMemAlloc, cuDeviceGetAttribute…: most calls that have captures), at
 * most two: their headers and offsets are kept here, so the hot path
 * stores them without walking the capture table. */
struct plan {
    uint16_t nslots;
    uint8_t flags;
    uint8_t nsimple;
    struct cutap_rp_out out[2];
    uint64_t hdr[2];       /* the headers as written before the call */
};
/* The plan of a call of id (calls.c; inplace.c makes its templates). */
struct plan rec_make_plan(uint32_t id, unsigned nargs, int untyped);
/* A call's simple outputs taken (after it succeeded): n at out, the
 * pointers in its words. */
static inline __attribute__((always_inline)) void rec_take_simple(struct cutap_rec_call *r, const uint64_t *args,
                                                                   const struct cutap_rp_out *out, unsigned n)
{
    for (unsigned k = 0; k < n; k++) {
        const void *p = (const void *)(uintptr_t)args[out[k].arg];
        if (!p)
            continue;
        char *h = (char *)r + out[k].off;
        uint16_t size = out[k].size;
        if (size == 8)
            memcpy(h + 8, p, 8);
        else
            memcpy(h + 8, p, 4);
        struct cutap_capture *ch = (struct cutap_capture *)(void *)h;
        ch->len = size;
        ch->state = CUTAP_CAPS_OK;
    }
}
/* Registers the recorder's callbacks (trace or counting mode); the client. */
int rec_register(int counts);
/* gpu.c (issue #31): CUTAP_GPU=1 records GPU activity through CUPTI (set
 * up after the recorder's client registered: its pushes need the record
 * the recorder's pre made); a forked child starts without it. */
void rec_gpu_setup(void);
/* The file was made: --gpu said in its header (ASKED; FAILED and why when
 * it was refused before CUDA started). */
void rec_gpu_file_made(struct cutap_file_header *h);
void rec_gpu_after_fork(void);
extern int rec_gpu_asked;
/* A thread's next sampling interval (counting mode): 1..rec_sample_span. */
uint32_t rec_next_interval(struct rec_thread *t);
/* The object a call reported through CUPTI came from, named once. */
__attribute__((noinline)) uint32_t rec_origin_of(const void *fn);
/* CUTAP_STACK: the ids whose calls get a stack, and failing calls. */
extern uint8_t rec_stack_ids[CUTAP_MAX_IDS];
extern int rec_stack_errors, rec_stack_on;
void rec_stack_setup(void);
__attribute__((noinline, cold)) void rec_write_stack(const struct cutap_rec_call *r, uint32_t id);

/* --- env.c -------------------------------------------------------------- */

void rec_env_setup(int counts);   /* CUTAP_ENV; trace mode only */
void rec_env_drain(void);   /* the front's lookups from before the core, once recording started */

/* --- params.c (issue #32): RM parameter blocks, behind their call's record */
unsigned rec_blk_slots(const struct cutap_ioc_blk *b, unsigned n);
__attribute__((noinline, cold)) void rec_blk_begin(struct cutap_rec_call *r, struct cutap_ioc_blk *b, unsigned extra);
__attribute__((noinline, cold)) void rec_blk_end(struct cutap_ioc_blk *b);

/* --- recorder.c --------------------------------------------------------- */

extern _Atomic int rec_cap_on;   /* no reason blocks recording */
/* Counting mode's settings (CUTAP_STAT_TIMING, _SEED, _SLOW_NS). */
extern int rec_time_all, rec_fixed_seed;
extern uint64_t rec_seed, rec_slow_ns;
extern uint32_t rec_sample_span;
/* The freeze fields, once the file exists. */
void rec_freeze_write(struct cutap_file_header *h);
/* Times recording was turned on (the header's capture_ranges). */
uint32_t rec_capture_ranges(void);

/* --- each file's state in a forked child (recorder.c, child_after_fork) - */
void rec_file_after_fork(void);
void rec_ring_after_fork(void);
void rec_chunks_after_fork(void);
void rec_meta_after_fork(void);
void rec_calls_after_fork(void);

#pragma GCC visibility pop

#endif
