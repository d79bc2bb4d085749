/* Reading trace directories (include/cutap_format.h, docs/FORMAT.md) into
 * memory: processes, threads, names, calls and counters of every file.
 * Files are mapped read-only; call records point into the mappings. Every
 * check a corrupt or foreign file could fail is made here, once: the
 * commands built on this never see an out-of-bounds record. */
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
};

struct tr_thread {
    uint32_t proc;
    int32_t tid;
    char name[16];
};

struct tr_name {
    char *name;
    int layer;                 /* CUTAP_LAYER_* (0 driver, 1 hidden, 2 runtime, ...): by name in
                                  version 4 files, else as recorded; a name this reader does not
                                  know gets a number from CUTAP_LAYER_COUNT on */
    const char *sig;           /* version 4: its arguments as the file describes them,
                                  "k:name:type;..." (k one of i u p e f d s), or NULL */
};
/* A layer by its name (version 4 files), and the name of such a layer this
 * reader does not know (NULL for the others). */
int tr_layer_by_name(const char *name);
const char *tr_layer_extra_name(int layer);

struct tr_call {
    uint64_t t0, t1;           /* realtime ns; t1 = 0: unfinished */
    uint64_t seq;              /* load order: ties in time keep record order */
    uint32_t name;             /* index into names */
    uint32_t thread;           /* index into threads */
    uint32_t parent;           /* index + 1 of the call this one ran inside, 0: none known */
    uint16_t depth;            /* nesting on the thread, NVTX ranges counted (= recorded depth without them) */
    uint8_t flags;             /* CUTAP_RF_* as recorded (those TR_RF_DISK_MASK lets through) */
    uint8_t rflags;            /* TR_RF_*: the reader's own, never from a file */
    const struct cutap_rec_call *rec;   /* validated record in the mapping */
};

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
#define TR_RF_DISK_MASK (CUTAP_RF_DONE | CUTAP_RF_SKIPPED | CUTAP_RF_UNTYPED | CUTAP_RF_NOSTATUS)
#define TR_LAYER_RANGE (-2)    /* tr_name.layer of range names: layer_str gives "range" */
#define TR_LAYER_MARK (-3)     /* marks: "mark" */
enum { TR_RANGE_PUSH = 1, TR_RANGE_START = 2, TR_RANGE_MARK = 3 };
struct tr_range {
    struct cutap_rec_call rec; /* what the entry's rec points to: empty */
    uint64_t draw_t1;          /* where a viewer ends it: t1, or for a range never ended the end
                                  of the call it was pushed in, else of its thread's last call */
    uint64_t domain;           /* NVTX domain handle in its process (0: the default domain) */
    uint8_t kind;              /* TR_RANGE_* */
    /* reader internals */
    uint8_t ended, in_stack, async;
    uint16_t depth;            /* recorded depth of the push/start */
    uint32_t name, thread, call, below, outer;
    uint64_t t1, end_seq;
};

/* A thread's counter of an id (counting mode). calls and errors count
 * every call; timed <= calls were timed (version 1 timed every call): min
 * and max are over those, total_ns is of all the calls, estimated from the
 * timed ones when timed < calls. */
struct tr_counter {
    uint32_t name, thread;
    uint64_t calls, errors, timed, total_ns, min_ns, max_ns;
};

struct trace {
    struct tr_proc *procs;
    size_t nprocs;
    struct tr_thread *threads;
    size_t nthreads;
    struct tr_name *names;
    size_t nnames;
    struct tr_call *calls;     /* sorted by t0, then seq */
    size_t ncalls;
    struct tr_counter *counters;
    size_t ncounters;
    uint64_t origin_ns;        /* earliest process start: time 0 of dump/export */
    int problems;              /* files rejected or damaged (messages printed) */
    /* internal: capacities of the arrays above, (name, layer) -> index + 1 */
    size_t cap_procs, cap_threads, cap_names, cap_calls, cap_counters;
    uint32_t *name_hash;
    size_t name_hash_cap;
    struct tr_range *ranges;   /* what the TR_RF_RANGE entries of calls point to */
    size_t nranges;
};

/* Loads a trace directory (every *.cutap in it) or one trace file. Prints
 * a message naming the file for each problem and goes on with the rest;
 * returns -1 when nothing could be read at all. */
int tr_load(struct trace *tr, const char *path);
void tr_free(struct trace *tr);
/* Drops the trace files' pages from memory (they are read again when
 * touched): commands call it as they go through long traces. */
void tr_release(const struct trace *tr);
/* Commands going through the calls call this for each (i: its index,
 * what: the command): every 2^18 calls it releases the files' pages and,
 * on a terminal, shows how far it is on stderr; tr_progress_done erases
 * that line. */
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
/* The result of a call as recorded (0 for an NVTX range entry). */
static inline uint64_t tr_result(const struct tr_call *c) { return c->rec->result; }
/* The argument words of a call (rec->nargs of them). */
static inline const uint64_t *tr_args(const struct tr_call *c) { return c->rec->words; }
/* The range of a TR_RF_RANGE entry, NULL for a call. */
static inline const struct tr_range *tr_range_of(const struct tr_call *c)
{
    return c->rflags & TR_RF_RANGE ? (const struct tr_range *)(const void *)c->rec : NULL;
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
/* CUTAP_STOP_* as a word: "none", "space", "map", "limit", "other". */
const char *tr_stop_reason_str(uint32_t reason);

/* Keeps only the calls FILTER selects (the -e language; NULL: all) that
 * start in [from_ns, to_ns] (realtime ns), and the counters FILTER
 * selects; NVTX ranges and marks are kept when they start in the window.
 * A kept call's parent becomes its nearest kept caller and its depth
 * drops by its callers left out, as if recorded with that filter.
 * Returns 0, -1 when out of memory. */
int tr_select(struct trace *tr, const char *filter, uint64_t from_ns, uint64_t to_ns);

/* Kernel name of a function handle in a process, or NULL. */
const char *tr_func_name(const struct tr_proc *p, uint64_t handle);

#endif
