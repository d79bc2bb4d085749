/* GPU activity (issue #31, `cutap trace --gpu`): the GPU chunks of a file
 * read, their kernels, copies and memsets joined to the calls that
 * launched them (docs/FORMAT.md, "GPU activity").
 *
 * The join: a KERNEL, MEMCPY or MEMSET record carries CUPTI's correlation
 * id of the API call that enqueued it; a CORR record (or a GPU_CORR meta
 * record in the calling thread's run) pairs that id with cutap's external
 * id, the place of the call's record (take << 24 | slot); the chunk of
 * that take holds it. A record that joins to no call
 * record (its CORR record not written: the process was killed, a call
 * cutap did not record) is kept, unjoined, and counted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read_internal.h"

struct corr {
    uint32_t correlation;
    uint8_t callback;   /* from a GPU_CORR meta record: written by the calling thread, not delivered by CUPTI */
    uint8_t used;       /* an activity record carries its correlation */
    uint64_t ext;
};
struct take {
    uint64_t take;
    size_t off;
};
/* What a file's scan collects before the join (freed by it). */
struct gpu_scan {
    struct corr *corr;
    size_t ncorr, cap_corr;
    struct take *takes;
    size_t ntakes, cap_takes;
};

static struct gpu_scan *scan_of(struct tr_proc *p)
{
    if (!p->gpu_scan)
        p->gpu_scan = calloc(1, sizeof(struct gpu_scan));
    return p->gpu_scan;
}

void rd_gpu_take(struct tr_proc *p, uint64_t take, size_t off)
{
    struct gpu_scan *s;
    if (!take || !(p->h.gpu & CUTAP_GPU_ON_STARTED) || !(s = scan_of(p)))
        return;
    s->takes = rd_grow(s->takes, &s->cap_takes, s->ntakes + 1, sizeof *s->takes);
    s->takes[s->ntakes++] = (struct take){take, off};
}

static void corr_add(struct gpu_scan *s, uint32_t correlation, uint64_t ext, int callback)
{
    s->corr = rd_grow(s->corr, &s->cap_corr, s->ncorr + 1, sizeof *s->corr);
    s->corr[s->ncorr++] = (struct corr){.correlation = correlation, .callback = (uint8_t)callback, .ext = ext};
}

/* A GPU_CORR meta record of a thread's run (joined through CUPTI's
 * callbacks): the same pair as a CORR GPU record. */
void rd_gpu_corr(struct tr_proc *p, uint32_t correlation, uint64_t ext)
{
    struct gpu_scan *s;
    if ((p->h.gpu & CUTAP_GPU_ON_STARTED) && (s = scan_of(p)))
        corr_add(s, correlation, ext, 1);
}

static uint64_t to_realtime(const struct tr_proc *p, uint64_t t)
{
    if (!t || (p->h.gpu & CUTAP_GPU_ON_REALTIME))
        return t;
    return p->h.start_realtime_ns + (t - p->h.start_mono_ns);   /* the same clock's two readings */
}

/* The records of one GPU chunk (slots 1..slots-1). */
void rd_gpu_chunk(struct trace *tr, struct tr_proc *p, const uint8_t *c, size_t slots, size_t ci)
{
    struct gpu_scan *s = scan_of(p);
    if (!s)
        return;
    for (size_t k = 1; k < slots;) {
        const struct cutap_rec_gpu *g = (const void *)(c + k * CUTAP_SLOT);
        if (!g->kind)
            break;
        const char *bad = NULL;
        if (!g->nslots || g->nslots > slots - k)
            bad = "record longer than its chunk";
        else if (g->kind == CUTAP_REC_META) {
            const struct cutap_rec_meta *m = (const void *)g;
            if (!memchr(m->text, 0, 40 + (size_t)CUTAP_SLOT * (m->nslots - 1u)))
                bad = "meta record without its terminating NUL";
            else if (m->sub == CUTAP_META_GPU_NAME && m->aux < (1u << 20)) {
                p->gpu_names = rd_grow(p->gpu_names, &p->cap_gpu_names, (size_t)m->aux + 1, sizeof *p->gpu_names);
                while (p->ngpu_names <= m->aux)
                    p->gpu_names[p->ngpu_names++] = NULL;
                p->gpu_names[m->aux] = m->text;
            }
        } else if (g->kind != CUTAP_REC_GPU || g->nslots != 1 || !g->type || g->type > CUTAP_GPU_API)
            bad = "unknown GPU record";
        else if (g->type == CUTAP_GPU_CORR) {
            corr_add(s, g->correlation, g->start, 0);
        } else if (g->type != CUTAP_GPU_API) {
            p->gpu = rd_grow(p->gpu, &p->cap_gpu, p->ngpu + 1, sizeof *p->gpu);
            p->gpu[p->ngpu++] = (struct tr_gpu){.t0 = to_realtime(p, g->start), .t1 = to_realtime(p, g->end),
                                                .g = g};
        }
        if (bad) {
            rd_complain(tr, p->path, "chunk %zu slot %zu: %s; rest of the chunk skipped", ci, k, bad);
            break;
        }
        k += g->nslots;
    }
}

static int cmp_corr(const void *a, const void *b)
{
    const struct corr *x = a, *y = b;
    return x->correlation < y->correlation ? -1 : x->correlation > y->correlation;
}
static int cmp_take(const void *a, const void *b)
{
    const struct take *x = a, *y = b;
    return x->take < y->take ? -1 : x->take > y->take;
}
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}
static int cmp_gpu(const void *a, const void *b)
{
    const struct tr_gpu *x = a, *y = b;
    if (x->call_off != y->call_off)
        return x->call_off < y->call_off ? -1 : 1;
    return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

/* Lanes: records of one device, context and stream that overlap in time
 * (CUPTI reports some copies so, e.g. host-to-host ones) each get the
 * lowest lane free at their start, so that a track per lane holds slices
 * that follow each other, as the viewers need. Records without GPU time
 * stay in lane 0; past 255 lanes the last one is shared. */
static const struct tr_gpu *lane_gpu;
static int cmp_stream_start(const void *a, const void *b)
{
    const struct cutap_rec_gpu *x = lane_gpu[*(const size_t *)a].g, *y = lane_gpu[*(const size_t *)b].g;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    if (x->context != y->context)
        return x->context < y->context ? -1 : 1;
    if (x->stream != y->stream)
        return x->stream < y->stream ? -1 : 1;
    uint64_t u = lane_gpu[*(const size_t *)a].t0, v = lane_gpu[*(const size_t *)b].t0;
    return u < v ? -1 : u > v;
}

static void gpu_lanes(struct tr_proc *p)
{
    size_t *ord = malloc(p->ngpu * sizeof *ord);
    p->gpu_lane = calloc(p->ngpu, 1);
    if (!ord || !p->gpu_lane) {
        fprintf(stderr, "cutap: out of memory\n");
        exit(1);
    }
    for (size_t k = 0; k < p->ngpu; k++)
        ord[k] = k;
    lane_gpu = p->gpu;
    qsort(ord, p->ngpu, sizeof *ord, cmp_stream_start);
    uint64_t ends[256];
    unsigned nl = 0;
    for (size_t j = 0; j < p->ngpu; j++) {
        const struct tr_gpu *x = &p->gpu[ord[j]];
        if (j) {
            const struct cutap_rec_gpu *w = p->gpu[ord[j - 1]].g;
            if (w->device != x->g->device || w->context != x->g->context || w->stream != x->g->stream)
                nl = 0;   /* a new stream: no lane in use */
        }
        if (!x->t0 || x->t1 < x->t0)
            continue;
        unsigned l = 0;
        while (l < nl && ends[l] > x->t0)
            l++;
        if (l == nl) {
            if (nl < 256)
                ends[nl++] = 0;
            else
                l = 255;
        }
        if (ends[l] < x->t1)
            ends[l] = x->t1;
        p->gpu_lane[ord[j]] = (uint8_t)l;
    }
    free(ord);
}

/* After the file's scan: each activity record's launching call found. */
void rd_gpu_join(struct tr_proc *p)
{
    struct gpu_scan *s = p->gpu_scan;
    if (!s)
        return;
    if (s->ncorr)
        qsort(s->corr, s->ncorr, sizeof *s->corr, cmp_corr);
    if (s->ntakes)
        qsort(s->takes, s->ntakes, sizeof *s->takes, cmp_take);
    size_t csize = p->h.chunk_size, joined = 0;
    for (size_t i = 0; i < p->ngpu; i++) {
        struct tr_gpu *x = &p->gpu[i];
        struct corr key = {.correlation = x->g->correlation};
        struct corr *c = s->ncorr ? bsearch(&key, s->corr, s->ncorr, sizeof key, cmp_corr) : NULL;
        if (!c)
            continue;
        /* the pairs of this correlation (all used: the activity came); a
         * correlation id CUPTI gave twice (its 32 bits wrapped) to calls of
         * other places: which launched this is not known, so none did */
        size_t at = (size_t)(c - s->corr), lo = at, hi = at;
        while (lo > 0 && s->corr[lo - 1].correlation == c->correlation)
            lo--;
        while (hi + 1 < s->ncorr && s->corr[hi + 1].correlation == c->correlation)
            hi++;
        int ambiguous = 0;
        for (size_t i = lo; i <= hi; i++) {
            s->corr[i].used = 1;
            ambiguous |= s->corr[i].ext != c->ext;
        }
        if (ambiguous)
            continue;
        struct take tk = {.take = c->ext >> 24};
        const struct take *t = s->ntakes ? bsearch(&tk, s->takes, s->ntakes, sizeof tk, cmp_take) : NULL;
        size_t slot = (size_t)(c->ext & 0xffffff);
        if (!t || !slot || slot >= csize / CUTAP_SLOT)
            continue;
        size_t off = t->off + slot * CUTAP_SLOT;
        const struct cutap_rec_call *r = (const void *)(p->map + off);
        if (off + CUTAP_SLOT > p->size || r->kind != CUTAP_REC_CALL)
            continue;
        x->call_off = off;
        joined++;
    }
    p->gpu_joined = joined;
    /* the calls whose CUPTI records came (distinct external ids: where
     * CUPTI records every API call, one id may pair with several
     * correlations): a CORR record is CUPTI's; a pair the calling thread
     * wrote (callbacks) counts once an activity record carries its id */
    uint64_t *ext = s->ncorr ? malloc(s->ncorr * sizeof *ext) : NULL;
    size_t distinct = 0, n = 0;
    if (ext) {
        for (size_t i = 0; i < s->ncorr; i++)
            if (!s->corr[i].callback || s->corr[i].used)
                ext[n++] = s->corr[i].ext;
        qsort(ext, n, sizeof *ext, cmp_u64);
        for (size_t i = 0; i < n; i++)
            distinct += !i || ext[i] != ext[i - 1];
        free(ext);
    }
    p->gpu_paired = distinct;
    if (p->ngpu)
        qsort(p->gpu, p->ngpu, sizeof *p->gpu, cmp_gpu);
    /* a joined place must be where a record of its chunk starts (the
     * chunk's records walked once, in the order of the places): a damaged
     * file's stray byte is no call */
    size_t hs = p->h.header_size, base = SIZE_MAX, at = 0, dropped = 0;
    for (size_t i = 0; i < p->ngpu; i++) {
        size_t off = p->gpu[i].call_off;
        if (!off)
            continue;
        size_t b = off < hs ? 0 : hs + (off - hs) / csize * csize;
        if (b != base) {
            base = b;
            at = b + CUTAP_SLOT;
        }
        while (at < off && at + CUTAP_SLOT <= p->size && at < base + csize) {
            const struct cutap_rec_call *r = (const void *)(p->map + at);
            if (!r->kind || !r->nslots)
                break;
            at += (size_t)r->nslots * CUTAP_SLOT;
        }
        if (at != off) {
            p->gpu[i].call_off = 0;
            dropped++;
        }
    }
    if (dropped) {
        p->gpu_joined -= dropped;
        qsort(p->gpu, p->ngpu, sizeof *p->gpu, cmp_gpu);
    }
    if (p->ngpu)
        gpu_lanes(p);
    free(s->corr);
    free(s->takes);
    free(s);
    p->gpu_scan = NULL;
}

/* The GPU records a call launched: their count, the first in *first. */
size_t tr_gpu_of(const struct tr_proc *p, const struct tr_call *c, const struct tr_gpu **first)
{
    if (!p->gpu_joined || !c->rec || (const uint8_t *)c->rec < p->map || (const uint8_t *)c->rec >= p->map + p->size)
        return 0;
    uint64_t off = (uint64_t)((const uint8_t *)c->rec - p->map);
    size_t lo = 0, hi = p->ngpu;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->gpu[mid].call_off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t n = 0;
    while (lo + n < p->ngpu && p->gpu[lo + n].call_off == off)
        n++;
    *first = n ? &p->gpu[lo] : NULL;
    return n;
}

const char *tr_gpu_name(const struct tr_proc *p, const struct tr_gpu *x)
{
    uint32_t i = x->g->info;
    return x->g->type == CUTAP_GPU_KERNEL && i && i - 1 < p->ngpu_names && p->gpu_names[i - 1] ? p->gpu_names[i - 1]
                                                                                             : NULL;
}

static const char *const copy_kinds[][2] = {
    {"?", "[CUDA memcpy ?]"},         {"HtoD", "[CUDA memcpy HtoD]"}, {"DtoH", "[CUDA memcpy DtoH]"},
    {"HtoA", "[CUDA memcpy HtoA]"},   {"AtoH", "[CUDA memcpy AtoH]"}, {"AtoA", "[CUDA memcpy AtoA]"},
    {"AtoD", "[CUDA memcpy AtoD]"},   {"DtoA", "[CUDA memcpy DtoA]"}, {"DtoD", "[CUDA memcpy DtoD]"},
    {"HtoH", "[CUDA memcpy HtoH]"},   {"PtoP", "[CUDA memcpy PtoP]"},
};

const char *tr_gpu_copy_kind(uint32_t info)
{
    unsigned v = info & 0xff;
    return copy_kinds[v < sizeof copy_kinds / sizeof copy_kinds[0] ? v : 0][0];
}

const char *tr_gpu_op(const struct tr_gpu *x)
{
    unsigned v = x->g->info & 0xff;
    return x->g->type == CUTAP_GPU_KERNEL ? NULL
           : x->g->type == CUTAP_GPU_MEMSET ? "[CUDA memset]"
                                            : copy_kinds[v < sizeof copy_kinds / sizeof copy_kinds[0] ? v : 0][1];
}

void rd_gpu_free(struct tr_proc *p)
{
    if (p->gpu_scan) {
        struct gpu_scan *s = p->gpu_scan;
        free(s->corr);
        free(s->takes);
        free(s);
    }
    free(p->gpu);
    free(p->gpu_lane);
    free(p->gpu_names);
}
