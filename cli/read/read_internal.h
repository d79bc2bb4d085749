/* What the reader's files (cli/read/) offer one another; the commands see
 * only trace_read.h. Which file holds what:
 *   tables.c  names and layers, a file's ids, threads, stderr, arrays, progress
 *   load.c    a trace file: header, the scan of its records, reading a call again
 *   text.c    UTF-8, escaping, the texts of losses, windows and stop reasons
 *   nvtx.c    NVTX ranges and marks from the nvtx* calls
 *   iter.c    the calls in time order, with parents and depths
 *   trace.c   a trace directory (tr_load, tr_free) and selection at read time
 *   follow.c  a trace directory followed while it is written (tr_follow_*) */
#ifndef CUTAP_READ_INTERNAL_H
#define CUTAP_READ_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "trace_read.h"

/* What the reader says on stderr; nothing at all while tr_quiet is set. */
#define TR_ERR(...)                           \
    do {                                      \
        if (!tr_quiet)                        \
            fprintf(stderr, __VA_ARGS__);     \
    } while (0)

/* --- tables.c ----------------------------------------------------------- */

/* A problem with a file: said on stderr (unless tr_quiet), counted. */
void rd_complain(struct trace *tr, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* p grown (doubling, from 64) to hold need elements; out of memory ends the command. */
void *rd_grow(void *p, size_t *cap, size_t need, size_t elem);
/* gpu.c: a GPU chunk's records; a chunk's take (for the join); the join
 * once the file was read; freeing. */
void rd_gpu_chunk(struct trace *tr, struct tr_proc *p, const uint8_t *c, size_t slots, size_t ci);
void rd_gpu_take(struct tr_proc *p, uint64_t take, size_t off);
void rd_gpu_corr(struct tr_proc *p, uint32_t correlation, uint64_t ext);
void rd_gpu_join(struct tr_proc *p);
void rd_gpu_free(struct tr_proc *p);
/* realloc to n elements, the new ones zeroed; out of memory ends the command. */
void *rd_xrealloc0(void *p, size_t oldn, size_t n, size_t size);
/* calloc of at least one element; out of memory ends the command. */
void *rd_alloc0(size_t n, size_t size);
/* Index of a (name, layer) in tr->names, added if new. */
uint32_t rd_name_index(struct trace *tr, const char *name, int layer);
/* A file's id -> name table (p->idmap): the slot of id (empty if absent),
 * naming id, and the name index of id ("id#N" when never named). */
struct tr_idslot *rd_id_find(const struct tr_proc *p, uint32_t id);
void rd_id_put(struct tr_proc *p, uint32_t id, uint32_t name);
uint32_t rd_id_name(struct trace *tr, const struct tr_proc *p, uint64_t id);
/* The thread of (proc, tid), added if new; and the thread a run numbered
 * runno of that tid belongs to (a second run 0: a new thread, the tid reused). */
uint32_t rd_thread_index(struct trace *tr, uint32_t proc, int32_t tid, const char *tname);
uint32_t rd_thread_of_run(struct trace *tr, uint32_t proc, int32_t tid, const char *tname, uint64_t runno);
/* While reading: the bytes of the file read so far, on a terminal. */
void rd_read_progress(const struct tr_proc *p, size_t at);

/* --- load.c ------------------------------------------------------------- */

/* Bytes kept with p until tr_free (a follower's copies of what metas
 * point to): a string, or n bytes. */
struct tr_kept {
    struct tr_kept *next;
    max_align_t bytes[];
};
const char *rd_keep(struct tr_proc *p, const char *s);
void *rd_keep_bytes(struct tr_proc *p, const void *b, size_t n);
/* NULL, or what makes a file header unreadable to this cutap (why: room
 * for a message with numbers). */
const char *rd_header_problem(const struct cutap_file_header *h, char *why, size_t size);
/* A meta record (not THREAD) into tr and p; own: its strings copied. */
void rd_meta(struct trace *tr, struct tr_proc *p, const struct cutap_rec_meta *m, int own);
void rd_env(struct tr_proc *p, const struct cutap_rec_meta *m, uint32_t ti);
/* p's kernel names and stacks sorted for lookup (after rd_meta added some). */
void rd_sort_proc(struct tr_proc *p);
/* NULL, or what is wrong with a call record's payload (checked against its nslots). */
const char *rd_check_call(const struct cutap_rec_call *r);
/* Whether rd_check_call finds nothing wrong, the layouts of most records
 * (no capture, or one) checked inline: the scan and the iteration check
 * every record (issue #27). r->nslots is not 0. */
static inline int rd_call_fits(const struct cutap_rec_call *r)
{
    if (r->ncap > 1)
        return !rd_check_call(r);
    size_t room = 24 + (size_t)CUTAP_SLOT * (r->nslots - 1u), off = (size_t)r->nargs * 8;
    if (!r->ncap)
        return off <= room;
    struct cutap_capture h;
    if (off + sizeof h > room)
        return 0;
    memcpy(&h, (const uint8_t *)r->words + off, sizeof h);
    return !(h.reserved % 8) && h.len <= h.reserved && off + sizeof h + h.reserved <= room && h.arg < r->nargs;
}
/* Reads one trace file into tr (a process); 0, or -1 with the problem said. */
int rd_load_file(struct trace *tr, const char *path);
/* The next call record of a run from *off, checked again; NULL at the end
 * of the chunk's records or at a bad record. */
const struct cutap_rec_call *rd_next_call_record(const struct tr_proc *p, size_t *off, size_t end);
/* The name index of a file's id as loaded (an id never named: tr->id_unknown). */
uint32_t rd_id_lookup(const struct trace *tr, const struct tr_proc *p, uint32_t id);
/* A call record (validated) as an entry of thread ti, numbered seq. */
void rd_fill_call(const struct trace *tr, const struct tr_proc *p, const struct cutap_rec_call *r, uint32_t ti,
                  uint64_t seq, struct tr_call *o);
/* The same with its name index known (rd_id_lookup of r->id). */
void rd_fill_call_named(const struct tr_proc *p, const struct cutap_rec_call *r, uint32_t ti,
                        uint64_t seq, uint32_t name, struct tr_call *o);

#define MAX_TREE_DEPTH 256   /* deeper calls get no parent (iter.c); ranges there are async (nvtx.c) */

/* --- nvtx.c, iter.c ----------------------------------------------------- */

/* Makes tr->ranges from the nvtx* calls (before any command's iteration). */
void rd_build_ranges(struct trace *tr);
/* An iteration; mode 1: the calls alone, parents from depths (no ranges). */
void rd_iter_start(struct tr_iter *it, const struct trace *tr, const char *what, int mode);

/* The next chunk from ci whose first byte holds data (SEEK_DATA; fd < 0:
 * every chunk); *data_end 0 at first (INT64_MAX once SEEK_DATA failed). */
size_t rd_next_data_chunk(int fd, const struct cutap_file_header *h, size_t ci, size_t nchunks, off_t *data_end);

/* --- prescan.c: the scan's record chunks summarised on two threads ------ */

#define RD_SUM_IDS 32
struct rd_chunk_sum {          /* a record chunk whose records are all well-formed calls */
    uint32_t calls, first;     /* its call records; the slot of the first */
    uint8_t fast;              /* 1: this summary; 0: the scan reads the chunk record by record */
    uint8_t nids;
    uint32_t ids[RD_SUM_IDS];  /* the ids of its calls, in order of first use */
};
struct rd_prescan;
/* Summaries of a file's chunks made ahead by a helper, in windows of
 * window_bytes; NULL where that cannot gain (one CPU, CUTAP_THREADS=1, a
 * file of one window) or cannot start: the scan reads every chunk itself. */
struct rd_prescan *rd_prescan_start(const uint8_t *map, const struct cutap_file_header *h, int fd, size_t nchunks,
                                    size_t window_bytes);
/* Chunk ci's summary (chunks asked for in increasing order), or NULL:
 * read it record by record. */
const struct rd_chunk_sum *rd_prescan_get(struct rd_prescan *ps, size_t ci);
void rd_prescan_stop(struct rd_prescan *ps);

/* --- arithmetic on a file's numbers (a damaged file must not overflow) -- */

/* Clock units to ns, saturating. */
static inline uint64_t rd_ticks_to_ns(uint64_t ticks, double rate)
{
    double ns = (double)ticks * rate + 0.5;
    return ns >= 1.8e19 ? (uint64_t)1.8e19 : (uint64_t)ns;
}

static inline uint64_t rd_sat_add(uint64_t a, uint64_t b)
{
    return a + b < a ? UINT64_MAX : a + b;
}

/* a * b / d, rounded, saturating; d > 0 */
static inline uint64_t rd_mul_div(uint64_t a, uint64_t b, uint64_t d)
{
    unsigned __int128 x = ((unsigned __int128)a * b + d / 2) / d;
    return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

#endif
