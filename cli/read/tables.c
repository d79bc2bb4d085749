/* The reader's tables: names and layers, a file's ids, threads; what
 * it says on stderr; growing arrays; progress. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read_internal.h"

int tr_quiet;
int tr_no_notes;
int tr_own_only;

void rd_complain(struct trace *tr, const char *path, const char *fmt, ...)
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

void *rd_grow(void *p, size_t *cap, size_t need, size_t elem)
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
void *rd_xrealloc0(void *p, size_t oldn, size_t n, size_t size)
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
    return rd_name_index(tr, name, layer);
}

const char *tr_layer_extra_name(int layer)
{
    unsigned i = (unsigned)(layer - CUTAP_NLAYERS);
    return layer >= CUTAP_NLAYERS && i < nextra_layers ? extra_layers[i] : NULL;
}

uint32_t rd_name_index(struct trace *tr, const char *name, int layer)
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
    tr->names = rd_grow(tr->names, &tr->cap_names, tr->nnames + 1, sizeof *tr->names);
    tr->names[tr->nnames].name = strdup(name);
    tr->names[tr->nnames].layer = layer;
    tr->names[tr->nnames].sig = NULL;
    tr->names[tr->nnames].sig_mixed = 0;
    if (!tr->names[tr->nnames].name) {
        TR_ERR("cutap: out of memory\n");
        exit(1);
    }
    size_t len = 0;
    while (TR_TEXT_PLAIN((unsigned char)name[len]))
        len++;
    tr->names[tr->nnames].text_len = !name[len] && len < UINT32_MAX ? (uint32_t)len + 1 : 0;
    tr->name_hash[k] = (uint32_t)tr->nnames + 1;
    return (uint32_t)tr->nnames++;
}

/* A file's id -> name index: a hash table of the ids its ID_NAME records
 * name (not an array indexed by id: a file naming id 4,000,000,000 must
 * cost what it holds, one entry). */
static size_t id_hash(uint32_t id, size_t cap) { return (size_t)((id * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1); }

const char *tr_call_sig(const struct trace *tr, const struct tr_call *c)
{
    const struct tr_name *n = &tr->names[c->name];
    if (!n->sig_mixed)
        return n->sig;
    const struct tr_proc *p = &tr->procs[tr->threads[c->thread].proc];
    const struct tr_idslot *s = p->idcap ? rd_id_find(p, c->rec->id) : NULL;
    return s && s->name1 && s->sig ? s->sig : n->sig;
}

struct tr_idslot *rd_id_find(const struct tr_proc *p, uint32_t id)
{
    size_t k = id_hash(id, p->idcap);
    while (p->idmap[k].name1 && p->idmap[k].id != id)
        k = (k + 1) & (p->idcap - 1);
    return &p->idmap[k];
}

void rd_id_put(struct tr_proc *p, uint32_t id, uint32_t name)
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
                *rd_id_find(p, old[i].id) = old[i];
        free(old);
    }
    struct tr_idslot *s = rd_id_find(p, id);
    if (!s->name1)
        p->nids++;
    s->id = id;
    s->name1 = name + 1;
}

/* The name index of a file's id; "id#N" when the file never named it. */
uint32_t rd_id_name(struct trace *tr, const struct tr_proc *p, uint64_t id)
{
    const struct tr_idslot *slot = id <= UINT32_MAX && p->idcap ? rd_id_find(p, (uint32_t)id) : NULL;
    if (slot && slot->name1)
        return slot->name1 - 1;
    char s[32];
    snprintf(s, sizeof s, "id#%llu", (unsigned long long)id);
    return rd_name_index(tr, s, 0);
}

static uint32_t thread_new(struct trace *tr, uint32_t proc, int32_t tid, const char *tname);

uint32_t rd_thread_index(struct trace *tr, uint32_t proc, int32_t tid, const char *tname)
{
    for (size_t i = tr->nthreads; i-- > 0;) {   /* the latest thread of that tid */
        if (tr->threads[i].proc != proc) {
            if (tr->threads_mixed)
                continue;
            break;   /* threads of one process are added together (tr_load) */
        }
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
uint32_t rd_thread_of_run(struct trace *tr, uint32_t proc, int32_t tid, const char *tname, uint64_t runno)
{
    uint32_t i = rd_thread_index(tr, proc, tid, tname);
    if (runno == 0) {
        if (tr->threads[i].had_run0)
            i = thread_new(tr, proc, tid, tname);
        tr->threads[i].had_run0 = 1;
    }
    return i;
}

static uint32_t thread_new(struct trace *tr, uint32_t proc, int32_t tid, const char *tname)
{
    tr->threads = rd_grow(tr->threads, &tr->cap_threads, tr->nthreads + 1, sizeof *tr->threads);
    struct tr_thread *t = &tr->threads[tr->nthreads];
    t->proc = proc;
    t->tid = tid;
    memcpy(t->name, tname, sizeof t->name);
    t->name[sizeof t->name - 1] = 0;
    t->run0 = t->nrun = 0;   /* its runs: order_runs */
    t->had_run0 = 0;
    return (uint32_t)tr->nthreads++;
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
void rd_read_progress(const struct tr_proc *p, size_t at)
{
    if (!isatty(2) || tr_quiet)
        return;
    char path[256];
    tr_escape(path, sizeof path, p->path);
    TR_ERR("\rcutap: reading %s: %zu of %zu MiB ", path, at >> 20, p->size >> 20);
    progress_shown = 1;
}

void *rd_alloc0(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        TR_ERR("cutap: out of memory\n");
        exit(1);
    }
    return p;
}

/* --- what a follower keeps (rd_keep) --------------------------------------- */

void *rd_keep_bytes(struct tr_proc *p, const void *b, size_t n)
{
    struct tr_kept *k = malloc(sizeof *k + n + 1);
    if (!k) {
        TR_ERR("cutap: out of memory\n");
        exit(1);
    }
    memcpy(k->bytes, b, n);
    ((char *)k->bytes)[n] = 0;
    k->next = p->kept;
    p->kept = k;
    return k->bytes;
}

const char *rd_keep(struct tr_proc *p, const char *s)
{
    return rd_keep_bytes(p, s, strlen(s));
}

long tr_threads(long dflt_max)
{
    const char *e = getenv("CUTAP_THREADS");
    if (e && *e)
        return strtol(e, NULL, 10);
    cpu_set_t cpus;
    long n = !sched_getaffinity(0, sizeof cpus, &cpus) ? CPU_COUNT(&cpus) : sysconf(_SC_NPROCESSORS_ONLN);
    return n > dflt_max ? dflt_max : n;
}
