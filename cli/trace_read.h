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
    uint32_t *idmap;           /* file id -> name index; UINT32_MAX unnamed */
    uint32_t nids;
    struct tr_func *funcs;     /* sorted by handle */
    size_t nfuncs;
    int complete;              /* CLOSED flag: reached exit */
};

struct tr_thread {
    uint32_t proc;
    int32_t tid;
    char name[16];
};

struct tr_name {
    char *name;
    int layer;                 /* CUTAP_LAYER_* (0 driver, 1 hidden) */
};

struct tr_call {
    uint64_t t0, t1;           /* realtime ns; t1 = 0: unfinished */
    uint64_t result;
    uint64_t seq;              /* load order: ties in time keep record order */
    uint32_t name;             /* index into names */
    uint32_t thread;           /* index into threads */
    uint32_t parent;           /* index + 1 of the call this one ran inside, 0: none known */
    uint16_t depth;
    uint8_t flags;             /* CUTAP_RF_* */
    const struct cutap_rec_call *rec;   /* validated record in the mapping */
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
};

/* Loads a trace directory (every *.cutap in it) or one trace file. Prints
 * a message naming the file for each problem and goes on with the rest;
 * returns -1 when nothing could be read at all. */
int tr_load(struct trace *tr, const char *path);
void tr_free(struct trace *tr);

/* Whether a directory entry's name is a trace file's (*.cutap). */
int tr_is_trace_name(const char *name);

/* Capture i of a call (0 .. rec->ncap-1); NULL when absent. The bytes
 * follow the header; the loader checked they lie inside the record. */
const struct cutap_capture *tr_capture(const struct tr_call *c, unsigned i);
/* The argument words of a call (rec->nargs of them). */
static inline const uint64_t *tr_args(const struct tr_call *c) { return c->rec->words; }
/* Kernel name of a function handle in a process, or NULL. */
const char *tr_func_name(const struct tr_proc *p, uint64_t handle);

#endif
