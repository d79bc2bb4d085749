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

#include "trace_read.h"

#define MAX_IDS_IN_FILE (1u << 20)

static void complain(struct trace *tr, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void complain(struct trace *tr, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "cutap: %s: ", path);
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
        fprintf(stderr, "cutap: out of memory\n");
        exit(1);
    }
    *cap = n;
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
static uint32_t name_index(struct trace *tr, const char *name, int layer)
{
    if ((tr->nnames + 1) * 2 > tr->name_hash_cap) {
        size_t cap = tr->name_hash_cap ? tr->name_hash_cap * 2 : 1024;
        uint32_t *h = calloc(cap, sizeof *h);
        if (!h) {
            fprintf(stderr, "cutap: out of memory\n");
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
    if (!tr->names[tr->nnames].name) {
        fprintf(stderr, "cutap: out of memory\n");
        exit(1);
    }
    tr->name_hash[k] = (uint32_t)tr->nnames + 1;
    return (uint32_t)tr->nnames++;
}

/* The name index of a file's id; "id#N" when the file never named it. */
static uint32_t id_name(struct trace *tr, const struct tr_proc *p, uint64_t id)
{
    if (id < p->nids && p->idmap[id] != UINT32_MAX)
        return p->idmap[id];
    char s[32];
    snprintf(s, sizeof s, "id#%llu", (unsigned long long)id);
    return name_index(tr, s, 0);
}

static uint32_t thread_index(struct trace *tr, uint32_t proc, int32_t tid, const char *tname)
{
    for (size_t i = tr->nthreads; i-- > 0;) {
        if (tr->threads[i].proc != proc)
            break;   /* threads of one process are added together */
        if (tr->threads[i].tid == tid)
            return (uint32_t)i;
    }
    tr->threads = grow(tr->threads, &tr->cap_threads, tr->nthreads + 1, sizeof *tr->threads);
    struct tr_thread *t = &tr->threads[tr->nthreads];
    t->proc = proc;
    t->tid = tid;
    memcpy(t->name, tname, sizeof t->name);
    t->name[sizeof t->name - 1] = 0;
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

struct pending {            /* a record kept until the file's names are known */
    const struct cutap_rec_call *rec;
    uint32_t thread;
};

/* One pass over the chunks of a file: metas first (names, kernels, clock
 * pairs), so that records can be named whatever their order. */
static int scan_file(struct trace *tr, struct tr_proc *p, uint32_t pi)
{
    const struct cutap_file_header *h = &p->h;
    size_t nchunks = (p->size - h->header_size) / h->chunk_size;
    size_t slots = h->chunk_size / CUTAP_SLOT, nfunc_cap = 0;
    uint64_t far_clock = h->calib_clock, far_mono = h->calib_mono_ns;
    if (h->end_mono_ns > far_mono && h->end_clock) {
        far_clock = h->end_clock;
        far_mono = h->end_mono_ns;
    }
    struct pending *pend = NULL;
    size_t npend = 0, cap_pend = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t ci = 0; ci < nchunks; ci++) {
            const uint8_t *c = p->map + h->header_size + ci * h->chunk_size;
            const struct cutap_chunk_header *ch = (const void *)c;
            if (!ch->magic)
                continue;   /* taken but never filled in: the process died */
            if (ch->magic != CUTAP_CHUNK_MAGIC || (ch->type != CUTAP_CHUNK_RECORDS && ch->type != CUTAP_CHUNK_COUNTERS)) {
                if (pass == 0)
                    complain(tr, p->path, "chunk %zu: bad chunk header (magic %08x, type %u); chunk skipped", ci,
                             ch->magic, ch->type);
                continue;
            }
            if (pass == 0 && ch->mono_ns > far_mono && ch->clock) {
                far_mono = ch->mono_ns;
                far_clock = ch->clock;
            }
            char tname[16];
            memcpy(tname, ch->thread_name, sizeof tname);
            tname[15] = 0;
            uint32_t ti = pass ? thread_index(tr, pi, ch->tid, tname) : 0;
            if (ch->type == CUTAP_CHUNK_COUNTERS) {
                if (!pass)
                    continue;
                /* version 1: 40-byte counters, every call timed */
                size_t size = h->version == 1 ? sizeof(struct cutap_counter_v1) : sizeof(struct cutap_counter);
                size_t n = (h->chunk_size - CUTAP_SLOT) / size;
                for (size_t i = 0; i < n; i++) {
                    struct cutap_counter k = {0};
                    memcpy(&k, c + CUTAP_SLOT + i * size, size);
                    if (!k.calls)
                        continue;
                    if (h->version == 1)
                        k.timed = k.calls;
                    else if (k.timed > k.calls)
                        k.timed = k.calls;   /* killed between the two stores (or damaged) */
                    tr->counters = grow(tr->counters, &tr->cap_counters, tr->ncounters + 1, sizeof *tr->counters);
                    struct tr_counter *o = &tr->counters[tr->ncounters++];
                    o->name = id_name(tr, p, (uint64_t)ch->first_id + i);
                    o->thread = ti;
                    o->calls = k.calls;
                    o->errors = k.errors;
                    o->timed = k.timed;
                    o->total_ns = counter_total_ns(&k, p->rate);
                    o->min_ns = k.timed ? ticks_to_ns(k.min, p->rate) : 0;
                    o->max_ns = k.timed ? ticks_to_ns(k.max, p->rate) : 0;
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
                else if (r->kind == CUTAP_REC_CALL)
                    bad = check_call(r);
                else if (!memchr(((const struct cutap_rec_meta *)r)->text, 0, 40 + (size_t)CUTAP_SLOT * (r->nslots - 1u)))
                    bad = "meta record without its terminating NUL";
                if (bad) {
                    if (pass == 0)
                        complain(tr, p->path, "chunk %zu slot %zu: %s; rest of the chunk skipped", ci, s, bad);
                    break;
                }
                if (r->kind == CUTAP_REC_META && pass == 0) {
                    const struct cutap_rec_meta *m = (const void *)r;
                    if (m->sub == CUTAP_META_ID_NAME && m->aux < MAX_IDS_IN_FILE) {
                        if (m->aux >= p->nids) {
                            uint32_t n = m->aux + 1 > 1024 ? m->aux + 1 : 1024;
                            uint32_t *map = realloc(p->idmap, n * sizeof *map);
                            if (!map) {
                                fprintf(stderr, "cutap: out of memory\n");
                                exit(1);
                            }
                            for (uint32_t i = p->nids; i < n; i++)
                                map[i] = UINT32_MAX;
                            p->idmap = map;
                            p->nids = n;
                        }
                        p->idmap[m->aux] = name_index(tr, m->text, m->key == 1 ? 1 : 0);
                    } else if (m->sub == CUTAP_META_FUNC_NAME) {
                        p->funcs = grow(p->funcs, &nfunc_cap, p->nfuncs + 1, sizeof *p->funcs);
                        p->funcs[p->nfuncs++] = (struct tr_func){m->key, m->text};
                    }
                } else if (r->kind == CUTAP_REC_CALL && pass == 1) {
                    pend = grow(pend, &cap_pend, npend + 1, sizeof *pend);
                    pend[npend++] = (struct pending){r, ti};
                }
                s += r->nslots;
            }
        }
        if (pass == 0) {
            /* Tick rate from the two pairs farthest apart. */
            if (h->clock == CUTAP_CLOCK_TSC && far_clock > h->start_clock && far_mono > h->start_mono_ns)
                p->rate = (double)(far_mono - h->start_mono_ns) / (double)(far_clock - h->start_clock);
            else if (h->clock == CUTAP_CLOCK_TSC) {
                fprintf(stderr, "cutap: %s: no second clock reading; times assume 1 tick = 1 ns\n", p->path);
                p->rate = 1.0;
            } else
                p->rate = 1.0;
            p->clock0 = h->start_clock;
            p->base_ns = h->start_realtime_ns;
            if (p->nfuncs)
                qsort(p->funcs, p->nfuncs, sizeof *p->funcs, cmp_func);
        }
    }
    tr->calls = grow(tr->calls, &tr->cap_calls, tr->ncalls + npend, sizeof *tr->calls);
    for (size_t i = 0; i < npend; i++) {
        const struct cutap_rec_call *r = pend[i].rec;
        struct tr_call *o = &tr->calls[tr->ncalls];
        uint32_t nm = id_name(tr, p, r->id);
        int done = r->flags & CUTAP_RF_DONE;
        o->t0 = p->base_ns + ticks_to_ns(r->t0 > p->clock0 ? r->t0 - p->clock0 : 0, p->rate);
        /* t1 by the same mapping as t0 (not t0 + duration): nested calls
         * keep ending no later than their parent. */
        o->t1 = done ? p->base_ns + ticks_to_ns(r->t1 > p->clock0 && r->t1 >= r->t0 ? r->t1 - p->clock0 : 0, p->rate) : 0;
        if (done && o->t1 < o->t0)
            o->t1 = o->t0;
        o->result = r->result;
        o->seq = tr->ncalls;
        o->name = nm;
        o->thread = pend[i].thread;
        o->depth = r->depth;
        o->flags = r->flags;
        o->rec = r;
        tr->ncalls++;
    }
    free(pend);
    return 0;
}

static int load_file(struct trace *tr, const char *path)
{
    /* O_NONBLOCK: a FIFO named *.cutap must not block the open (it is
     * then refused as not a regular file); no effect on regular files. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        complain(tr, path, "cannot open: %s", strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        complain(tr, path, "not a regular file");
        close(fd);
        return -1;
    }
    if (st.st_size == 0) {
        /* made, but its process ended before the header was written */
        fprintf(stderr, "cutap: %s: empty trace file (no header); skipped\n", path);
        close(fd);
        return -1;
    }
    if ((size_t)st.st_size < CUTAP_HEADER_SIZE) {
        complain(tr, path, "not a cutap trace (%lld bytes, shorter than the header)", (long long)st.st_size);
        close(fd);
        return -1;
    }
    const uint8_t *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        complain(tr, path, "cannot map: %s", strerror(errno));
        return -1;
    }
    struct cutap_file_header h;
    memcpy(&h, map, sizeof h);
    const char *bad = NULL;
    char why[160];
    static const char zero[8];
    if (!memcmp(h.magic, zero, 8)) {
        /* made, but its process ended before the header was written */
        fprintf(stderr, "cutap: %s: empty trace file (no header); skipped\n", path);
        munmap((void *)map, (size_t)st.st_size);
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
        munmap((void *)map, (size_t)st.st_size);
        return -1;
    }
    h.host[sizeof h.host - 1] = 0;
    h.exe[sizeof h.exe - 1] = 0;
    h.cmdline[sizeof h.cmdline - 1] = 0;
    h.cutap_version[sizeof h.cutap_version - 1] = 0;
    tr->procs = grow(tr->procs, &tr->cap_procs, tr->nprocs + 1, sizeof *tr->procs);
    struct tr_proc *p = &tr->procs[tr->nprocs];
    memset(p, 0, sizeof *p);
    p->path = strdup(path);
    p->h = h;
    p->map = map;
    p->size = (size_t)st.st_size;
    p->complete = !!(h.flags & CUTAP_FILE_CLOSED);
    if ((p->size - h.header_size) % h.chunk_size)
        complain(tr, path, "size is not a whole number of chunks; the partial chunk is ignored");
    tr->nprocs++;
    return scan_file(tr, p, (uint32_t)(tr->nprocs - 1));
}

int tr_is_trace_name(const char *name)
{
    size_t l = strlen(name), sl = strlen(CUTAP_FILE_SUFFIX);
    return l > sl && !strcmp(name + l - sl, CUTAP_FILE_SUFFIX);
}

static int cmp_call(const void *a, const void *b)
{
    const struct tr_call *x = a, *y = b;
    if (x->t0 != y->t0)
        return x->t0 < y->t0 ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Parents, from the nesting depth: on a thread, calls come in start order
 * (tr->calls is sorted by start, then record order), and a call at depth d
 * ran inside the latest call at depth d-1 before it, if that one had not
 * returned when this one started (else, a damaged file: none known). */
#define MAX_TREE_DEPTH 256   /* deeper calls get no parent; 1 KiB a thread (a thread has a 256 KiB chunk at least) */
static void assign_parents(struct trace *tr)
{
    uint32_t (*open_at)[MAX_TREE_DEPTH] = calloc(tr->nthreads ? tr->nthreads : 1, sizeof *open_at);
    if (!open_at) {
        fprintf(stderr, "cutap: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < tr->ncalls; i++) {
        struct tr_call *c = &tr->calls[i];
        uint32_t *open = open_at[c->thread];
        c->parent = 0;
        if (c->depth >= MAX_TREE_DEPTH)
            continue;
        if (c->depth) {
            uint32_t p = open[c->depth - 1];
            const struct tr_call *pc = p ? &tr->calls[p - 1] : NULL;
            if (pc && (!pc->t1 || pc->t1 >= c->t0))
                c->parent = p;
        }
        open[c->depth] = (uint32_t)i + 1;
    }
    free(open_at);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int tr_load(struct trace *tr, const char *path)
{
    memset(tr, 0, sizeof *tr);
    struct stat st;
    if (stat(path, &st)) {
        fprintf(stderr, "cutap: %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (!d) {
            fprintf(stderr, "cutap: %s: %s\n", path, strerror(errno));
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
            fprintf(stderr, "cutap: %s: no trace files (*%s) in this directory\n", path, CUTAP_FILE_SUFFIX);
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
    if (tr->ncalls) {
        qsort(tr->calls, tr->ncalls, sizeof *tr->calls, cmp_call);
        assign_parents(tr);
    }
    return 0;
}

void tr_free(struct trace *tr)
{
    for (size_t i = 0; i < tr->nprocs; i++) {
        munmap((void *)tr->procs[i].map, tr->procs[i].size);
        free(tr->procs[i].path);
        free(tr->procs[i].idmap);
        free(tr->procs[i].funcs);
    }
    for (size_t i = 0; i < tr->nnames; i++)
        free(tr->names[i].name);
    free(tr->procs);
    free(tr->threads);
    free(tr->names);
    free(tr->calls);
    free(tr->counters);
    free(tr->name_hash);
    memset(tr, 0, sizeof *tr);
}
