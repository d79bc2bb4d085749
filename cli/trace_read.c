/* Trace reader: see trace_read.h. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cutap.h"   /* CUTAP_LAYER_DRIVER, CUTAP_LAYER_RUNTIME */
#include "filter_expr.h"
#include "trace_read.h"


static void complain(struct trace *tr, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int tr_quiet;
int tr_no_notes;
int tr_own_only;
/* What the reader says on stderr; nothing at all while tr_quiet is set. */
#define TR_ERR(...)                           \
    do {                                      \
        if (!tr_quiet)                        \
            fprintf(stderr, __VA_ARGS__);     \
    } while (0)

static void complain(struct trace *tr, const char *path, const char *fmt, ...)
{
    if (tr_quiet) {
        tr->problems++;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    char p[1024];
    tr_escape(p, sizeof p, path);   /* a file name holds the traced host's name */
    TR_ERR("cutap: %s: ", p);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    tr->problems++;
}

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(p, n * elem);
    if (!q) {
        TR_ERR("cutap: out of memory\n");
        exit(1);
    }
    *cap = n;
    return q;
}


/* realloc to n elements, the new ones zeroed; out of memory ends the command. */
static void *xrealloc0(void *p, size_t oldn, size_t n, size_t size)
{
    void *q = realloc(p, n * size);
    if (!q) {
        TR_ERR("cutap: out of memory\n");
        exit(1);
    }
    memset((char *)q + oldn * size, 0, (n - oldn) * size);
    return q;
}

static size_t name_hash_of(const char *name, int layer)
{
    size_t h = 1469598103934665603u ^ (size_t)layer;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 1099511628211u;
    return h;
}

/* Index of a (name, layer), added if new. A hash table: a damaged file
 * can name a million ids. */
/* Layers by name (format version 4): this reader's (CUTAP_LAYER_NAMES),
 * then names it does not know, numbered from CUTAP_NLAYERS on, for
 * the life of the command (layer_str prints them). */
static uint32_t name_index(struct trace *tr, const char *name, int layer);
static char *extra_layers[64];
static unsigned nextra_layers;

int tr_layer_by_name(const char *name)
{
    static const char *const names[] = CUTAP_LAYER_NAMES;
    for (int l = 0; l < CUTAP_NLAYERS; l++)
        if (!strcmp(names[l], name))
            return l;
    for (unsigned i = 0; i < nextra_layers; i++)
        if (!strcmp(extra_layers[i], name))
            return CUTAP_NLAYERS + (int)i;
    if (nextra_layers == sizeof extra_layers / sizeof *extra_layers || !(extra_layers[nextra_layers] = strdup(name)))
        return CUTAP_NLAYERS + (int)(sizeof extra_layers / sizeof *extra_layers);   /* printed as layer<N> */
    return CUTAP_NLAYERS + (int)nextra_layers++;
}

uint32_t tr_name_intern(struct trace *tr, const char *name, int layer)
{
    return name_index(tr, name, layer);
}

const char *tr_layer_extra_name(int layer)
{
    unsigned i = (unsigned)(layer - CUTAP_NLAYERS);
    return layer >= CUTAP_NLAYERS && i < nextra_layers ? extra_layers[i] : NULL;
}

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

static uint32_t name_index(struct trace *tr, const char *name, int layer)
{
    if ((tr->nnames + 1) * 2 > tr->name_hash_cap) {
        size_t cap = tr->name_hash_cap ? tr->name_hash_cap * 2 : 1024;
        uint32_t *h = calloc(cap, sizeof *h);
        if (!h) {
            TR_ERR("cutap: out of memory\n");
            exit(1);
        }
        for (size_t i = 0; i < tr->nnames; i++) {
            size_t k = name_hash_of(tr->names[i].name, tr->names[i].layer) & (cap - 1);
            while (h[k])
                k = (k + 1) & (cap - 1);
            h[k] = (uint32_t)i + 1;
        }
        free(tr->name_hash);
        tr->name_hash = h;
        tr->name_hash_cap = cap;
    }
    size_t k = name_hash_of(name, layer) & (tr->name_hash_cap - 1);
    for (; tr->name_hash[k]; k = (k + 1) & (tr->name_hash_cap - 1)) {
        const struct tr_name *n = &tr->names[tr->name_hash[k] - 1];
        if (n->layer == layer && !strcmp(n->name, name))
            return tr->name_hash[k] - 1;
    }
    tr->names = grow(tr->names, &tr->cap_names, tr->nnames + 1, sizeof *tr->names);
    tr->names[tr->nnames].name = strdup(name);
    tr->names[tr->nnames].layer = layer;
    tr->names[tr->nnames].sig = NULL;
    if (!tr->names[tr->nnames].name) {
        TR_ERR("cutap: out of memory\n");
        exit(1);
    }
    tr->name_hash[k] = (uint32_t)tr->nnames + 1;
    return (uint32_t)tr->nnames++;
}

/* A file's id -> name index: a hash table of the ids its ID_NAME records
 * name (not an array indexed by id: a file naming id 4,000,000,000 must
 * cost what it holds, one entry). */
static size_t id_hash(uint32_t id, size_t cap) { return (size_t)((id * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1); }

static struct tr_idslot *id_find(const struct tr_proc *p, uint32_t id)
{
    size_t k = id_hash(id, p->idcap);
    while (p->idmap[k].name1 && p->idmap[k].id != id)
        k = (k + 1) & (p->idcap - 1);
    return &p->idmap[k];
}

static void id_put(struct tr_proc *p, uint32_t id, uint32_t name)
{
    if ((p->nids + 1) * 2 > p->idcap) {
        size_t cap = p->idcap ? p->idcap * 2 : 64;
        struct tr_idslot *old = p->idmap;
        size_t ocap = p->idcap;
        p->idmap = calloc(cap, sizeof *p->idmap);
        if (!p->idmap) {
            TR_ERR("cutap: out of memory\n");
            exit(1);
        }
        p->idcap = cap;
        for (size_t i = 0; i < ocap; i++)
            if (old[i].name1)
                *id_find(p, old[i].id) = old[i];
        free(old);
    }
    struct tr_idslot *s = id_find(p, id);
    if (!s->name1)
        p->nids++;
    s->id = id;
    s->name1 = name + 1;
}

/* The name index of a file's id; "id#N" when the file never named it. */
static uint32_t id_name(struct trace *tr, const struct tr_proc *p, uint64_t id)
{
    const struct tr_idslot *slot = id <= UINT32_MAX && p->idcap ? id_find(p, (uint32_t)id) : NULL;
    if (slot && slot->name1)
        return slot->name1 - 1;
    char s[32];
    snprintf(s, sizeof s, "id#%llu", (unsigned long long)id);
    return name_index(tr, s, 0);
}

static uint32_t thread_new(struct trace *tr, uint32_t proc, int32_t tid, const char *tname);

static uint32_t thread_index(struct trace *tr, uint32_t proc, int32_t tid, const char *tname)
{
    for (size_t i = tr->nthreads; i-- > 0;) {   /* the latest thread of that tid */
        if (tr->threads[i].proc != proc)
            break;   /* threads of one process are added together */
        if (tr->threads[i].tid == tid)
            return (uint32_t)i;
    }
    return thread_new(tr, proc, tid, tname);
}

/* The thread a run of records (a chunk header's seq, a THREAD meta's key)
 * belongs to. Run numbers restart at 0 for every thread, so a second run 0
 * of a tid is a thread that got the tid of one that had exited (the
 * kernel reuses them): a thread of its own, or the two threads' runs would
 * interleave out of time order. */
static uint32_t thread_of_run(struct trace *tr, uint32_t proc, int32_t tid, const char *tname, uint64_t runno)
{
    uint32_t i = thread_index(tr, proc, tid, tname);
    if (runno == 0) {
        if (tr->threads[i].had_run0)
            i = thread_new(tr, proc, tid, tname);
        tr->threads[i].had_run0 = 1;
    }
    return i;
}

static uint32_t thread_new(struct trace *tr, uint32_t proc, int32_t tid, const char *tname)
{
    tr->threads = grow(tr->threads, &tr->cap_threads, tr->nthreads + 1, sizeof *tr->threads);
    struct tr_thread *t = &tr->threads[tr->nthreads];
    t->proc = proc;
    t->tid = tid;
    memcpy(t->name, tname, sizeof t->name);
    t->name[sizeof t->name - 1] = 0;
    t->run0 = t->nrun = 0;   /* its runs: order_runs */
    t->had_run0 = 0;
    return (uint32_t)tr->nthreads++;
}

/* Clock units to ns, saturating (a damaged file must not overflow). */
static uint64_t ticks_to_ns(uint64_t ticks, double rate)
{
    double ns = (double)ticks * rate + 0.5;
    return ns >= 1.8e19 ? (uint64_t)1.8e19 : (uint64_t)ns;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a + b < a ? UINT64_MAX : a + b;
}

/* a * b / d, rounded, saturating; d > 0 */
static uint64_t mul_div(uint64_t a, uint64_t b, uint64_t d)
{
    unsigned __int128 x = ((unsigned __int128)a * b + d / 2) / d;
    return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

/* The time of all the calls of a counter (timed <= calls), ns: exact when
 * every call was timed; else the calls timed exactly (their first calls,
 * slow ones) plus the countdown's samples scaled up to the calls timed by
 * neither (docs/FORMAT.md). Without samples (or with inconsistent ones: a
 * damaged file), total * calls / timed. */
static uint64_t counter_total_ns(const struct cutap_counter *k, double rate)
{
    uint64_t total = ticks_to_ns(k->total, rate);
    if (k->timed >= k->calls)
        return total;
    if (!k->timed)
        return 0;
    if (!k->sampled)
        return sat_add(total, mul_div(ticks_to_ns(k->min, rate), k->calls - k->timed, 1));
    if (k->sampled > k->timed || k->sampled_total > k->total)
        return mul_div(total, k->calls, k->timed);
    uint64_t sampled = ticks_to_ns(k->sampled_total, rate);
    uint64_t rest = k->calls - (k->timed - k->sampled);   /* calls not timed exactly */
    return sat_add(total - sampled, mul_div(sampled, rest, k->sampled));
}

static int is_pow2(uint32_t x) { return x && !(x & (x - 1)); }

static int cmp_func(const void *a, const void *b)
{
    uint64_t x = ((const struct tr_func *)a)->handle, y = ((const struct tr_func *)b)->handle;
    return x < y ? -1 : x > y;
}

const char *tr_func_name(const struct tr_proc *p, uint64_t handle)
{
    struct tr_func key = {handle, NULL};
    const struct tr_func *f = p->nfuncs ? bsearch(&key, p->funcs, p->nfuncs, sizeof key, cmp_func) : NULL;
    return f ? f->name : NULL;
}

/* Checks that a call record's payload (args, then captures) lies inside its
 * slots. Returns NULL or what is wrong. */
static const char *check_call(const struct cutap_rec_call *r)
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
    *v = grow(*v, cap, *n + 1, sizeof **v);
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
    tr->counters = grow(tr->counters, &tr->cap_counters, tr->ncounters + 1, sizeof *tr->counters);
    struct tr_counter *o = &tr->counters[tr->ncounters++];
    o->name = id_name(tr, p, id);
    o->thread = ti;
    o->calls = k.calls;
    o->errors = k.errors;
    o->timed = k.timed;
    o->total_ns = counter_total_ns(&k, p->rate);
    o->min_ns = k.timed ? ticks_to_ns(k.min, p->rate) : 0;
    o->max_ns = k.timed ? ticks_to_ns(k.max, p->rate) : 0;
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

/* Progress of a long command: every 2^18 calls, the trace files' pages
 * are dropped from memory (tr_release) and, when stderr is a terminal, a
 * progress line is drawn (and erased by tr_progress_done). */
static int progress_shown;

void tr_progress(const struct trace *tr, size_t i, const char *what)
{
    if (i & ((1u << 18) - 1) || !i)
        return;
    tr_release(tr);
    if (isatty(2) && !tr_quiet) {
        TR_ERR("\rcutap: %s: %zu of %zu calls (%zu%%) ", what, i, tr->ncalls,
                tr->ncalls ? i * 100 / tr->ncalls : 100);
        progress_shown = 1;
    }
}

void tr_progress_done(const struct trace *tr)
{
    (void)tr;
    if (progress_shown)
        fputs("\r\033[K", stderr);
    progress_shown = 0;
}

/* While reading: the bytes of the file read so far, on a terminal. */
static void read_progress(const struct tr_proc *p, size_t at)
{
    if (!isatty(2) || tr_quiet)
        return;
    char path[256];
    tr_escape(path, sizeof path, p->path);
    TR_ERR("\rcutap: reading %s: %zu of %zu MiB ", path, at >> 20, p->size >> 20);
    progress_shown = 1;
}

/* The next call record of a run from *off (metas skipped), checked again
 * as it is read (the file may have changed since the scan: a trace being
 * written); NULL at the end of the chunk's records or at a bad record. */
static const struct cutap_rec_call *next_call_record(const struct tr_proc *p, size_t *off, size_t end)
{
    if (end > p->size)
        return NULL;
    while (*off + CUTAP_SLOT <= end) {
        const struct cutap_rec_call *r = (const void *)(p->map + *off);
        size_t room = (end - *off) / CUTAP_SLOT;
        if (!r->kind || (r->kind != CUTAP_REC_CALL && r->kind != CUTAP_REC_META) || !r->nslots || r->nslots > room)
            return NULL;
        if (r->kind == CUTAP_REC_CALL ? check_call(r) != NULL
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
static uint32_t id_lookup(const struct trace *tr, const struct tr_proc *p, uint32_t id)
{
    if (p->idcap) {
        const struct tr_idslot *s = id_find(p, id);
        if (s->name1 && s->name1 != ID_PENDING)
            return s->name1 - 1;
    }
    return tr->id_unknown ? tr->id_unknown - 1 : 0;   /* 0: only if the file changed under us */
}

/* A call record (validated) as an entry. */
static void fill_call(const struct trace *tr, const struct tr_proc *p, const struct cutap_rec_call *r, uint32_t ti,
                      uint64_t seq, struct tr_call *o)
{
    int done = r->flags & CUTAP_RF_DONE;
    o->t0 = p->base_ns + ticks_to_ns(r->t0 > p->clock0 ? r->t0 - p->clock0 : 0, p->rate);
    /* t1 by the same mapping as t0 (not t0 + duration): nested calls
     * keep ending no later than their parent. */
    o->t1 = done ? p->base_ns + ticks_to_ns(r->t1 > p->clock0 && r->t1 >= r->t0 ? r->t1 - p->clock0 : 0, p->rate) : 0;
    if (done && o->t1 < o->t0)
        o->t1 = o->t0;
    o->seq = seq;
    o->name = id_lookup(tr, p, r->id);
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

/* The next chunk from ci on whose first byte holds data (SEEK_DATA), with
 * *data_end the end of that data: a sparse file's holes (zeros never
 * written, which read as chunks never taken) are skipped, not read.
 * Without a file descriptor (or SEEK_DATA), every chunk. */
static size_t next_data_chunk(int fd, const struct cutap_file_header *h, size_t ci, size_t nchunks, off_t *data_end)
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
        off_t e = lseek(fd, d, SEEK_HOLE);
        *data_end = e < 0 ? INT64_MAX : e;
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
    struct tr_idslot *s = p->idcap ? id_find(p, id) : NULL;
    if (s && s->name1) {
        s->used = 1;
        return;
    }
    if (*nunnamed >= MAX_UNNAMED_IDS) {
        *overflow = 1;
        return;
    }
    id_put(p, id, ID_PENDING - 1);
    id_find(p, id)->used = 1;
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

/* One pass over the chunks of a file: metas (names, kernels, clock
 * pairs), counters, and where each thread's call records lie (runs,
 * tr->runs). No call is kept: the iterator reads them from the mapping. */
static int scan_file(struct trace *tr, struct tr_proc *p, uint32_t pi, int fd)
{
    const struct cutap_file_header *h = &p->h;
    size_t nchunks = (p->size - h->header_size) / h->chunk_size;
    size_t slots = h->chunk_size / CUTAP_SLOT, nfunc_cap = 0, nunnamed = 0, nstack_cap = 0;
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
    for (size_t ci = 0; (ci = next_data_chunk(fd, h, ci, nchunks, &data_end)) < nchunks; ci++) {
        const uint8_t *c = p->map + h->header_size + ci * h->chunk_size;
        if (p->mapped && (ci - released) * h->chunk_size >= RELEASE_BYTES) {
            /* the pages already read, every 16 MiB: a scan holds no more */
            size_t from = h->header_size + released * h->chunk_size;
            size_t pg = (size_t)sysconf(_SC_PAGESIZE), a = (from + pg - 1) / pg * pg;
            size_t e = (size_t)(c - p->map) / pg * pg;
            if (e > a)
                madvise((void *)(p->map + a), e - a, MADV_DONTNEED);
            released = ci;
            read_progress(p, (size_t)(c - p->map));
        }
        const struct cutap_chunk_header *ch = (const void *)c;
        if (!ch->magic)
            continue;   /* taken but never filled in: the process died */
        if (ch->magic != CUTAP_CHUNK_MAGIC ||
            (ch->type != CUTAP_CHUNK_RECORDS && ch->type != CUTAP_CHUNK_COUNTERS &&
             (ch->type != CUTAP_CHUNK_COUNTER_ENTRIES || h->version < 3) &&
             (ch->type != CUTAP_CHUNK_META || h->version < 5))) {
            complain(tr, p->path, "chunk %zu: bad chunk header (magic %08x, type %u); chunk skipped", ci, ch->magic,
                     ch->type);
            continue;
        }
        if (ch->mono_ns > far_mono && ch->clock) {
            far_mono = ch->mono_ns;
            far_clock = ch->clock;
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
                raw_counter_add(&rc, &nrc, &caprc, &e.c, e.id, thread_index(tr, pi, e.tid, en));
            }
            continue;
        }
        uint64_t run = ch->seq;
        int meta_only = ch->type == CUTAP_CHUNK_META;   /* version 5: names of any thread, no calls */
        uint32_t ti = meta_only ? UINT32_MAX
                      : ch->type == CUTAP_CHUNK_RECORDS ? thread_of_run(tr, pi, ch->tid, tname, run)
                                                      : thread_index(tr, pi, ch->tid, tname);
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
                bad = check_call(r);
            else if (!memchr(((const struct cutap_rec_meta *)r)->text, 0, 40 + (size_t)CUTAP_SLOT * (r->nslots - 1u)))
                bad = "meta record without its terminating NUL";
            if (bad) {
                complain(tr, p->path, "chunk %zu slot %zu: %s; rest of the chunk skipped", ci, s, bad);
                break;
            }
            if (r->kind == CUTAP_REC_META) {
                const struct cutap_rec_meta *m = (const void *)r;
                if (m->sub == CUTAP_META_ID_NAME) {
                    /* The layer as written (CUTAP_LAYER_*): a number
                     * this reader does not know stays that number
                     * (printed as layer<N>), bounded to an int.
                     * Version 4 also names it, and the name wins: a
                     * reader of other tables reads it right. */
                    int layer = m->key > INT_MAX ? INT_MAX : (int)m->key;
                    const char *ln = NULL, *sig = NULL;
                    if (h->version >= 4)
                        id_fields(m, &ln, &sig);
                    if (ln && *ln)
                        layer = tr_layer_by_name(ln);
                    uint32_t ni = name_index(tr, m->text, layer);
                    if (sig && *sig && !tr->names[ni].sig)
                        tr->names[ni].sig = sig;   /* in the mapping, NUL-terminated: checked */
                    id_put(p, m->aux, ni);
                } else if (m->sub == CUTAP_META_FUNC_NAME) {
                    p->funcs = grow(p->funcs, &nfunc_cap, p->nfuncs + 1, sizeof *p->funcs);
                    p->funcs[p->nfuncs++] = (struct tr_func){m->key, m->text};
                } else if (m->sub == CUTAP_META_LAYER && m->aux >= CUTAP_LAYER_RUNTIME && m->aux < CUTAP_LAYER_COUNT) {
                    p->layer_so[m->aux] = m->text;   /* NUL-terminated within the record: checked */
                    p->layer_flags[m->aux] = (uint32_t)m->key;
                } else if (m->sub == CUTAP_META_OBJECT && m->aux < TR_MAX_OBJECTS) {
                    if (m->aux >= p->nobjects) {
                        size_t n = (size_t)m->aux + 1;
                        p->objects = xrealloc0(p->objects, p->nobjects, n, sizeof *p->objects);
                        p->nobjects = n;
                    }
                    p->objects[m->aux] = name_index(tr, m->text, TR_LAYER_OBJECT) + 1;
                } else if (m->sub == CUTAP_META_STACK && h->version >= 5) {
                    /* head and frames within the record (its text reaches the record's end) */
                    size_t room = 40 + (size_t)CUTAP_SLOT * (r->nslots - 1u);
                    struct cutap_stack_head sh;
                    if (room >= sizeof sh) {
                        memcpy(&sh, m->text, sizeof sh);
                        if (sh.nframes <= (room - sizeof sh) / sizeof(struct cutap_stack_frame)) {
                            p->stacks = grow(p->stacks, &nstack_cap, p->nstacks + 1, sizeof *p->stacks);
                            p->stacks[p->nstacks++] = (struct tr_stack){
                                sh.tid, m->aux, sh.nframes, m->key,
                                (const struct cutap_stack_frame *)(const void *)(m->text + sizeof sh)};
                        }
                    }
                } else if (m->sub == CUTAP_META_THREAD && h->version >= 3 && !meta_only) {
                    /* version 3: the chunk passes to another thread */
                    char mn[16];
                    memcpy(mn, m->text, sizeof mn - 1);   /* NUL-terminated within nslots: checked */
                    mn[sizeof mn - 1] = 0;
                    run = m->key;
                    ti = thread_of_run(tr, pi, (int32_t)m->aux, mn, run);
                    cur = SIZE_MAX;
                }
            } else {
                id_note(p, r->id, &nunnamed, &overflow);
                if (cur == SIZE_MAX || tr->runs[cur].count == UINT32_MAX) {
                    tr->runs = grow(tr->runs, &tr->cap_runs, tr->nruns + 1, sizeof *tr->runs);
                    cur = tr->nruns++;
                    tr->runs[cur] = (struct tr_run){.off = (size_t)((const uint8_t *)r - p->map),
                                                    .end = (size_t)(c - p->map) + h->chunk_size,
                                                    .runno = run,
                                                    .seq0 = tr->ncalls,
                                                    .proc = pi,
                                                    .thread = ti};
                }
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
    if (p->nfuncs)
        qsort(p->funcs, p->nfuncs, sizeof *p->funcs, cmp_func);
    if (p->nstacks)
        qsort(p->stacks, p->nstacks, sizeof *p->stacks, cmp_stack);
    /* names for the ids the file used but never named; the layers its
     * calls are of */
    for (size_t k = 0; k < p->idcap; k++) {
        if (p->idmap[k].name1 == ID_PENDING) {
            char s[32];
            snprintf(s, sizeof s, "id#%u", p->idmap[k].id);
            p->idmap[k].name1 = name_index(tr, s, 0) + 1;
        }
        if (p->idmap[k].name1 && p->idmap[k].used) {
            int layer = tr->names[p->idmap[k].name1 - 1].layer;
            p->call_layers |= layer == CUTAP_LAYER_DRIVER ? 1 : layer == CUTAP_LAYER_RUNTIME ? 2 : 0;
        }
    }
    if (overflow)
        p->call_layers |= 1;   /* "id#?" is of layer 0 */
    if (overflow && !tr->id_unknown)
        tr->id_unknown = name_index(tr, "id#?", 0) + 1;
    for (size_t i = 0; i < nrc; i++)
        add_counter(tr, p, rc[i].k, rc[i].id, rc[i].thread);
    free(rc);
    release_pages(p);   /* what the scan read is not kept in memory */
    return 0;
}

struct tr_mem_file tr_mem_file;

/* On stderr: the layers of a process bound to a library of another major
 * than the headers cutap's signatures come from (CUTAP_META_LAYER), whose
 * calls are recorded untyped: arguments as raw register words. */
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
        TR_ERR(" %s not of the CUDA major cutap's signatures come from: %s calls are recorded untyped, "
                        "arguments shown as raw register words\n",
                n > 1 ? "are" : "is", n > 1 ? "their" : "its");
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

static int load_file(struct trace *tr, const char *path)
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
            complain(tr, path, "not a cutap trace (%zu bytes, shorter than the header)", size);
            return -1;
        }
    } else {
        /* O_NONBLOCK: a FIFO named *.cutap must not block the open (it is
         * then refused as not a regular file); no effect on regular files. */
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (tr_own_only ? O_NOFOLLOW : 0));
        if (fd < 0) {
            if (tr_own_only && errno == ELOOP)
                complain(tr, path, "a symbolic link: not followed");
            else
                complain(tr, path, "cannot open: %s", strerror(errno));
            return -1;
        }
        struct stat st;
        if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
            complain(tr, path, "not a regular file");
            close(fd);
            return -1;
        }
        if (tr_own_only && st.st_uid != geteuid()) {
            complain(tr, path, "belongs to another user: not read");
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
            complain(tr, path, "not a cutap trace (%lld bytes, shorter than the header)", (long long)st.st_size);
            close(fd);
            return -1;
        }
        size = (size_t)st.st_size;
        map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            complain(tr, path, "cannot map: %s", strerror(errno));
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
        if (owned) {
            if (copied)
                free(copied);
            else
                munmap((void *)map, size);
            close(fd);
        }
        return -1;
    }
    if (memcmp(h.magic, CUTAP_FILE_MAGIC, 8))
        bad = "not a cutap trace (bad magic)";
    else if (h.version < CUTAP_FILE_VERSION_MIN || h.version > CUTAP_FILE_VERSION) {
        snprintf(why, sizeof why, "trace format version %u is not supported (this cutap reads versions %d to %d)",
                 h.version, CUTAP_FILE_VERSION_MIN, CUTAP_FILE_VERSION);
        bad = why;
    } else if (h.header_size != CUTAP_HEADER_SIZE)
        bad = "bad header size";
    else if (!is_pow2(h.chunk_size) || h.chunk_size < 4096 || h.chunk_size > (64u << 20))
        bad = "bad chunk size";
    else if (h.clock != CUTAP_CLOCK_NS && h.clock != CUTAP_CLOCK_TSC)
        bad = "unknown clock kind";
    if (bad) {
        complain(tr, path, "%s", bad);
        if (owned) {
            if (copied)
                free(copied);
            else
                munmap((void *)map, size);
            close(fd);
        }
        return -1;
    }
    h.host[sizeof h.host - 1] = 0;
    h.exe[sizeof h.exe - 1] = 0;
    h.cmdline[sizeof h.cmdline - 1] = 0;
    h.cutap_version[sizeof h.cutap_version - 1] = 0;
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
    tr->procs = grow(tr->procs, &tr->cap_procs, tr->nprocs + 1, sizeof *tr->procs);
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
        complain(tr, path, "size is not a whole number of chunks; the partial chunk is ignored");
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

/* Length of the well-formed UTF-8 sequence of 2 to 4 bytes at p (RFC 3629:
 * no overlong forms, no surrogates, nothing above U+10FFFF), or 0. */
int tr_utf8_len(const unsigned char *p)
{
    int n = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3 : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
    unsigned lo = p[0] == 0xe0 ? 0xa0 : p[0] == 0xf0 ? 0x90 : 0x80;
    unsigned hi = p[0] == 0xed ? 0x9f : p[0] == 0xf4 ? 0x8f : 0xbf;
    if (!n || p[1] < lo || p[1] > hi)
        return 0;
    for (int i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)   /* also stops at the NUL */
            return 0;
    return n;
}

size_t tr_escape_one(const unsigned char *p, char out[5], size_t *used)
{
    int n;
    if (*p >= 0x80 && (n = tr_utf8_len(p)) && !(p[0] == 0xc2 && p[1] < 0xa0)) {
        memcpy(out, p, (size_t)n);   /* UTF-8, but not the C1 controls U+0080..U+009F */
        *used = (size_t)n;
        return (size_t)n;
    }
    *used = 1;
    if (*p < 0x20 || *p >= 0x7f)
        return (size_t)snprintf(out, 5, "\\x%02x", *p);
    if (*p == '\\') {
        memcpy(out, "\\\\", 2);
        return 2;
    }
    out[0] = (char)*p;
    return 1;
}

size_t tr_escape(char *out, size_t size, const char *s)
{
    size_t n = 0, used;
    char one[5];
    for (const unsigned char *q = (const unsigned char *)s; *q; q += used) {
        size_t k = tr_escape_one(q, one, &used);
        if (n + k >= size)
            break;
        memcpy(out + n, one, k);
        n += k;
    }
    if (size)
        out[n] = 0;
    return n;
}

/* What a process lost (version 3 header), in words; 0 when nothing. */
int tr_loss_text(const struct tr_proc *p, char *buf, size_t size)
{
    const struct cutap_file_header *h = &p->h;
    int stopped = !!(h->flags & CUTAP_FILE_STOPPED);
    if (!stopped && !h->lost_calls && !h->lost_names)
        return 0;
    size_t n = 0;
    buf[0] = 0;
#define ADD(...) (n += n < size ? (size_t)snprintf(buf + n, size - n, __VA_ARGS__) : 0)
    if (stopped) {
        const char *why = h->stop_reason == CUTAP_STOP_SPACE   ? "the file could not be extended"
                          : h->stop_reason == CUTAP_STOP_MAP   ? "a segment could not be mapped"
                          : h->stop_reason == CUTAP_STOP_LIMIT ? "the file reached cutap's size limit"
                          : h->stop_reason == CUTAP_STOP_FILE  ? "the program closed cutap's descriptor of the file"
                                                               : NULL;
        ADD("recording stopped early");
        if (h->stop_errno > 0 && h->stop_errno < 4096)
            ADD(" (%s)", strerror(h->stop_errno));
        else if (why)
            ADD(" (%s)", why);
    }
    if (h->lost_calls)
        ADD("%s%llu call%s not recorded", stopped ? ": " : "", (unsigned long long)h->lost_calls,
            h->lost_calls == 1 ? "" : "s");
    if (h->lost_names)
        ADD("%s%llu kernel name%s not recorded", stopped || h->lost_calls ? ", " : "",
            (unsigned long long)h->lost_names, h->lost_names == 1 ? "" : "s");
#undef ADD
    return 1;
}

/* What a version 5 file's flight recorder and capture control left out,
 * in words; 0 when neither was used. Not a loss: what the user asked for. */
int tr_window_text(const struct trace *tr, const struct tr_proc *p, char *buf, size_t size)
{
    const struct cutap_file_header *h = &p->h;
    if (!h->ring_chunks && !h->freeze_clock && !h->capture)
        return 0;
    size_t n = 0;
    buf[0] = 0;
#define ADD(...) (n += n < size ? (size_t)snprintf(buf + n, size - n, __VA_ARGS__) : 0)
    if (h->ring_chunks) {
        double mib = (double)h->ring_chunks * h->chunk_size / (1 << 20);
        ADD("ring of %.4g MiB: %llu older call%s overwritten", mib, (unsigned long long)h->overwritten_calls,
            h->overwritten_calls == 1 ? "" : "s");
    }
    if (h->freeze_clock) {
        uint64_t at = h->freeze_clock > p->clock0 ? ticks_to_ns(h->freeze_clock - p->clock0, p->rate) : 0;
        ADD("%sfrozen %.3f s after its start", n ? "; " : "", (double)at / 1e9);
        if (h->freeze_reason == CUTAP_FREEZE_ERROR) {
            uint32_t ni = id_lookup(tr, p, h->freeze_id);
            ADD(" by its first failing %s (result %lld)", ni < tr->nnames ? tr->names[ni].name : "call",
                (long long)(int64_t)h->freeze_result);
        } else if (h->freeze_reason == CUTAP_FREEZE_PEER)
            ADD(" because another process froze on an error");
        else
            ADD(" on request (cutap freeze, or the signal to cutap trace)");
        ADD(": later calls counted, not recorded");
    }
    if (h->capture) {
        const char *how[3] = {0};
        int k = 0;
        if (h->capture & CUTAP_CAPTURE_WINDOW)
            how[k++] = "--delay/--duration";
        if (h->capture & CUTAP_CAPTURE_PROFILER)
            how[k++] = "cudaProfilerApi";
        if (h->capture & CUTAP_CAPTURE_NVTX)
            how[k++] = "nvtx";
        ADD("%srecorded only inside %u capture range%s (%s%s%s%s%s), other calls counted", n ? "; " : "",
            h->capture_ranges, h->capture_ranges == 1 ? "" : "s", k > 0 ? how[0] : "", k > 1 ? ", " : "",
            k > 1 ? how[1] : "", k > 2 ? ", " : "", k > 2 ? how[2] : "");
    }
#undef ADD
    return 1;
}

const char *tr_stop_reason_str(uint32_t reason)
{
    static const char *const s[] = {"none", "space", "map", "limit", "other", "file"};
    return reason < sizeof s / sizeof *s ? s[reason] : "other";
}

int tr_is_trace_name(const char *name)
{
    size_t l = strlen(name), sl = strlen(CUTAP_FILE_SUFFIX);
    return l > sl && !strcmp(name + l - sl, CUTAP_FILE_SUFFIX);
}

static void *alloc0(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        TR_ERR("cutap: out of memory\n");
        exit(1);
    }
    return p;
}

/* --- NVTX ranges (trace_read.h; docs/FORMAT.md, "NVTX ranges") --------- */

/* What each nvtx* call does to ranges. Known by name, whatever layer
 * number the file gives it. */
enum { NV_PUSH = 1, NV_POP, NV_START, NV_END, NV_MARK, NV_REGISTER };
enum { MSG_NONE, MSG_STR, MSG_ATTR };
struct nvtx_fn {
    const char *name;
    uint8_t op;         /* NV_* */
    int8_t domain_arg;  /* argument holding the domain handle; -1: the default domain */
    int8_t arg;         /* argument with the message (MSG_*), or NV_END's range id */
    uint8_t msg;
};
static const struct nvtx_fn nvtx_fns[] = {
#include "generated/nvtx_roles.inc"   /* from gen/specs/nvtx.py "nvtx_range" */
};
/* nvtxEventAttributes_t (nvtx3/nvToolsExt.h, 48 bytes): messageType (i32)
 * at 32, the message (a pointer or a registered string's handle) at 40. */
#define NVTX_ATTR_SIZE 48
#define NVTX_MESSAGE_TYPE_UNICODE 2
#define NVTX_MESSAGE_TYPE_REGISTERED 3

/* (a, b) -> value, 0 when absent; open addressing, at most half full. */
struct pairmap {
    struct pairslot {
        uint64_t a, b;
        uint32_t v, used;
    } *s;
    size_t cap, n;
};

static size_t pair_hash(uint64_t a, uint64_t b, size_t cap)
{
    return (size_t)((a * 0x9e3779b97f4a7c15ull ^ b * 0xc2b2ae3d27d4eb4full) >> 7) & (cap - 1);
}

static struct pairslot *pair_find(const struct pairmap *m, uint64_t a, uint64_t b)
{
    size_t k = pair_hash(a, b, m->cap);
    while (m->s[k].used && (m->s[k].a != a || m->s[k].b != b))
        k = (k + 1) & (m->cap - 1);
    return &m->s[k];
}

static uint32_t pair_get(const struct pairmap *m, uint64_t a, uint64_t b)
{
    return m->cap ? pair_find(m, a, b)->v : 0;
}

static void pair_put(struct pairmap *m, uint64_t a, uint64_t b, uint32_t v)
{
    if ((m->n + 1) * 2 > m->cap) {
        struct pairmap g = {alloc0(m->cap ? m->cap * 2 : 256, sizeof *g.s), m->cap ? m->cap * 2 : 256, m->n};
        for (size_t i = 0; i < m->cap; i++)
            if (m->s[i].used)
                *pair_find(&g, m->s[i].a, m->s[i].b) = m->s[i];
        free(m->s);
        *m = g;
    }
    struct pairslot *s = pair_find(m, a, b);
    if (!s->used)
        m->n++;
    *s = (struct pairslot){a, b, v, 1};
}

static uint64_t arg_word(const struct tr_call *c, int i)
{
    return i >= 0 && i < c->rec->nargs ? tr_args(c)[i] : 0;
}

/* The capture of an argument, of a kind, that was taken; NULL if none. */
static const struct cutap_capture *capture_of(const struct tr_call *c, int arg, unsigned kind)
{
    for (unsigned i = 0; i < c->rec->ncap; i++) {
        const struct cutap_capture *k = tr_capture(c, i);
        if (k->arg == arg && k->kind == kind && k->state != CUTAP_CAPS_NONE)
            return k;
    }
    return NULL;
}

/* A captured string, NUL-terminated in buf (CUTAP_CAP_STR_MAX + 1 bytes). */
static const char *captured_str(const struct tr_call *c, int arg, char *buf)
{
    const struct cutap_capture *k = capture_of(c, arg, CUTAP_CAP_IN_STR);
    if (!k)
        return NULL;
    size_t n = k->len < CUTAP_CAP_STR_MAX ? k->len : CUTAP_CAP_STR_MAX;
    memcpy(buf, k + 1, n);
    buf[n] = 0;
    return buf;
}

/* The name of a range or mark: its message. A string argument as captured;
 * an attributes struct's registered string (its text from the process's
 * nvtxDomainRegisterStringA: strs, (process, handle) -> name index + 1);
 * else what kind of message it had, in parentheses. */
static uint32_t message_name(struct trace *tr, const struct tr_call *c, const struct nvtx_fn *f, int layer,
                             const struct pairmap *strs)
{
    char buf[CUTAP_CAP_STR_MAX + 1];
    const char *s = "(wide string)";
    if (f->msg == MSG_STR) {
        s = captured_str(c, f->arg, buf);
        if (!s)
            s = "(not captured)";
    } else if (f->msg == MSG_ATTR) {
        const struct cutap_capture *k = capture_of(c, f->arg, CUTAP_CAP_IN_BYTES);
        int32_t type = 0;
        uint64_t v = 0;
        if (k && k->len >= NVTX_ATTR_SIZE) {
            memcpy(&type, (const uint8_t *)(k + 1) + 32, sizeof type);
            memcpy(&v, (const uint8_t *)(k + 1) + 40, sizeof v);
        }
        uint32_t reg = type == NVTX_MESSAGE_TYPE_REGISTERED ? pair_get(strs, tr->threads[c->thread].proc, v) : 0;
        s = !k ? "(not captured)"
            : reg ? tr->names[reg - 1].name
            : type == NVTX_MESSAGE_TYPE_UNICODE ? "(wide string)"
            : type == NVTX_MESSAGE_TYPE_REGISTERED ? "(registered string)"
            : type ? "(not captured)" : "(no message)";
    }
    /* s may be another name's string: a block of its own, which name_index
     * copies; only the array of names may move */
    return name_index(tr, s, layer);
}

/* --- the calls in time order (trace_read.h, tr_iter) -------------------- */

/* Parents, from the nesting depth: on a thread, calls come in start order
 * (its records in run order), and a call at depth d ran inside the latest
 * call at depth d-1 before it, if that one had not returned when this one
 * started (else, a damaged file: none known).
 *
 * With NVTX ranges: a push/pop range open on the thread at the call's
 * recorded depth, and opened after that call (inside it), is the parent
 * instead; ranges close after their pop (by record order on the thread).
 * Depths are then made to count the ranges: a call's depth is its
 * recorded depth plus the number of ranges among its ancestors.
 *
 * Selection (tr_select): an entry left out is still a parent for the
 * stack; a returned entry's parent is its nearest returned caller, and its
 * depth drops by the callers left out. */
#define MAX_TREE_DEPTH 256   /* deeper calls get no parent */

/* An entry as a parent: a call open at its depth on its thread, or a range. */
struct tr_slot {
    uint64_t raw1;             /* entry number + 1 (order of the merge, selected or not); 0: empty */
    uint64_t t1;               /* a call's end (0: unfinished) */
    uint64_t user;             /* user word of the nearest returned entry among it and its callers */
    uint64_t up;               /* index + 1 of that entry (0: none) */
    uint32_t shift;            /* ranges among its callers */
    uint16_t gone;             /* callers not returned */
    uint8_t kept, is_range;
};

struct tr_rstate {             /* a range during an iteration */
    struct tr_slot slot;
    uint32_t below, outer;     /* the open range it hid at its depth; the next outer open range (index + 1) */
};

struct tr_cursor {             /* a thread's records, read in run order */
    const struct tr_proc *p;
    size_t off, end;           /* next slot of the current run, end of its chunk */
    uint32_t rk, left;         /* next run (index in the thread's run_order slice), calls left in this one */
    uint32_t pk, pleft;        /* load order numbers: the places of the thread's runs in file order */
    uint64_t pseq;
    int has_head;
    struct tr_call head;       /* the thread's next call */
    uint32_t next_range;       /* its next range not yet returned (index + 1) */
    struct tr_slot *open;      /* latest call at each depth */
    uint32_t nopen;
    uint32_t *range_at;        /* innermost open push/pop range at each recorded depth (index + 1) */
    uint32_t nrange_at;
    uint32_t top;              /* innermost open push/pop range of the thread (index + 1) */
};


/* Room for index d (< MAX_TREE_DEPTH) in one of a thread's per-depth
 * arrays (arr, of *n elements of size bytes, grown by doubling, zeroed);
 * returns the array, maybe moved. */
static void *need_depth(void *arr, uint32_t *n, uint32_t d, size_t size)
{
    if (d < *n)
        return arr;
    uint32_t m = *n ? *n : 8;
    while (m <= d)
        m *= 2;
    if (m > MAX_TREE_DEPTH)
        m = MAX_TREE_DEPTH;
    arr = xrealloc0(arr, *n, m, size);
    *n = m;
    return arr;
}

/* The cursor's next call as its head; 0 when the thread has no more. */
static int cursor_load(const struct trace *tr, struct tr_cursor *c, uint32_t t)
{
    const struct tr_thread *th = &tr->threads[t];
    for (;;) {
        if (!c->left) {
            if (c->rk >= th->nrun)
                return c->has_head = 0;
            const struct tr_run *r = &tr->runs[tr->run_order[th->run0 + c->rk++]];
            c->p = &tr->procs[r->proc];
            c->off = r->off;
            c->end = r->end;
            c->left = r->count;
            continue;
        }
        const struct cutap_rec_call *rec = next_call_record(c->p, &c->off, c->end);
        if (!rec) {
            c->left = 0;   /* the run ends early: its file changed since the scan */
            continue;
        }
        c->left--;
        if (!c->pleft && c->pk < th->nrun) {
            const struct tr_run *q = &tr->runs[tr->place_order[th->run0 + c->pk++]];
            c->pseq = q->seq0;
            c->pleft = q->count;
        }
        if (c->pleft)
            c->pleft--;
        fill_call(tr, c->p, rec, t, c->pseq++, &c->head);
        return c->has_head = 1;
    }
}

static int head_before(const struct tr_iter *it, uint32_t a, uint32_t b)
{
    const struct tr_call *x = &it->cur[a].head, *y = &it->cur[b].head;
    if (x->t0 != y->t0)
        return x->t0 < y->t0;
    if (x->seq != y->seq)
        return x->seq < y->seq;
    return a < b;
}

static void heap_down(struct tr_iter *it, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < it->nheap && head_before(it, it->heap[l], it->heap[m]))
            m = l;
        if (l + 1 < it->nheap && head_before(it, it->heap[l + 1], it->heap[m]))
            m = l + 1;
        if (m == i)
            return;
        uint32_t x = it->heap[i];
        it->heap[i] = it->heap[m];
        it->heap[m] = x;
        i = m;
    }
}

static void iter_start(struct tr_iter *it, const struct trace *tr, const char *what, int mode)
{
    memset(it, 0, sizeof *it);
    it->tr = tr;
    it->what = what;
    it->mode = mode;
    it->cur = alloc0(tr->nthreads, sizeof *it->cur);
    it->heap = alloc0(tr->nthreads, sizeof *it->heap);
    if (mode == 0 && tr->nranges) {
        it->rs = alloc0(tr->nranges, sizeof *it->rs);
        for (size_t k = tr->nranges; k-- > 0;)
            if (tr->ranges[k].thread < tr->nthreads)
                it->cur[tr->ranges[k].thread].next_range = (uint32_t)k + 1;
    }
    for (uint32_t t = 0; t < tr->nthreads; t++)
        if (tr->threads[t].nrun && cursor_load(tr, &it->cur[t], t))
            it->heap[it->nheap++] = t;
    for (size_t i = it->nheap / 2; i-- > 0;)
        heap_down(it, i);
}

void tr_iter_init(struct tr_iter *it, const struct trace *tr, const char *what)
{
    iter_start(it, tr, what, 0);
}

void tr_iter_free(struct tr_iter *it)
{
    for (size_t t = 0; it->cur && t < it->tr->nthreads; t++) {
        free(it->cur[t].open);
        free(it->cur[t].range_at);
    }
    free(it->cur);
    free(it->heap);
    free(it->rs);
    memset(it, 0, sizeof *it);
}

void tr_iter_set_user(struct tr_iter *it, uint64_t v)
{
    if (it->out_slot)
        ((struct tr_slot *)it->out_slot)->user = v;
}

static int selected(const struct trace *tr, const struct tr_call *e)
{
    if (e->t0 < tr->sel_from || e->t0 > tr->sel_to)
        return 0;
    return !tr->name_keep || (e->rflags & TR_RF_RANGE) || tr->name_keep[e->name];
}

/* Parent, depth and selection of entry e of thread cursor c (r: its range,
 * ri its index, for a range entry); whether it is returned. */
static int place(struct tr_iter *it, struct tr_cursor *c, struct tr_call *e, const struct tr_range *r, size_t ri)
{
    const struct trace *tr = it->tr;
    uint32_t depth = r ? r->depth : e->depth;
    while (c->top) {   /* ranges whose pop came before this entry are closed */
        const struct tr_range *o = &tr->ranges[c->top - 1];
        if (o->end_seq >= e->seq)
            break;   /* its pop is this call or later */
        const struct tr_rstate *os = &it->rs[c->top - 1];
        c->top = os->outer;
        if (o->depth < c->nrange_at)
            c->range_at[o->depth] = os->below;
    }
    const struct tr_slot *ps = NULL;
    if (depth < MAX_TREE_DEPTH) {
        if (depth && depth - 1 < c->nopen) {
            const struct tr_slot *s = &c->open[depth - 1];
            if (s->raw1 && (!s->t1 || s->t1 >= e->t0))
                ps = s;
        }
        if (depth < c->nrange_at && c->range_at[depth]) {
            const struct tr_slot *s = &it->rs[c->range_at[depth] - 1].slot;
            if (!ps || s->raw1 > ps->raw1)
                ps = s;
        }
    }
    struct tr_slot me = {.raw1 = it->raw, .t1 = r ? 0 : e->t1, .is_range = !!r};
    me.kept = (uint8_t)selected(tr, e);
    if (depth < MAX_TREE_DEPTH) {
        me.shift = ps ? ps->shift + ps->is_range : 0;
        e->depth = depth + me.shift > UINT16_MAX ? UINT16_MAX : (uint16_t)(depth + me.shift);
    }
    me.gone = ps ? (uint16_t)(ps->gone + !ps->kept) : 0;
    e->parent = ps ? ps->up : 0;
    e->depth = e->depth >= me.gone ? (uint16_t)(e->depth - me.gone) : 0;
    me.up = me.kept ? (uint64_t)it->kept + 1 : ps ? ps->up : 0;
    me.user = ps ? ps->user : 0;
    it->parent_user = me.user;
    if (me.kept)
        me.user = 0;   /* its own, set by tr_iter_set_user */
    it->out_slot = NULL;
    if (!r) {
        if (depth < MAX_TREE_DEPTH) {
            c->open = need_depth(c->open, &c->nopen, depth, sizeof *c->open);
            c->open[depth] = me;
            it->out_slot = &c->open[depth];
        }
    } else {
        struct tr_rstate *rs = &it->rs[ri];
        rs->slot = me;
        it->out_slot = &rs->slot;
        if (r->kind == TR_RANGE_PUSH && !r->async && depth < MAX_TREE_DEPTH) {
            c->range_at = need_depth(c->range_at, &c->nrange_at, depth, sizeof *c->range_at);
            rs->below = c->range_at[depth];
            c->range_at[depth] = (uint32_t)ri + 1;
            rs->outer = c->top;
            c->top = (uint32_t)ri + 1;
        }
    }
    return me.kept;
}

/* Mode 1 (loading NVTX ranges): calls only, parents from depths alone;
 * parent = entry number + 1, it->parent_t1 its end. */
static void place_calls_only(struct tr_iter *it, struct tr_cursor *c, struct tr_call *e)
{
    uint32_t depth = e->depth;
    const struct tr_slot *ps = NULL;
    if (depth < MAX_TREE_DEPTH && depth && depth - 1 < c->nopen) {
        const struct tr_slot *s = &c->open[depth - 1];
        if (s->raw1 && (!s->t1 || s->t1 >= e->t0))
            ps = s;
    }
    e->parent = ps ? ps->raw1 : 0;
    it->parent_t1 = ps ? ps->t1 : 0;
    if (depth < MAX_TREE_DEPTH) {
        c->open = need_depth(c->open, &c->nopen, depth, sizeof *c->open);
        c->open[depth] = (struct tr_slot){.raw1 = it->raw, .t1 = e->t1};
    }
}

static const struct cutap_rec_call empty_rec = {.kind = CUTAP_REC_CALL, .nslots = 1};

const struct tr_call *tr_iter_next(struct tr_iter *it)
{
    const struct trace *tr = it->tr;
    while (it->nheap) {
        uint32_t t = it->heap[0];
        struct tr_cursor *c = &it->cur[t];
        struct tr_call e;
        const struct tr_range *r = NULL;
        size_t ri = 0;
        /* a range comes just before the push or start it was made from
         * (ranges whose call is gone, a file changed under us, are dropped) */
        while (c->next_range && tr->ranges[c->next_range - 1].seq < c->head.seq)
            c->next_range = tr->ranges[c->next_range - 1].next_on_thread;
        if (c->next_range && tr->ranges[c->next_range - 1].seq == c->head.seq) {
            ri = c->next_range - 1;
            r = &tr->ranges[ri];
            c->next_range = r->next_on_thread;
            e = (struct tr_call){.t0 = r->t0,
                                 .t1 = r->ended ? r->t1 : 0,
                                 .seq = r->seq,
                                 .name = r->name,
                                 .thread = r->thread,
                                 .depth = r->depth,
                                 .flags = r->ended ? CUTAP_RF_DONE : 0,
                                 .rflags = (uint8_t)(TR_RF_RANGE | (r->async ? TR_RF_ASYNC : 0)),
                                 .rec = &empty_rec,
                                 .range = r,
                                 .object = -1};
        } else {
            e = c->head;
            if (!cursor_load(tr, c, t))
                it->heap[0] = it->heap[--it->nheap];
            if (it->nheap)
                heap_down(it, 0);
        }
        it->raw++;
        if (!(it->raw & ((1u << 18) - 1)))
            tr_progress(tr, it->raw, it->what);
        if (it->mode == 1) {
            place_calls_only(it, c, &e);
        } else if (!place(it, c, &e, r, ri))
            continue;
        it->out = e;
        it->index = it->kept++;
        return &it->out;
    }
    tr_progress_done(tr);
    return NULL;
}

/* Makes the ranges and marks (tr->ranges) from the nvtx* calls, in one
 * iteration over the calls alone (parents from depths; it adds names for
 * the messages, so it runs before any command's iteration). Each range
 * keeps what its entry needs; the iterator puts it just before the call it
 * was made from. Memory: one struct tr_range per range and mark.
 *
 * Per thread and domain, a pop ends the latest push not yet ended; a pop
 * with none open ends nothing. RangeEnd ends the range whose RangeStart
 * returned its id in that process (from any thread). A push/pop range
 * nests (acts as a parent) only if its pop has the push's recorded depth
 * and the same parent call, and no range opened inside it is still open
 * at its pop (those cross its end and do not nest: TR_RF_ASYNC). A range
 * never ended has t1 = 0. */
static void build_ranges(struct trace *tr)
{
    size_t nnames = tr->nnames;   /* the calls' names (message names are added after) */
    uint8_t *fn_of = alloc0(nnames, 1);   /* nvtx_fns index + 1 per name */
    int any = 0;
    for (size_t i = 0; i < nnames; i++)
        if (!strncmp(tr->names[i].name, "nvtx", 4))
            for (size_t k = 0; k < sizeof nvtx_fns / sizeof *nvtx_fns; k++)
                if (!strcmp(tr->names[i].name, nvtx_fns[k].name)) {
                    fn_of[i] = (uint8_t)(k + 1);
                    any = 1;
                }
    if (!any || !tr->nthreads) {
        free(fn_of);
        return;
    }
    uint64_t *last = alloc0(tr->nthreads, sizeof *last);   /* latest time seen on each thread */
    uint32_t *top = alloc0(tr->nthreads, sizeof *top);     /* open push ranges, innermost first (outer) */
    uint32_t *tail = alloc0(tr->nthreads, sizeof *tail);   /* each thread's latest range (index + 1) */
    struct pairmap stacks = {0};   /* (thread, domain) -> latest open push (range + 1) */
    struct pairmap ids = {0};      /* (process, range id) -> range + 1 */
    struct pairmap strs = {0};     /* (process, string handle) -> name + 1 */
    char buf[CUTAP_CAP_STR_MAX + 1];
    struct tr_iter it;
    iter_start(&it, tr, "reading", 1);
    for (const struct tr_call *c; (c = tr_iter_next(&it));) {
        uint64_t e = c->t1 > c->t0 ? c->t1 : c->t0;
        if (e > last[c->thread])
            last[c->thread] = e;
        uint8_t k = c->name < nnames ? fn_of[c->name] : 0;
        if (!k)
            continue;
        const struct nvtx_fn *f = &nvtx_fns[k - 1];
        uint32_t proc = tr->threads[c->thread].proc, t = c->thread;
        uint64_t dom = arg_word(c, f->domain_arg), end = c->t1 ? c->t1 : c->t0;
        struct tr_range *r;
        uint32_t ri;
        switch (f->op) {
        case NV_REGISTER:
            if (c->t1 && captured_str(c, f->arg, buf))
                pair_put(&strs, proc, tr_result(c), name_index(tr, buf, TR_LAYER_RANGE) + 1);
            break;
        case NV_PUSH:
        case NV_START:
        case NV_MARK: {
            if (tr->nranges >= UINT32_MAX - 1)
                break;
            uint32_t name = message_name(tr, c, f, f->op == NV_MARK ? TR_LAYER_MARK : TR_LAYER_RANGE, &strs);
            tr->ranges = grow(tr->ranges, &tr->cap_ranges, tr->nranges + 1, sizeof *tr->ranges);
            uint32_t nr = (uint32_t)++tr->nranges;   /* this range's index + 1 */
            r = &tr->ranges[nr - 1];
            memset(r, 0, sizeof *r);
            r->kind = f->op == NV_PUSH ? TR_RANGE_PUSH : f->op == NV_START ? TR_RANGE_START : TR_RANGE_MARK;
            r->domain = dom;
            r->depth = c->depth;
            r->thread = t;
            r->t0 = c->t0;
            r->seq = c->seq;
            r->push_parent = c->parent;
            r->in_t1 = c->parent ? it.parent_t1 : 0;
            r->end_seq = UINT64_MAX;
            r->name = name;
            if (tail[t])
                tr->ranges[tail[t] - 1].next_on_thread = nr;
            tail[t] = nr;
            if (f->op == NV_MARK) {
                r->ended = 1;
                r->t1 = c->t0;
            } else if (f->op == NV_START) {
                r->async = 1;
                if (c->t1)   /* its id is its result */
                    pair_put(&ids, proc, tr_result(c), nr);
            } else {
                r->async = c->depth >= MAX_TREE_DEPTH;
                r->below = pair_get(&stacks, t, dom);
                pair_put(&stacks, t, dom, nr);
                r->outer = top[t];
                top[t] = nr;
                r->in_stack = 1;
            }
            break;
        }
        case NV_POP:
            if (!(ri = pair_get(&stacks, t, dom)))
                break;   /* nothing open to end */
            r = &tr->ranges[ri - 1];
            pair_put(&stacks, t, dom, r->below);
            r->ended = 1;
            r->t1 = end;
            r->end_seq = c->seq;
            if (c->depth != r->depth || r->push_parent != c->parent) {
                /* pushed and popped in different calls: no parent of
                 * anything (left in top; taken out by a later pop below) */
                r->async = 1;
                break;
            }
            if (r->in_stack) {
                /* ranges opened inside r and still open cross its end */
                while (top[t] && top[t] != ri) {
                    struct tr_range *x = &tr->ranges[top[t] - 1];
                    x->async = 1;
                    x->in_stack = 0;
                    top[t] = x->outer;
                }
                if (top[t] == ri)
                    top[t] = r->outer;
                r->in_stack = 0;
            }
            break;
        case NV_END:
            if (!(ri = pair_get(&ids, proc, arg_word(c, f->arg))) || tr->ranges[ri - 1].ended)
                break;
            r = &tr->ranges[ri - 1];
            r->ended = 1;
            r->t1 = end;
            break;
        }
    }
    tr_iter_free(&it);
    for (size_t k = 0; k < tr->nranges; k++) {
        struct tr_range *r = &tr->ranges[k];
        if (r->ended) {
            if (r->t1 < r->t0)
                r->t1 = r->t0;   /* an end on another thread, or a damaged file */
            r->draw_t1 = r->t1;
        } else {
            /* never ended: drawn to the end of the call it was pushed in, else its thread's last call */
            r->draw_t1 = r->kind == TR_RANGE_PUSH && r->in_t1 ? r->in_t1 : last[r->thread];
            if (r->draw_t1 < r->t0)
                r->draw_t1 = r->t0;
        }
    }
    tr->ncalls += tr->nranges;
    free(fn_of);
    free(last);
    free(top);
    free(tail);
    free(stacks.s);
    free(ids.s);
    free(strs.s);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Run orders: by thread then run number then file order (the order a
 * thread's records are read in), and by thread then file order (the load
 * order numbers they take: a thread whose runs lie out of order in the
 * file gets its calls in run order in the places its runs took, so nothing
 * moves between threads, and files whose runs lie in order, all of
 * versions 1 and 2, read as they lie). */
static int cmp_run_order(const void *a, const void *b, void *ctx)
{
    const struct tr_run *runs = ctx, *x = &runs[*(const uint32_t *)a], *y = &runs[*(const uint32_t *)b];
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    if (x->runno != y->runno)
        return x->runno < y->runno ? -1 : 1;
    return x->seq0 < y->seq0 ? -1 : x->seq0 > y->seq0;
}

static int cmp_place_order(const void *a, const void *b, void *ctx)
{
    const struct tr_run *runs = ctx, *x = &runs[*(const uint32_t *)a], *y = &runs[*(const uint32_t *)b];
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    return x->seq0 < y->seq0 ? -1 : x->seq0 > y->seq0;
}

static void order_runs(struct trace *tr)
{
    if (tr->nruns > UINT32_MAX) {
        TR_ERR("cutap: too many record runs (%zu)\n", tr->nruns);
        exit(1);
    }
    tr->run_order = alloc0(tr->nruns, sizeof *tr->run_order);
    tr->place_order = alloc0(tr->nruns, sizeof *tr->place_order);
    for (size_t i = 0; i < tr->nruns; i++)
        tr->run_order[i] = tr->place_order[i] = (uint32_t)i;
    qsort_r(tr->run_order, tr->nruns, sizeof *tr->run_order, cmp_run_order, tr->runs);
    qsort_r(tr->place_order, tr->nruns, sizeof *tr->place_order, cmp_place_order, tr->runs);
    for (size_t i = 0; i < tr->nruns;) {
        uint32_t t = tr->runs[tr->run_order[i]].thread;
        size_t j = i;
        while (j < tr->nruns && tr->runs[tr->run_order[j]].thread == t)
            j++;
        tr->threads[t].run0 = (uint32_t)i;
        tr->threads[t].nrun = (uint32_t)(j - i);
        i = j;
    }
}

int tr_load(struct trace *tr, const char *path)
{
    memset(tr, 0, sizeof *tr);
    tr->sel_to = UINT64_MAX;
    struct stat st;
    if (tr_mem_file.path && !strcmp(path, tr_mem_file.path)) {
        load_file(tr, path);
    } else if (tr_own_only ? lstat(path, &st) : stat(path, &st)) {
        TR_ERR("cutap: %s: %s\n", path, strerror(errno));
        return -1;
    } else if (tr_own_only && (!S_ISDIR(st.st_mode) || st.st_uid != geteuid())) {
        /* checked by the caller; swapped since, or never one of ours */
        TR_ERR("cutap: %s: not a directory of ours: not read\n", path);
        return -1;
    } else if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (!d) {
            TR_ERR("cutap: %s: %s\n", path, strerror(errno));
            return -1;
        }
        char **files = NULL;
        size_t n = 0, cap = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!tr_is_trace_name(e->d_name))
                continue;
            files = grow(files, &cap, n + 1, sizeof *files);
            if (asprintf(&files[n], "%s/%s", path, e->d_name) < 0)
                exit(1);
            n++;
        }
        closedir(d);
        if (n)
            qsort(files, n, sizeof *files, cmp_str);   /* stable order of processes */
        for (size_t i = 0; i < n; i++) {
            load_file(tr, files[i]);
            free(files[i]);
        }
        free(files);
        if (!n) {
            TR_ERR("cutap: %s: no trace files (*%s) in this directory\n", path, CUTAP_FILE_SUFFIX);
            return -1;
        }
    } else {
        load_file(tr, path);
    }
    if (!tr->nprocs)
        return -1;
    tr->origin_ns = UINT64_MAX;
    for (size_t i = 0; i < tr->nprocs; i++)
        if (tr->procs[i].base_ns < tr->origin_ns)
            tr->origin_ns = tr->procs[i].base_ns;
    order_runs(tr);
    build_ranges(tr);   /* NVTX: ranges join the calls, as parents */
    tr_progress_done(tr);
    return 0;
}

void tr_free(struct trace *tr)
{
    for (size_t i = 0; i < tr->nprocs; i++) {
        if (tr->procs[i].mapped)
            munmap((void *)tr->procs[i].map, tr->procs[i].size);
        free(tr->procs[i].copy);
        free(tr->procs[i].path);
        free(tr->procs[i].idmap);
        free(tr->procs[i].funcs);
        free(tr->procs[i].objects);
        free(tr->procs[i].stacks);
    }
    for (size_t i = 0; i < tr->nnames; i++)
        free(tr->names[i].name);
    free(tr->procs);
    free(tr->threads);
    free(tr->names);
    free(tr->counters);
    free(tr->name_hash);
    free(tr->ranges);
    free(tr->runs);
    free(tr->run_order);
    free(tr->place_order);
    free(tr->name_keep);
    memset(tr, 0, sizeof *tr);
}

/* --- selection at read time (-e, --from, --to) ------------------------- */

int tr_select(struct trace *tr, const char *filter, uint64_t from_ns, uint64_t to_ns)
{
    if (!filter && !from_ns && to_ns == UINT64_MAX)
        return 0;
    tr->sel_from = from_ns;
    tr->sel_to = to_ns;
    if (filter) {
        /* by name, once: the iterator asks per call */
        free(tr->name_keep);
        tr->name_keep = calloc(tr->nnames ? tr->nnames : 1, 1);
        if (!tr->name_keep) {
            TR_ERR("cutap: out of memory\n");
            return -1;
        }
        for (size_t i = 0; i < tr->nnames; i++)
            tr->name_keep[i] = cutap_filter_eval(filter, tr->names[i].name, tr->names[i].layer, NULL) == 1;
        size_t m = 0;
        for (size_t i = 0; i < tr->ncounters; i++) {
            const struct tr_counter *c = &tr->counters[i];
            if (tr->name_keep[c->name])
                tr->counters[m++] = *c;
        }
        tr->ncounters = m;
    }
    if ((from_ns || to_ns != UINT64_MAX) && tr->ncounters)
        TR_ERR("cutap: note: --from/--to select calls; the counters of counting-mode files (cutap stat) "
                        "have no times and are all kept\n");
    return 0;
}
