/* Loading a trace file: the header, the scan of every record (checked
 * where it is read), what the metas say; reading call records again. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cutap.h"
#include "read_internal.h"

/* The fields after an ID_NAME's name (version 4): the layer name and the
 * signature, each NUL-terminated within the record, else NULL. */
static void id_fields(const struct cutap_rec_meta *m, const char **ln, const char **sig)
{
    const char *end = (const char *)m + (size_t)m->nslots * CUTAP_SLOT;
    /* The text goes on past the member's 40 bytes, into the record's other
     * slots: walked through a plain pointer, not by indexing the array. */
    const char *text = (const char *)m + offsetof(struct cutap_rec_meta, text);
    const char *p = text + strlen(text) + 1;   /* the name's NUL is within the record: checked */
    const char *z = p < end ? memchr(p, 0, (size_t)(end - p)) : NULL;
    if (!z)
        return;
    *ln = p;
    p = z + 1;
    if (p < end && memchr(p, 0, (size_t)(end - p)))
        *sig = p;
}

/* The time of all the calls of a counter (timed <= calls), ns: exact when
 * every call was timed; else the calls timed exactly (their first calls,
 * slow ones) plus the countdown's samples scaled up to the calls timed by
 * neither (docs/FORMAT.md). Without samples (or with inconsistent ones: a
 * damaged file), total * calls / timed. */
static uint64_t counter_total_ns(const struct cutap_counter *k, double rate)
{
    uint64_t total = rd_ticks_to_ns(k->total, rate);
    if (k->timed >= k->calls)
        return total;
    if (!k->timed)
        return 0;
    if (!k->sampled)
        return rd_sat_add(total, rd_mul_div(rd_ticks_to_ns(k->min, rate), k->calls - k->timed, 1));
    if (k->sampled > k->timed || k->sampled_total > k->total)
        return rd_mul_div(total, k->calls, k->timed);
    uint64_t sampled = rd_ticks_to_ns(k->sampled_total, rate);
    uint64_t rest = k->calls - (k->timed - k->sampled);   /* calls not timed exactly */
    return rd_sat_add(total - sampled, rd_mul_div(sampled, rest, k->sampled));
}

static int is_pow2(uint32_t x) { return x && !(x & (x - 1)); }

static int cmp_func(const void *a, const void *b)
{
    uint64_t x = ((const struct tr_func *)a)->handle, y = ((const struct tr_func *)b)->handle;
    return x < y ? -1 : x > y;
}

const char *rd_header_problem(const struct cutap_file_header *h, char *why, size_t size)
{
    if (memcmp(h->magic, CUTAP_FILE_MAGIC, 8))
        return "not a cutap trace (bad magic)";
    if (h->version < CUTAP_FILE_VERSION_MIN || h->version > CUTAP_FILE_VERSION) {
        snprintf(why, size, "trace format version %u is not supported (this cutap reads versions %d to %d)",
                 h->version, CUTAP_FILE_VERSION_MIN, CUTAP_FILE_VERSION);
        return why;
    }
    if (h->header_size != CUTAP_HEADER_SIZE)
        return "bad header size";
    if (!is_pow2(h->chunk_size) || h->chunk_size < 4096 || h->chunk_size > (64u << 20))
        return "bad chunk size";
    if (h->clock != CUTAP_CLOCK_NS && h->clock != CUTAP_CLOCK_TSC)
        return "unknown clock kind";
    return NULL;
}

const char *tr_func_name(const struct tr_proc *p, uint64_t handle)
{
    struct tr_func key = {handle, NULL};
    const struct tr_func *f = p->nfuncs ? bsearch(&key, p->funcs, p->nfuncs, sizeof key, cmp_func) : NULL;
    return f ? f->name : NULL;
}

/* Checks that a call record's payload (args, then captures) lies inside its
 * slots. Returns NULL or what is wrong. */
const char *rd_check_call(const struct cutap_rec_call *r)
{
    size_t room = 24 + (size_t)CUTAP_SLOT * (r->nslots - 1u);
    size_t off = (size_t)r->nargs * 8;
    if (off > room)
        return "argument words beyond the record";
    const uint8_t *base = (const uint8_t *)r->words;
    for (unsigned k = 0; k < r->ncap; k++) {
        if (off + sizeof(struct cutap_capture) > room)
            return "capture header beyond the record";
        struct cutap_capture h;
        memcpy(&h, base + off, sizeof h);
        if (h.reserved % 8 || h.len > h.reserved || off + sizeof h + h.reserved > room)
            return "capture beyond the record";
        if (h.arg >= r->nargs)
            return "capture of a missing argument";
        off += sizeof h + h.reserved;
    }
    return NULL;
}

size_t tr_payload_len(const struct tr_call *c)
{
    const struct cutap_rec_call *r = c->rec;
    const struct cutap_capture *last = r->ncap ? tr_capture(c, r->ncap - 1u) : NULL;
    return last ? (size_t)((const uint8_t *)(last + 1) + last->reserved - (const uint8_t *)r->words)
                : (size_t)r->nargs * 8;
}

const struct cutap_capture *tr_capture(const struct tr_call *c, unsigned i)
{
    const struct cutap_rec_call *r = c->rec;
    if (i >= r->ncap)
        return NULL;
    const uint8_t *p = (const uint8_t *)r->words + (size_t)r->nargs * 8;
    for (unsigned k = 0; k < i; k++)
        p += sizeof(struct cutap_capture) + ((const struct cutap_capture *)p)->reserved;
    return (const struct cutap_capture *)p;
}

/* A file's counters as read, turned into tr->counters once the file's
 * names and tick rate are known (the end of its scan). */
struct raw_counter {
    struct cutap_counter k;
    uint64_t id;
    uint32_t thread;
};

static void raw_counter_add(struct raw_counter **v, size_t *n, size_t *cap, const struct cutap_counter *k, uint64_t id,
                            uint32_t ti)
{
    if (!k->calls)
        return;   /* counted nothing */
    *v = rd_grow(*v, cap, *n + 1, sizeof **v);
    (*v)[(*n)++] = (struct raw_counter){*k, id, ti};
}

/* Ids of call records whose name the file has not given (yet): noted with
 * this name1 while scanning, given "id#N" at the end. At most
 * MAX_UNNAMED_IDS per file (a damaged file can hold millions of distinct
 * ids); the ids past that are all named "id#?". */
#define ID_PENDING UINT32_MAX
#define MAX_UNNAMED_IDS 65536u

/* A version 2 counter as read (v1 converted), or 0 when it counted nothing. */
static void add_counter(struct trace *tr, const struct tr_proc *p, struct cutap_counter k, uint64_t id, uint32_t ti)
{
    if (!k.calls)
        return;
    if (k.timed > k.calls)
        k.timed = k.calls;   /* killed between the two stores (or damaged) */
    tr->counters = rd_grow(tr->counters, &tr->cap_counters, tr->ncounters + 1, sizeof *tr->counters);
    struct tr_counter *o = &tr->counters[tr->ncounters++];
    o->name = rd_id_name(tr, p, id);
    o->thread = ti;
    o->calls = k.calls;
    o->errors = k.errors;
    o->timed = k.timed;
    o->total_ns = counter_total_ns(&k, p->rate);
    o->min_ns = k.timed ? rd_ticks_to_ns(k.min, p->rate) : 0;
    o->max_ns = k.timed ? rd_ticks_to_ns(k.max, p->rate) : 0;
}

/* The scan drops the pages it has read every RELEASE_BYTES. */
#define RELEASE_BYTES ((size_t)16 << 20)

/* Drops the pages of a file's mapping from this process (they are read
 * again from the page cache when touched): what the reader and the
 * commands have passed over does not stay in memory. */
static void release_pages(const struct tr_proc *p)
{
    if (p->mapped)
        madvise((void *)p->map, p->size, MADV_DONTNEED);
}

void tr_release(const struct trace *tr)
{
    for (size_t i = 0; i < tr->nprocs; i++)
        release_pages(&tr->procs[i]);
}

/* The next call record of a run from *off (metas skipped), checked again
 * as it is read (the file may have changed since the scan: a trace being
 * written); NULL at the end of the chunk's records or at a bad record. */
const struct cutap_rec_call *rd_next_call_record(const struct tr_proc *p, size_t *off, size_t end)
{
    if (end > p->size)
        return NULL;
    while (*off + CUTAP_SLOT <= end) {
        const struct cutap_rec_call *r = (const void *)(p->map + *off);
        size_t room = (end - *off) / CUTAP_SLOT;
        if (!r->kind || (r->kind != CUTAP_REC_CALL && r->kind != CUTAP_REC_META) || !r->nslots || r->nslots > room)
            return NULL;
        if (r->kind == CUTAP_REC_CALL ? !rd_call_fits(r)
                                      : !memchr(((const struct cutap_rec_meta *)r)->text, 0,
                                                40 + (size_t)CUTAP_SLOT * (r->nslots - 1u)))
            return NULL;
        *off += (size_t)r->nslots * CUTAP_SLOT;
        if (r->kind == CUTAP_REC_CALL)
            return r;
    }
    return NULL;
}

/* The name index of a file's id (every id of a call record was given one
 * by the scan). */
uint32_t rd_id_lookup(const struct trace *tr, const struct tr_proc *p, uint32_t id)
{
    if (p->idcap) {
        const struct tr_idslot *s = rd_id_find(p, id);
        if (s->name1 && s->name1 != ID_PENDING)
            return s->name1 - 1;
    }
    return tr->id_unknown ? tr->id_unknown - 1 : 0;   /* 0: only if the file changed under us */
}

/* A call record (validated) as an entry. */
void rd_fill_call(const struct trace *tr, const struct tr_proc *p, const struct cutap_rec_call *r, uint32_t ti,
                      uint64_t seq, struct tr_call *o)
{
    rd_fill_call_named(p, r, ti, seq, rd_id_lookup(tr, p, r->id), o);
}

void rd_fill_call_named(const struct tr_proc *p, const struct cutap_rec_call *r, uint32_t ti,
                        uint64_t seq, uint32_t name, struct tr_call *o)
{
    int done = r->flags & CUTAP_RF_DONE;
    o->t0 = p->base_ns + rd_ticks_to_ns(r->t0 > p->clock0 ? r->t0 - p->clock0 : 0, p->rate);
    /* t1 by the same mapping as t0 (not t0 + duration): nested calls
     * keep ending no later than their parent. */
    o->t1 = done ? p->base_ns + rd_ticks_to_ns(r->t1 > p->clock0 && r->t1 >= r->t0 ? r->t1 - p->clock0 : 0, p->rate) : 0;
    if (done && o->t1 < o->t0)
        o->t1 = o->t0;
    o->seq = seq;
    o->name = name;
    o->thread = ti;
    o->parent = 0;
    o->rflags = 0;
    o->depth = r->depth;
    /* the flags the format defines; the reader's own (TR_RF_*) are in
     * rflags and never come from a file */
    o->flags = r->flags & TR_RF_DISK_MASK;
    o->rec = r;
    o->range = NULL;
    o->object = r->origin && r->origin - 1 < p->nobjects && p->objects[r->origin - 1]
                    ? (int32_t)(p->objects[r->origin - 1] - 1) : -1;
}

/* The next chunk from ci on whose first byte holds data (SEEK_DATA): a
 * sparse file's holes (zeros never written, which read as chunks never
 * taken) are skipped, not read. One lseek a chunk, not SEEK_HOLE for the
 * data's end: on a file just written (ext4's unwritten extents, tmpfs)
 * SEEK_HOLE walks the page cache to the end of the data, a few ms for
 * 200 MiB, and the scan's windows each asked again (issue #27: 3 to 4 %
 * of a dump). Without a file descriptor (or SEEK_DATA), every chunk
 * (*data_end then INT64_MAX). */
size_t rd_next_data_chunk(int fd, const struct cutap_file_header *h, size_t ci, size_t nchunks, off_t *data_end)
{
    for (;;) {
        off_t off = (off_t)h->header_size + (off_t)ci * h->chunk_size;
        if (fd < 0 || off < *data_end || ci >= nchunks)
            return ci;
        off_t d = lseek(fd, off, SEEK_DATA);
        if (d < 0) {
            if (errno == ENXIO)
                return nchunks;   /* only a hole is left */
            *data_end = INT64_MAX;   /* no SEEK_DATA here: read everything */
            return ci;
        }
        if (d == off)
            return ci;
        /* the chunk holding d, or the next one when d is past its start
         * (its header, at its start, is in the hole: never taken); if
         * that one starts past the data, look again from there */
        ci = (size_t)((d - h->header_size) / h->chunk_size);
        if ((off_t)h->header_size + (off_t)ci * h->chunk_size < d)
            ci++;
    }
}

/* A call record's id, noted while scanning: an id without a name gets a
 * pending entry (named at the end of the scan, when every ID_NAME of the
 * file has been seen). */
static void id_note(struct tr_proc *p, uint32_t id, size_t *nunnamed, int *overflow)
{
    struct tr_idslot *s = p->idcap ? rd_id_find(p, id) : NULL;
    if (s && s->name1) {
        s->used = 1;
        return;
    }
    if (*nunnamed >= MAX_UNNAMED_IDS) {
        *overflow = 1;
        return;
    }
    rd_id_put(p, id, ID_PENDING - 1);
    rd_id_find(p, id)->used = 1;
    ++*nunnamed;
}

static int cmp_stack(const void *a, const void *b)
{
    const struct tr_stack *x = a, *y = b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

unsigned tr_call_stack(const struct trace *tr, const struct tr_call *c, const struct cutap_stack_frame **frames)
{
    const struct tr_proc *p = &tr->procs[tr->threads[c->thread].proc];
    if (!p->nstacks || !c->rec)
        return 0;
    struct tr_stack key = {tr->threads[c->thread].tid, c->rec->id, 0, c->rec->t0, NULL};
    const struct tr_stack *s = bsearch(&key, p->stacks, p->nstacks, sizeof *p->stacks, cmp_stack);
    if (!s)
        return 0;
    *frames = s->frames;
    return s->nframes;
}

/* A meta record of p's file, other than THREAD (the caller's): an id's
 * name, a kernel's name, a layer's object, an object, a stack. own: the
 * strings it gives are copied (a follower's record copies do not stay),
 * else they point into the record (the mapping). p->funcs and p->stacks
 * are appended to: the caller sorts them (rd_sort_proc). */
void rd_meta(struct trace *tr, struct tr_proc *p, const struct cutap_rec_meta *m, int own)
{
    const struct cutap_file_header *h = &p->h;
    const struct cutap_rec_call *r = (const void *)m;
    if (m->sub == CUTAP_META_ID_NAME) {
        /* The layer as written (CUTAP_LAYER_*): a number this reader does
         * not know stays that number (printed as layer<N>), bounded to an
         * int. Version 4 also names it, and the name wins: a reader of
         * other tables reads it right. */
        int layer = m->key > INT_MAX ? INT_MAX : (int)m->key;
        const char *ln = NULL, *sig = NULL;
        if (h->version >= 4)
            id_fields(m, &ln, &sig);
        if (ln && *ln)
            layer = tr_layer_by_name(ln);
        uint32_t ni = rd_name_index(tr, m->text, layer);
        const char *kept = sig && *sig ? (own ? rd_keep(p, sig) : sig) : NULL;   /* NUL-terminated: checked */
        if (kept && !tr->names[ni].sig)
            tr->names[ni].sig = kept;
        else if (kept && strcmp(kept, tr->names[ni].sig))
            tr->names[ni].sig_mixed = 1;
        rd_id_put(p, m->aux, ni);
        rd_id_find(p, m->aux)->sig = kept;
    } else if (m->sub == CUTAP_META_FUNC_NAME) {
        p->funcs = rd_grow(p->funcs, &p->cap_funcs, p->nfuncs + 1, sizeof *p->funcs);
        p->funcs[p->nfuncs++] = (struct tr_func){m->key, own ? rd_keep(p, m->text) : m->text};
    } else if (m->sub == CUTAP_META_LAYER && m->aux >= CUTAP_LAYER_RUNTIME && m->aux < CUTAP_LAYER_COUNT) {
        p->layer_so[m->aux] = own ? rd_keep(p, m->text) : m->text;   /* NUL-terminated within the record: checked */
        p->layer_flags[m->aux] = (uint32_t)m->key;
    } else if (m->sub == CUTAP_META_OBJECT && m->aux < TR_MAX_OBJECTS) {
        if (m->aux >= p->nobjects) {
            size_t n = (size_t)m->aux + 1;
            p->objects = rd_xrealloc0(p->objects, p->nobjects, n, sizeof *p->objects);
            p->nobjects = n;
        }
        p->objects[m->aux] = rd_name_index(tr, m->text, TR_LAYER_OBJECT) + 1;
    } else if (m->sub == CUTAP_META_STACK && h->version >= 5) {
        /* head and frames within the record (its text reaches the record's end) */
        size_t room = 40 + (size_t)CUTAP_SLOT * (r->nslots - 1u);
        struct cutap_stack_head sh;
        if (room >= sizeof sh) {
            memcpy(&sh, m->text, sizeof sh);
            size_t fb = (size_t)sh.nframes * sizeof(struct cutap_stack_frame);
            if (sh.nframes <= (room - sizeof sh) / sizeof(struct cutap_stack_frame)) {
                const void *fr = m->text + sizeof sh;
                if (own) {
                    void *c = rd_keep_bytes(p, fr, fb);
                    fr = c;
                }
                p->stacks = rd_grow(p->stacks, &p->cap_stacks, p->nstacks + 1, sizeof *p->stacks);
                p->stacks[p->nstacks++] = (struct tr_stack){sh.tid, m->aux, sh.nframes, m->key,
                                                            (const struct cutap_stack_frame *)fr};
            }
        }
    }
}

/* p's kernel names and stacks sorted for lookup, after metas were added. */
void rd_sort_proc(struct tr_proc *p)
{
    if (p->nfuncs)
        qsort(p->funcs, p->nfuncs, sizeof *p->funcs, cmp_func);
    if (p->nstacks)
        qsort(p->stacks, p->nstacks, sizeof *p->stacks, cmp_stack);
}

/* A new run of thread ti's calls from offset off to its chunk's end
 * (count 0); its index. */
static size_t add_run(struct trace *tr, size_t off, size_t end, uint64_t runno, uint32_t pi, uint32_t ti)
{
    tr->runs = rd_grow(tr->runs, &tr->cap_runs, tr->nruns + 1, sizeof *tr->runs);
    tr->runs[tr->nruns] =
        (struct tr_run){.off = off, .end = end, .runno = runno, .seq0 = tr->ncalls, .proc = pi, .thread = ti};
    return tr->nruns++;
}

/* One pass over the chunks of a file: metas (names, kernels, clock
 * pairs), counters, and where each thread's call records lie (runs,
 * tr->runs). No call is kept: the iterator reads them from the mapping. */
static int scan_file(struct trace *tr, struct tr_proc *p, uint32_t pi, int fd)
{
    const struct cutap_file_header *h = &p->h;
    size_t nchunks = (p->size - h->header_size) / h->chunk_size;
    size_t slots = h->chunk_size / CUTAP_SLOT, nunnamed = 0;
    uint64_t far_clock = h->calib_clock, far_mono = h->calib_mono_ns;
    if (h->end_mono_ns > far_mono && h->end_clock) {
        far_clock = h->end_clock;
        far_mono = h->end_mono_ns;
    }
    struct raw_counter *rc = NULL;
    size_t nrc = 0, caprc = 0;
    int overflow = 0;
    off_t data_end = 0;
    size_t released = 0;   /* chunks before this one are dropped from memory */
    struct rd_prescan *ps = rd_prescan_start(p->map, h, fd, nchunks, RELEASE_BYTES / 4);
    for (size_t ci = 0; (ci = rd_next_data_chunk(fd, h, ci, nchunks, &data_end)) < nchunks; ci++) {
        const uint8_t *c = p->map + h->header_size + ci * h->chunk_size;
        if (p->mapped && (ci - released) * h->chunk_size >= RELEASE_BYTES) {
            /* the pages already read, every 16 MiB: a scan holds no more */
            size_t from = h->header_size + released * h->chunk_size;
            size_t pg = (size_t)sysconf(_SC_PAGESIZE), a = (from + pg - 1) / pg * pg;
            size_t e = (size_t)(c - p->map) / pg * pg;
            if (e > a)
                madvise((void *)(p->map + a), e - a, MADV_DONTNEED);
            released = ci;
            rd_read_progress(p, (size_t)(c - p->map));
        }
        const struct cutap_chunk_header *ch = (const void *)c;
        if (!ch->magic)
            continue;   /* taken but never filled in: the process died */
        if (ch->magic != CUTAP_CHUNK_MAGIC ||
            (ch->type != CUTAP_CHUNK_RECORDS && ch->type != CUTAP_CHUNK_COUNTERS &&
             (ch->type != CUTAP_CHUNK_COUNTER_ENTRIES || h->version < 3) &&
             ((ch->type != CUTAP_CHUNK_META && ch->type != CUTAP_CHUNK_GPU) || h->version < 5))) {
            rd_complain(tr, p->path, "chunk %zu: bad chunk header (magic %08x, type %u); chunk skipped", ci, ch->magic,
                     ch->type);
            continue;
        }
        if (ch->mono_ns > far_mono && ch->clock) {
            far_mono = ch->mono_ns;
            far_clock = ch->clock;
        }
        if (h->version >= 5)
            rd_gpu_take(p, ch->take, (size_t)(c - p->map));
        if (ch->type == CUTAP_CHUNK_GPU) {   /* issue #31: no thread's; read/gpu.c */
            rd_gpu_chunk(tr, p, c, slots, ci);
            continue;
        }
        char tname[16];
        memcpy(tname, ch->thread_name, sizeof tname);
        tname[15] = 0;
        if (ch->type == CUTAP_CHUNK_COUNTER_ENTRIES) {
            /* version 3: entries of any threads, two slots each from
             * slot 1; magic is stored last */
            for (size_t s = 1; s + 2 <= slots; s += 2) {
                struct cutap_counter_entry e;
                memcpy(&e, c + s * CUTAP_SLOT, sizeof e);
                if (e.magic != CUTAP_ENTRY_MAGIC)
                    continue;
                if (e.mono_ns > far_mono && e.clock) {
                    far_mono = e.mono_ns;
                    far_clock = e.clock;
                }
                char en[16];
                memcpy(en, e.thread_name, sizeof en);
                en[15] = 0;
                raw_counter_add(&rc, &nrc, &caprc, &e.c, e.id, rd_thread_index(tr, pi, e.tid, en));
            }
            continue;
        }
        uint64_t run = ch->seq;
        int meta_only = ch->type == CUTAP_CHUNK_META;   /* version 5: names of any thread, no calls */
        uint32_t ti = meta_only ? UINT32_MAX
                      : ch->type == CUTAP_CHUNK_RECORDS ? rd_thread_of_run(tr, pi, ch->tid, tname, run)
                                                      : rd_thread_index(tr, pi, ch->tid, tname);
        if (ch->type == CUTAP_CHUNK_COUNTERS) {
            /* version 1: 40-byte counters, every call timed */
            size_t size = h->version == 1 ? sizeof(struct cutap_counter_v1) : sizeof(struct cutap_counter);
            size_t n = (h->chunk_size - CUTAP_SLOT) / size;
            for (size_t i = 0; i < n; i++) {
                struct cutap_counter k = {0};
                memcpy(&k, c + CUTAP_SLOT + i * size, size);
                if (h->version == 1)
                    k.timed = k.calls;
                raw_counter_add(&rc, &nrc, &caprc, &k, (uint64_t)ch->first_id + i, ti);
            }
            continue;
        }
        size_t cur = SIZE_MAX;   /* the run this chunk's calls go to (index into tr->runs) */
        const struct rd_chunk_sum *sum = ps && ch->type == CUTAP_CHUNK_RECORDS ? rd_prescan_get(ps, ci) : NULL;
        if (sum) {   /* its calls all well formed (prescan.c): as the loop below would take them */
            for (unsigned k = 0; k < sum->nids; k++)
                id_note(p, sum->ids[k], &nunnamed, &overflow);
            if (sum->calls) {
                size_t at = (size_t)(c - p->map);
                size_t k = add_run(tr, at + (size_t)sum->first * CUTAP_SLOT, at + h->chunk_size, run, pi, ti);
                tr->runs[k].count = sum->calls;
                tr->ncalls += sum->calls;
            }
            continue;
        }
        for (size_t s = 1; s < slots;) {
            const struct cutap_rec_call *r = (const void *)(c + s * CUTAP_SLOT);
            if (!r->kind)
                break;
            const char *bad = NULL;
            if (r->kind != CUTAP_REC_CALL && r->kind != CUTAP_REC_META)
                bad = "unknown record kind";
            else if (!r->nslots || r->nslots > slots - s)
                bad = "record longer than its chunk";
            else if (r->kind == CUTAP_REC_CALL && meta_only)
                bad = "call record in a meta chunk";
            else if (r->kind == CUTAP_REC_CALL)
                bad = rd_check_call(r);
            else if (!memchr(((const struct cutap_rec_meta *)r)->text, 0, 40 + (size_t)CUTAP_SLOT * (r->nslots - 1u)))
                bad = "meta record without its terminating NUL";
            if (bad) {
                rd_complain(tr, p->path, "chunk %zu slot %zu: %s; rest of the chunk skipped", ci, s, bad);
                break;
            }
            if (r->kind == CUTAP_REC_META) {
                const struct cutap_rec_meta *m = (const void *)r;
                if (m->sub == CUTAP_META_ENV) {
                    if (ti != UINT32_MAX)
                        rd_env(p, m, ti);
                } else if (m->sub == CUTAP_META_GPU_CORR) {
                    rd_gpu_corr(p, m->aux, m->key);
                } else if (m->sub != CUTAP_META_THREAD) {
                    rd_meta(tr, p, m, 0);
                } else if (h->version >= 3 && !meta_only) {
                    /* version 3: the chunk passes to another thread */
                    char mn[16];
                    memcpy(mn, m->text, sizeof mn - 1);   /* NUL-terminated within nslots: checked */
                    mn[sizeof mn - 1] = 0;
                    run = m->key;
                    ti = rd_thread_of_run(tr, pi, (int32_t)m->aux, mn, run);
                    cur = SIZE_MAX;
                }
            } else {
                id_note(p, r->id, &nunnamed, &overflow);
                if (cur == SIZE_MAX || tr->runs[cur].count == UINT32_MAX)
                    cur = add_run(tr, (size_t)((const uint8_t *)r - p->map), (size_t)(c - p->map) + h->chunk_size,
                                  run, pi, ti);
                tr->runs[cur].count++;
                tr->ncalls++;
            }
            s += r->nslots;
        }
    }
    /* Tick rate from the two pairs farthest apart. */
    if (h->clock == CUTAP_CLOCK_TSC && far_clock > h->start_clock && far_mono > h->start_mono_ns)
        p->rate = (double)(far_mono - h->start_mono_ns) / (double)(far_clock - h->start_clock);
    else if (h->clock == CUTAP_CLOCK_TSC) {
        TR_ERR("cutap: %s: no second clock reading; times assume 1 tick = 1 ns\n", p->path);
        p->rate = 1.0;
    } else
        p->rate = 1.0;
    p->clock0 = h->start_clock;
    p->base_ns = h->start_realtime_ns;
    rd_sort_proc(p);
    rd_gpu_join(p);
    /* names for the ids the file used but never named; the layers its
     * calls are of */
    for (size_t k = 0; k < p->idcap; k++) {
        if (p->idmap[k].name1 == ID_PENDING) {
            char s[32];
            snprintf(s, sizeof s, "id#%u", p->idmap[k].id);
            p->idmap[k].name1 = rd_name_index(tr, s, 0) + 1;
        }
        if (p->idmap[k].name1 && p->idmap[k].used) {
            int layer = tr->names[p->idmap[k].name1 - 1].layer;
            p->call_layers |= layer == CUTAP_LAYER_DRIVER ? 1 : layer == CUTAP_LAYER_RUNTIME ? 2 : 0;
        }
    }
    if (overflow)
        p->call_layers |= 1;   /* "id#?" is of layer 0 */
    if (overflow && !tr->id_unknown)
        tr->id_unknown = rd_name_index(tr, "id#?", 0) + 1;
    for (size_t i = 0; i < nrc; i++)
        add_counter(tr, p, rc[i].k, rc[i].id, rc[i].thread);
    free(rc);
    rd_prescan_stop(ps);
    release_pages(p);   /* what the scan read is not kept in memory */
    return 0;
}

struct tr_mem_file tr_mem_file;

/* On stderr: the layers of a process bound to a library of another major
 * than the pinned headers (CUTAP_META_LAYER): typed by that major's
 * headers where the generators had them (issue #28), else untyped. */
static void note_other_majors(const struct tr_proc *p)
{
    int n = 0;
    for (int l = CUTAP_LAYER_RUNTIME; l < CUTAP_LAYER_COUNT; l++) {
        if (!p->layer_so[l] || !(p->layer_flags[l] & CUTAP_LAYER_OTHER_MAJOR))
            continue;
        char so[4 * 64];
        tr_escape(so, sizeof so, p->layer_so[l]);
        if (!n++)
            TR_ERR("cutap: note: process %d: %s", (int)p->h.pid, so);
        else
            TR_ERR(", %s", so);
    }
    if (n)
        TR_ERR(" %s of another CUDA major than cutap's pinned headers: %s calls are typed from that major's "
               "headers where cutap has them, the others recorded untyped (raw register words; dump marks "
               "them)\n", n > 1 ? "are" : "is", n > 1 ? "their" : "its");
}

/* A ring file (version 5), whose process may still be writing (CLOSED is
 * set at exit while other threads may still run: every ring file): its ring
 * chunks are cleared and reused while we read. Read into memory instead,
 * chunk by chunk; a chunk whose header (magic, take) changed while it was
 * copied is dropped (zeroed: the scan skips it), so a record is either
 * one the process wrote or absent, never a mix. NULL: not enough memory. */
static uint8_t *ring_copy(int fd, size_t size, uint32_t cs)
{
    uint8_t *buf = malloc(size);
    if (!buf)
        return NULL;
    if (pread(fd, buf, CUTAP_HEADER_SIZE, 0) != CUTAP_HEADER_SIZE) {
        free(buf);
        return NULL;
    }
    size_t off = CUTAP_HEADER_SIZE;
    for (; off + cs <= size; off += cs) {
        struct cutap_chunk_header after;
        if (pread(fd, buf + off, cs, (off_t)off) != (ssize_t)cs ||
            pread(fd, &after, sizeof after, (off_t)off) != (ssize_t)sizeof after)
            break;
        if (memcmp(buf + off, &after, sizeof after))
            memset(buf + off, 0, cs);
    }
    memset(buf + off, 0, size - off);
    return buf;
}

/* Lets go of a file rd_load_file will not keep: its mapping or copy, its
 * descriptor (only when it opened them: owned). */
static void drop_file(int owned, const uint8_t *map, uint8_t *copied, size_t size, int fd)
{
    if (!owned)
        return;
    if (copied)
        free(copied);
    else
        munmap((void *)map, size);
    close(fd);
}

int rd_load_file(struct trace *tr, const char *path)
{
    const uint8_t *map;
    size_t size;
    int fd = -1, owned = 1;
    uint8_t *copied = NULL;   /* a live ring file's copy (map), freed with the trace */
    if (tr_mem_file.path && !strcmp(path, tr_mem_file.path)) {
        /* a file in memory (the fuzzer's): read where it lies */
        map = tr_mem_file.data;
        size = tr_mem_file.size;
        owned = 0;
        if (size < CUTAP_HEADER_SIZE) {
            rd_complain(tr, path, "not a cutap trace (%zu bytes, shorter than the header)", size);
            return -1;
        }
    } else {
        /* O_NONBLOCK: a FIFO named *.cutap must not block the open (it is
         * then refused as not a regular file); no effect on regular files. */
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (tr_own_only ? O_NOFOLLOW : 0));
        if (fd < 0) {
            if (tr_own_only && errno == ELOOP)
                rd_complain(tr, path, "a symbolic link: not followed");
            else
                rd_complain(tr, path, "cannot open: %s", strerror(errno));
            return -1;
        }
        struct stat st;
        if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
            rd_complain(tr, path, "not a regular file");
            close(fd);
            return -1;
        }
        if (tr_own_only && st.st_uid != geteuid()) {
            rd_complain(tr, path, "belongs to another user: not read");
            close(fd);
            return -1;
        }
        if (st.st_size == 0) {
            /* made, but its process ended before the header was written */
            TR_ERR("cutap: %s: empty trace file (no header); skipped\n", path);
            close(fd);
            return -1;
        }
        if ((size_t)st.st_size < CUTAP_HEADER_SIZE) {
            rd_complain(tr, path, "not a cutap trace (%lld bytes, shorter than the header)", (long long)st.st_size);
            close(fd);
            return -1;
        }
        size = (size_t)st.st_size;
        map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            rd_complain(tr, path, "cannot map: %s", strerror(errno));
            close(fd);
            return -1;
        }
        const struct cutap_file_header *hp = (const void *)map;
        if (!memcmp(hp->magic, CUTAP_FILE_MAGIC, 8) && hp->version >= 5 && hp->version <= CUTAP_FILE_VERSION &&
            hp->ring_chunks && hp->chunk_size >= 4096 &&
            hp->chunk_size <= (64u << 20) && !(hp->chunk_size & (hp->chunk_size - 1))) {
            uint8_t *copy = ring_copy(fd, size, hp->chunk_size);
            if (copy) {
                munmap((void *)map, size);
                map = copy;
                copied = copy;
            }
        }
    }
    struct cutap_file_header h;
    memcpy(&h, map, sizeof h);
    const char *bad = NULL;
    char why[160];
    static const char zero[8];
    if (!memcmp(h.magic, zero, 8)) {
        /* made, but its process ended before the header was written */
        TR_ERR("cutap: %s: empty trace file (no header); skipped\n", path);
        drop_file(owned, map, copied, size, fd);
        return -1;
    }
    bad = rd_header_problem(&h, why, sizeof why);
    if (bad) {
        rd_complain(tr, path, "%s", bad);
        drop_file(owned, map, copied, size, fd);
        return -1;
    }
    h.host[sizeof h.host - 1] = 0;
    h.exe[sizeof h.exe - 1] = 0;
    h.cmdline[sizeof h.cmdline - 1] = 0;
    h.cutap_version[sizeof h.cutap_version - 1] = 0;
    h.gpu_why[sizeof h.gpu_why - 1] = 0;
    if (h.version < 3) {
        /* the loss fields are version 3's: older headers have other bytes there */
        h.flags &= ~(uint32_t)CUTAP_FILE_STOPPED;
        h.stop_errno = 0;
        h.stop_reason = 0;
        h.stop_clock = h.lost_calls = h.lost_names = 0;
    }
    if (h.version < 5) {
        /* the flight recorder's and capture control's fields are version 5's */
        size_t from = offsetof(struct cutap_file_header, ring_chunks);
        memset((char *)&h + from, 0, sizeof h - from);
    }
    tr->procs = rd_grow(tr->procs, &tr->cap_procs, tr->nprocs + 1, sizeof *tr->procs);
    struct tr_proc *p = &tr->procs[tr->nprocs];
    memset(p, 0, sizeof *p);
    p->path = strdup(path);
    p->h = h;
    p->map = map;
    p->size = size;
    p->mapped = owned && !copied;
    p->copy = copied;
    p->complete = !!(h.flags & CUTAP_FILE_CLOSED);
    if ((p->size - h.header_size) % h.chunk_size)
        rd_complain(tr, path, "size is not a whole number of chunks; the partial chunk is ignored");
    tr->nprocs++;
    char loss[256];
    if (tr_loss_text(p, loss, sizeof loss)) {
        char host[4 * sizeof h.host];
        tr_escape(host, sizeof host, h.host);
        TR_ERR("cutap: warning: process %d (%s): %s\n", h.pid, host, loss);
    }
    int rc = scan_file(tr, p, (uint32_t)(tr->nprocs - 1), fd);
    if (fd >= 0)
        close(fd);
    char win[512];
    if (!tr_no_notes && tr_window_text(tr, &tr->procs[tr->nprocs - 1], win, sizeof win)) {
        char host[4 * sizeof h.host];
        tr_escape(host, sizeof host, h.host);
        TR_ERR("cutap: note: process %d (%s): %s\n", h.pid, host, win);
    }
    note_other_majors(&tr->procs[tr->nprocs - 1]);
    return rc;
}
