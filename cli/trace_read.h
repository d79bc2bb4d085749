/* Reading trace directories (include/cutap_format.h, docs/FORMAT.md).
 * tr_load reads every file once: processes, threads, names, counters, NVTX
 * ranges, and where each thread's call records lie (runs); it keeps no
 * call. The calls are then streamed in time order by an iterator
 * (tr_iter_*): a merge of the threads' record streams, parents and depths
 * computed on the way from per-thread stacks, so that the memory of a
 * command does not grow with the number of calls (a few hundred bytes per
 * thread and per NVTX range, and the names and counters). Files are
 * mapped read-only; the records returned point into the mappings. Every
 * check a corrupt or foreign file could fail is made where the record is
 * read: the commands built on this never see an out-of-bounds record. */
#ifndef CUTAP_TRACE_READ_H
#define CUTAP_TRACE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "cutap_format.h"
#include "generated/cutap_ids.h"   /* CUTAP_LAYER_* */

struct tr_func {
    uint64_t handle;
    const char *name;          /* points into the mapping */
};

struct tr_proc {
    char *path;
    struct cutap_file_header h;   /* copy; strings NUL-terminated */
    const uint8_t *map;
    size_t size;
    /* ns (realtime) = base_ns + (clock - clock0) * rate */
    double rate;
    uint64_t clock0;
    uint64_t base_ns;
    struct tr_idslot {         /* file id -> name index (hash table) */
        uint32_t id, name1;    /* name1 = name index + 1; 0: empty slot */
        uint32_t used;         /* a call record has this id */
        const char *sig;       /* its description (version 4), or NULL */
    } *idmap;
    size_t nids, idcap;
    struct tr_func *funcs;     /* sorted by handle */
    size_t nfuncs;
    int complete;              /* CLOSED flag: reached exit */
    /* What each runtime/library layer was bound to (CUTAP_META_LAYER, format
     * version 3): its soname in the mapping, NULL when not said, and its
     * CUTAP_LAYER_* flags (OTHER_MAJOR: its calls are untyped). */
    const char *layer_so[CUTAP_LAYER_COUNT];
    uint32_t layer_flags[CUTAP_LAYER_COUNT];
    int mapped;                /* map is the reader's mapping (not tr_mem_file's) */
    uint8_t *copy;             /* or map is this copy (a live ring file), freed with the trace */
    uint8_t call_layers;       /* its call records hold: 1 driver calls, 2 runtime calls */
    /* CUTAP_META_OBJECT (issue #14): object index in the file -> name
     * index + 1 of its path (layer TR_LAYER_OBJECT); 0: not named */
    uint32_t *objects;
    size_t nobjects;
    /* CUTAP_META_STACK (version 5, --stack): sorted by (tid, id, t0) */
    struct tr_stack {
        int32_t tid;
        uint32_t id, nframes;
        uint64_t t0;
        const struct cutap_stack_frame *frames;   /* in the mapping */
    } *stacks;
    size_t nstacks;
    size_t cap_funcs, cap_stacks;
    struct tr_kept *kept;      /* strings and frames a follower copied out of records (tr_free frees them) */
    /* What NVIDIA libraries read from the environment (issue #32), in
     * file order: CUTAP_META_ENV records */
    struct tr_env {
        uint64_t clock;        /* record clock (tr_env_ns) */
        uint32_t thread;       /* index into trace.threads */
        uint32_t object;       /* the asking object: index into objects + 1 (0: unknown) */
        uint32_t flags;        /* CUTAP_ENV_* */
        const char *name, *value;   /* value NULL: unset */
    } *env;
    size_t nenv, cap_env;
    /* GPU activity (issue #31, --gpu): kernels, copies and memsets, sorted by
     * their launching call's record (call_off), then start */
    struct tr_gpu *gpu;
    size_t ngpu, cap_gpu, gpu_joined;
    size_t gpu_paired;         /* enqueuing calls CUPTI paired with their record (distinct external ids) */
    uint8_t *gpu_lane;         /* per record: its lane on its stream's track (0, or 1.. where records
                                  of one stream overlap in time: a viewer's track holds no overlap) */
    const char **gpu_names;    /* GPU_NAME index -> name in the mapping (NULL: not named) */
    size_t ngpu_names, cap_gpu_names;
    void *gpu_scan;            /* while the file is read (read/gpu.c) */
};

/* A kernel, copy or memset (read/gpu.c). */
struct tr_call;
struct tr_gpu {
    uint64_t t0, t1;           /* on the GPU, realtime ns as calls' (0: not measured) */
    uint64_t call_off;         /* the launching call's record, offset in the file; 0: not joined */
    const struct cutap_rec_gpu *g;   /* in the mapping */
};
/* The GPU records call c (of process p) launched: their count; the first
 * in *first. Its kernel name as recorded (mangled), or NULL. A copy's
 * kind ("HtoD", ...) from MEMCPY info. */
size_t tr_gpu_of(const struct tr_proc *p, const struct tr_call *c, const struct tr_gpu **first);
/* An environment lookup's time, realtime ns as calls'. */
uint64_t tr_env_ns(const struct tr_proc *p, const struct tr_env *e);

const char *tr_gpu_name(const struct tr_proc *p, const struct tr_gpu *x);
const char *tr_gpu_copy_kind(uint32_t info);
/* A copy's or memset's name as nsys writes it ("[CUDA memcpy HtoD]",
 * "[CUDA memset]"); NULL for a kernel. */
const char *tr_gpu_op(const struct tr_gpu *x);

struct tr_thread {
    uint32_t proc;
    int32_t tid;
    char name[16];
    uint32_t run0, nrun;       /* reader internal: its runs (trace.run_order from run0) */
    uint8_t had_run0;          /* reader internal: a run numbered 0 was seen (a later one is another
                                  thread that got the same tid: run numbers restart per thread) */
};

struct tr_name {
    char *name;
    int layer;                 /* CUTAP_LAYER_* (0 driver, 1 hidden, 2 runtime, ...): by name in
                                  version 4 files, else as recorded; a name this reader does not
                                  know gets a number from CUTAP_NLAYERS on */
    int sig_mixed;             /* ids of this name are described otherwise in some
                                  process (CUDA majors, issue #28): tr_call_sig */
    const char *sig;           /* version 4: its arguments as the file describes them,
                                  "k:name:type;..." (k one of i u p e f d s), or NULL */
    uint32_t text_len;         /* its length + 1 where text output writes it as it is (printable
                                  ASCII, no backslash: text_str escapes nothing), else 0 */
};
/* A layer by its name (version 4 files), and the name of such a layer this
 * reader does not know (NULL for the others). */
int tr_layer_by_name(const char *name);
const char *tr_layer_extra_name(int layer);

struct tr_range;
/* A call, or an NVTX range or mark entry, as the iterator returns it. */
struct tr_call {
    uint64_t t0, t1;           /* realtime ns; t1 = 0: unfinished */
    uint64_t seq;              /* load order: ties in time keep record order */
    uint32_t name;             /* index into names */
    uint32_t thread;           /* index into threads */
    uint64_t parent;           /* index + 1 of the entry returned before that this one ran inside, 0: none known */
    uint16_t depth;            /* nesting on the thread, NVTX ranges counted (= recorded depth without them) */
    uint8_t flags;             /* CUTAP_RF_* as recorded (those TR_RF_DISK_MASK lets through) */
    uint8_t rflags;            /* TR_RF_*: the reader's own, never from a file */
    int32_t object;            /* a runtime call reported through CUPTI by a copy cutap does not wrap:
                                  the name index of that copy's object (its path); -1: none */
    const struct cutap_rec_call *rec;   /* validated record in the mapping (an empty one for a range) */
    const struct tr_range *range;       /* TR_RF_RANGE entries: the range; NULL for a call */
};
/* 64 bytes, no padding: the formatting pool's blocks hold an entry a cache
 * line (issue #27: the reading thread's stores to them were a tenth of its
 * time) */
_Static_assert(sizeof(struct tr_call) == 64, "struct tr_call is one cache line");

/* NVTX ranges and marks (docs/FORMAT.md, "NVTX ranges"): the reader adds
 * an entry to calls for each range (a push and its pop, a start and its
 * end) and each mark, made from the recorded nvtx* calls. Such an entry
 * has TR_RF_RANGE (in rflags), the message as its name (layer TR_LAYER_RANGE or
 * TR_LAYER_MARK), t0 at the push/start, t1 at the end of the pop/end (0:
 * never ended; a mark: t1 = t0), and rec points to an empty record (no
 * argument words, no captures). A push/pop range is the parent of the
 * calls its thread made between push and pop at the push's depth (the push
 * and pop included) and of the ranges nested in it; one that does not nest
 * (a start/end range, or a push/pop that crossed a call's or another
 * range's boundary) has TR_RF_ASYNC and is nobody's parent. */
enum {
    TR_RF_RANGE = 1u << 7,     /* not a call: an NVTX range or mark */
    TR_RF_ASYNC = 1u << 6,     /* a range that does not nest on its thread */
};
/* The record flags a file may set (CUTAP_RF_*); the others are dropped
 * when a file is read. */
#define TR_RF_DISK_MASK (CUTAP_RF_DONE | CUTAP_RF_SKIPPED | CUTAP_RF_UNTYPED | CUTAP_RF_NOSTATUS | CUTAP_RF_INJECTED)
#define TR_LAYER_RANGE (-2)    /* tr_name.layer of range names: layer_str gives "range" */
#define TR_LAYER_MARK (-3)     /* marks: "mark" */
#define TR_LAYER_OBJECT (-4)   /* object paths (tr_call.object): "object" */
#define TR_MAX_OBJECTS 4096    /* object indices a file may name */
enum { TR_RANGE_PUSH = 1, TR_RANGE_START = 2, TR_RANGE_MARK = 3 };
struct tr_range {
    uint64_t draw_t1;          /* where a viewer ends it: t1, or for a range never ended the end
                                  of the call it was pushed in, else of its thread's last call */
    uint64_t domain;           /* NVTX domain handle in its process (0: the default domain) */
    uint8_t kind;              /* TR_RANGE_* */
    /* reader internals (tr_load) */
    uint8_t ended, in_stack, async;
    uint16_t depth;            /* recorded depth of the push/start */
    uint32_t name, thread;
    uint32_t below, outer;     /* while loading only: links of open ranges (range index + 1) */
    uint32_t next_on_thread;   /* the next range of its thread (index + 1), in stream order */
    uint64_t t0, seq, t1, end_seq;
    uint64_t push_parent;      /* entry number + 1 of the call the push ran inside (calls only) */
    uint64_t in_t1;            /* that call's end (0: none, or unfinished) */
};

/* A thread's counter of an id (counting mode). calls and errors count
 * every call; timed <= calls were timed (version 1 timed every call): min
 * and max are over those, total_ns is of all the calls, estimated from the
 * timed ones when timed < calls. */
struct tr_counter {
    uint32_t name, thread;
    uint64_t calls, errors, timed, total_ns, min_ns, max_ns;
};

/* Where a thread's call records lie: count call records from offset off
 * (a call record, or metas before one) up to end (the end of its chunk)
 * in file procs[proc]. runno: the thread's run number (chunk seq or THREAD
 * meta key); seq0: the load order number of its first call. */
struct tr_run {
    size_t off, end;
    uint64_t runno, seq0;
    uint32_t proc, thread, count;
};

struct trace {
    struct tr_proc *procs;
    size_t nprocs;
    struct tr_thread *threads;
    size_t nthreads;
    struct tr_name *names;
    size_t nnames;
    size_t ncalls;             /* entries a full iteration goes through: call records and NVTX
                                  entries, before -e/--from/--to (progress is counted on these) */
    struct tr_counter *counters;
    size_t ncounters;
    uint64_t origin_ns;        /* earliest process start: time 0 of dump/export */
    int problems;              /* files rejected or damaged (messages printed) */
    /* internal: capacities of the arrays above, (name, layer) -> index + 1 */
    size_t cap_procs, cap_threads, cap_names, cap_counters;
    uint32_t *name_hash;
    size_t name_hash_cap;
    struct tr_range *ranges;   /* what the TR_RF_RANGE entries point to */
    size_t nranges, cap_ranges;
    struct tr_run *runs;       /* in file order */
    size_t nruns, cap_runs;
    uint32_t *run_order;       /* runs by thread, run number, file order */
    uint32_t *place_order;     /* runs by thread, file order */
    uint32_t id_unknown;       /* name index + 1 of "id#?" (unnamed ids past a file's bound), 0: none */
    int threads_mixed;         /* threads of several processes added in any order (a follower) */
    /* selection (tr_select), applied by the iterator */
    uint8_t *name_keep;        /* per name: kept by the filter; NULL: every name */
    uint64_t sel_from, sel_to;
    uint64_t serial;           /* this trace's number among those this process made (tr_serial):
                                  caches keyed by a name's address tell a later trace's from it */
};
/* A number no trace of this process had before (1, 2, ...). */
uint64_t tr_serial(void);

/* The calls in time order (start, then load order; an NVTX range just
 * before the push or start it was made from), with what tr_select keeps:
 *
 *     struct tr_iter it;
 *     tr_iter_init(&it, tr, "dump");
 *     for (const struct tr_call *c; (c = tr_iter_next(&it));)
 *         ... it.index is c's number (0, 1, ...): parents name index + 1
 *     tr_iter_free(&it);
 *
 * The entry returned is valid until the next call. Memory: a cursor and a
 * stack of open calls per thread. Every 2^18 entries the files' pages are
 * dropped and, on a terminal, progress is shown, labelled with what. A
 * trace can be iterated any number of times. */
struct tr_cursor;
struct tr_rstate;
struct tr_iter {
    const struct trace *tr;
    const char *what;
    size_t index;              /* of the entry last returned */
    /* internal */
    size_t raw, kept;          /* entries merged so far (selected or not), returned so far */
    int mode;                  /* 0: ranges and selection; 1: calls only (loading NVTX ranges) */
    struct tr_cursor *cur;
    uint32_t *heap;
    size_t nheap;
    struct tr_rstate *rs;      /* per range */
    struct tr_call out;
    void *out_slot;            /* where out's own user word goes */
    uint64_t parent_user, parent_t1;
};
void tr_iter_init(struct tr_iter *it, const struct trace *tr, const char *what);
const struct tr_call *tr_iter_next(struct tr_iter *it);
/* The same, the entry made in *dst (returned; NULL at the end, *dst then
 * unspecified): for a caller that keeps entries, one copy fewer. */
const struct tr_call *tr_iter_next_into(struct tr_iter *it, struct tr_call *dst);
void tr_iter_free(struct tr_iter *it);
/* The same over one process's threads (procs[proc]): its entries alone,
 * numbered from 0 (it.index, parents) in that process; several such
 * iterations of one trace may run at once in different threads. */
void tr_iter_init_proc(struct tr_iter *it, const struct trace *tr, const char *what, size_t proc);
/* A word a command keeps with each entry, for the entries returned later
 * inside it: tr_iter_set_user sets the current entry's (default 0);
 * tr_iter_parent_user gives its parent's (0 without one). */
void tr_iter_set_user(struct tr_iter *it, uint64_t v);
static inline uint64_t tr_iter_parent_user(const struct tr_iter *it) { return it->parent_user; }

/* Following a trace directory while its processes write it (follow.c,
 * cutap trace --print): each poll reads what the files gained and hands
 * fn the calls that can be shown now, in time order: per thread in the
 * order they began, each once it completed (CALL), or never will (CALL
 * with t1 0: its end was lost, or its process or the command ended); a
 * call holding many later ones back is handed as STARTED (t1 0) and again
 * as RESUMED when it ends. final: the command ended (everything held is
 * handed). Returns non-zero when it read something (or has more to read
 * at once). Memory: the calls held, a few per thread. */
enum { TR_FOLLOW_CALL, TR_FOLLOW_STARTED, TR_FOLLOW_RESUMED };
struct tr_follow_out {
    struct tr_call call;       /* its rec points to a copy, valid during fn */
    int kind;
    uint8_t *copy;             /* internal */
};
typedef void (*tr_follow_fn)(void *arg, const struct trace *tr, const struct tr_follow_out *o);
struct tr_follow;
struct tr_follow *tr_follow_open(const char *dir, uint64_t origin_ns);
size_t tr_follow_poll(struct tr_follow *f, int final, tr_follow_fn fn, void *arg);
void tr_follow_close(struct tr_follow *f);

/* Loads a trace directory (every *.cutap in it) or one trace file. Prints
 * a message naming the file for each problem and goes on with the rest;
 * returns -1 when nothing could be read at all. */
int tr_load(struct trace *tr, const char *path);
/* Non-zero: loading and iterating say nothing on stderr (problems are
 * still counted): cutap trace --stuck's watchdog. */
extern int tr_quiet;
extern int tr_no_notes;   /* no note about rings, freezes and capture ranges (cutap ps) */
/* Non-zero: tr_load reads only a directory (not reached as a symbolic
 * link) and files (opened without following one) that the effective user
 * owns: cutap ps --pid, whose directory another user's process named. */
extern int tr_own_only;
void tr_free(struct trace *tr);
/* The threads a reader may use: CUTAP_THREADS where set, else the CPUs
 * the command may run on, at most dflt_max (cli/read/tables.c). */
long tr_threads(long dflt_max);
/* Drops the trace files' pages from memory (they are read again when
 * touched): the iterator calls it as it goes through long traces. */
void tr_release(const struct trace *tr);
/* Progress of a long command (the iterator calls it: i entries of
 * tr->ncalls passed): every 2^18 it releases the files' pages and, on a
 * terminal, shows how far it is on stderr; tr_progress_done erases that
 * line (tr_iter_next does at the end). */
void tr_progress(const struct trace *tr, size_t i, const char *what);
void tr_progress_done(const struct trace *tr);

/* For the fuzzer (tests/fuzz/fuzz_trace.c): a file of this path is read
 * from these bytes (exactly size of them, so that AddressSanitizer sees
 * any read past its end) instead of from the file system. */
extern struct tr_mem_file {
    const char *path;
    const uint8_t *data;
    size_t size;
} tr_mem_file;

/* Whether a directory entry's name is a trace file's (*.cutap). */
int tr_is_trace_name(const char *name);

/* Capture i of a call (0 .. rec->ncap-1); NULL when absent. The bytes
 * follow the header; the loader checked they lie inside the record. */
const struct cutap_capture *tr_capture(const struct tr_call *c, unsigned i);
/* The bytes of a call's record from its first argument word to the end of
 * its last capture (the loader checked they lie inside the record). */
size_t tr_payload_len(const struct tr_call *c);
/* A byte that text output writes as it is (util.c's text_str; tr_name's
 * text_len): printable ASCII but the backslash. */
#define TR_TEXT_PLAIN(c) ((c) >= 0x20 && (c) < 0x7f && (c) != '\\')
/* How the file describes a call's arguments ("k:name:type;..."): its id's
 * description in its process, where ids of one name are described
 * otherwise in the trace (two CUDA majors), else its name's; NULL: none. */
const char *tr_call_sig(const struct trace *tr, const struct tr_call *c);
/* The index of a name of a layer in tr->names, added when new (names the
 * commands make up, such as the ioctl layer's "RM_CONTROL(<command>)"). */
uint32_t tr_name_intern(struct trace *tr, const char *name, int layer);
/* The result of a call as recorded (0 for an NVTX range entry). */
static inline uint64_t tr_result(const struct tr_call *c) { return c->rec->result; }
/* The argument words of a call (rec->nargs of them). */
static inline const uint64_t *tr_args(const struct tr_call *c) { return c->rec->words; }
/* The range of a TR_RF_RANGE entry, NULL for a call. */
static inline const struct tr_range *tr_range_of(const struct tr_call *c)
{
    return c->range;
}
/* A string from the traced process (names, host, exe, ...) for text
 * output: control characters, bytes that are not UTF-8 (and the
 * backslash) as \xNN (\\), so no
 * escape sequence reaches a terminal. Writes at most size bytes with the
 * NUL (cut short if needed); returns the length written. */
size_t tr_escape(char *out, size_t size, const char *s);
/* One character of that: the escaped form of the character at p (at most 4
 * bytes, not NUL-terminated) and its length; *used: the bytes of p it took.
 * Well-formed UTF-8 stays as it is, but for the C1 controls (U+0080 to
 * U+009F); other bytes >= 0x7f and control characters become \xNN. */
size_t tr_escape_one(const unsigned char *p, char out[5], size_t *used);
/* Length of the well-formed UTF-8 sequence (2 to 4 bytes) at p, or 0. */
int tr_utf8_len(const unsigned char *p);
/* What a process lost (version 3 header: STOPPED, lost_calls, lost_names)
 * in words, e.g. "recording stopped early (No space left on device): 95000
 * calls not recorded"; returns 0 (buf untouched) when it lost nothing. */
int tr_loss_text(const struct tr_proc *p, char *buf, size_t size);
/* The native stack recorded for a call (--stack), innermost frame first:
 * the number of frames (0: none), *frames set. */
unsigned tr_call_stack(const struct trace *tr, const struct tr_call *c, const struct cutap_stack_frame **frames);
/* Version 5: what a ring, a freeze or capture control left out (not a
 * loss), in words; 0 when none was used. After the file's scan. */
int tr_window_text(const struct trace *tr, const struct tr_proc *p, char *buf, size_t size);
/* CUTAP_STOP_* as a word: "none", "space", "map", "limit", "other". */
const char *tr_stop_reason_str(uint32_t reason);

/* Iterations return only the calls FILTER selects (the -e language; NULL:
 * all) that start in [from_ns, to_ns] (realtime ns); the counters FILTER
 * does not select are dropped. NVTX ranges and marks are kept when they
 * start in the window. A kept call's parent becomes its nearest kept
 * caller and its depth drops by its callers left out, as if recorded with
 * that filter. Returns 0, -1 when out of memory. */
int tr_select(struct trace *tr, const char *filter, uint64_t from_ns, uint64_t to_ns);

/* Kernel name of a function handle in a process, or NULL. */
const char *tr_func_name(const struct tr_proc *p, uint64_t handle);

/* An environment lookup's asking object, its path ("?": not named in the
 * file). */
const char *tr_env_object(const struct trace *tr, const struct tr_proc *p, const struct tr_env *e);

#endif
