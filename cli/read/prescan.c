/* The scan's records read on two threads (issue #27): a trace file's
 * record chunks are checked record by record (every call record's
 * layout, rd_check_call) and their ids noted, which was most of a load
 * and ran on one thread while the other CPU was idle. The chunks are
 * taken in windows (load.c asks for 4 MiB); the calling thread and one
 * helper take the windows in turn (the helper the odd ones), and each
 * makes a summary of each chunk of its window: a chunk whose records are
 * all call records, each well formed, is "fast" (its number of calls,
 * the slot of the first, its ids in order of first use). The scan then
 * takes a fast chunk whole from its summary (one run, its ids noted once
 * each); any other chunk (metas in it, a damaged record, more than
 * RD_SUM_IDS ids, another type) it reads record by record as before, so
 * a trace reads the same whether summarised or not (the fuzzer compares
 * both loads of every file it makes). The helper works at most one window
 * ahead of the one the scan is in, so what is mapped stays bounded: one
 * window more than before, inside the 16 MiB the scan keeps before it
 * drops its pages (measured: the same peak RSS).
 *
 * Chunks with metas among their records (the GPU correlation pairs of a
 * --gpu trace, a thread's names, a chunk's tail passed to another thread)
 * are read record by record: the summaries gain on the plain chunks of
 * calls that most of a long trace is.
 *
 * Only where it can gain: two threads (CUTAP_THREADS not 1; by default two
 * CPUs or more), a file of at least two windows, and chunks no larger than
 * a window (a helper a 64 MiB chunk ahead would map 64 MiB more)
 * (CUTAP_TEST_SCAN_WINDOW: a window of that many chunks, for the tests,
 * on small files). A helper that cannot be started leaves the scan to
 * itself. */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read_internal.h"

#define DEPTH 2   /* windows in flight: the scan's and the next */
/* The calling thread takes the even windows, the helper the odd ones:
 * with two slots each slot has one writer (rd_prescan_get writes the even
 * one without the lock). */
_Static_assert(DEPTH == 2, "one slot for the even windows, one for the odd");

struct rd_prescan {
    const uint8_t *map;
    struct cutap_file_header h;   /* (a copy: header_size, chunk_size) */
    int fd;
    size_t nchunks, wchunks, nwin;   /* chunks; chunks a window; windows */
    struct rd_chunk_sum *sums;       /* DEPTH windows of wchunks summaries */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    size_t cur;                /* the window the scan is in (those before it are free) */
    size_t done[DEPTH];        /* window + 1 whose summaries slot holds (0: none) */
    int stop;
    pthread_t helper;
};

/* The summary of one chunk (not a record chunk, or anything the scan
 * must read itself: fast = 0). */
static void sum_chunk(const uint8_t *c, size_t slots, struct rd_chunk_sum *o)
{
    o->fast = 0;
    const struct cutap_chunk_header *ch = (const void *)c;
    if (ch->magic != CUTAP_CHUNK_MAGIC || ch->type != CUTAP_CHUNK_RECORDS)
        return;
    uint32_t n = 0, first = 0, nids = 0, last = 0;
    for (size_t s = 1; s < slots;) {
        const struct cutap_rec_call *r = (const void *)(c + s * CUTAP_SLOT);
        if (!r->kind)
            break;
        if (r->kind != CUTAP_REC_CALL || !r->nslots || r->nslots > slots - s || !rd_call_fits(r))
            return;   /* a meta, or damage: the scan reads the chunk itself (and says what is wrong) */
        uint32_t id = r->id;
        if (!n)
            first = (uint32_t)s;
        if (!n || id != last) {
            uint32_t k = 0;
            while (k < nids && o->ids[k] != id)
                k++;
            if (k == nids) {
                if (nids == RD_SUM_IDS)
                    return;
                o->ids[nids++] = id;
            }
            last = id;
        }
        n++;
        s += r->nslots;
    }
    o->calls = n;
    o->first = first;
    o->nids = (uint8_t)nids;
    o->fast = 1;
}

/* Window w summarised into its slot (holes skipped as the scan skips them). */
static void sum_window(struct rd_prescan *ps, size_t w)
{
    struct rd_chunk_sum *o = ps->sums + (w % DEPTH) * ps->wchunks;
    size_t from = w * ps->wchunks, to = from + ps->wchunks, slots = ps->h.chunk_size / CUTAP_SLOT;
    if (to > ps->nchunks)
        to = ps->nchunks;
    for (size_t i = 0; i < ps->wchunks; i++)
        o[i].fast = 0;
    off_t data_end = 0;
    for (size_t ci = from; (ci = rd_next_data_chunk(ps->fd, &ps->h, ci, ps->nchunks, &data_end)) < to; ci++)
        sum_chunk(ps->map + ps->h.header_size + ci * ps->h.chunk_size, slots, &o[ci - from]);
}

static void *helper(void *arg)
{
    struct rd_prescan *ps = arg;
    for (size_t w = 1; w < ps->nwin; w += 2) {
        pthread_mutex_lock(&ps->lock);
        while (!ps->stop && w >= ps->cur + DEPTH)   /* its slot still the scan's */
            pthread_cond_wait(&ps->cond, &ps->lock);
        int stop = ps->stop;
        pthread_mutex_unlock(&ps->lock);
        if (stop)
            break;
        sum_window(ps, w);
        pthread_mutex_lock(&ps->lock);
        ps->done[w % DEPTH] = w + 1;
        pthread_cond_broadcast(&ps->cond);
        pthread_mutex_unlock(&ps->lock);
    }
    return NULL;
}

struct rd_prescan *rd_prescan_start(const uint8_t *map, const struct cutap_file_header *h, int fd, size_t nchunks,
                                    size_t window_bytes)
{
    const char *t = getenv("CUTAP_TEST_SCAN_WINDOW");
    if (tr_threads(LONG_MAX) < 2)
        return NULL;
    if (!(t && *t) && h->chunk_size > window_bytes)
        return NULL;
    size_t wchunks = t && *t ? strtoul(t, NULL, 10) : window_bytes / h->chunk_size;
    if (!wchunks)
        wchunks = 1;
    if (nchunks < 2 * wchunks)
        return NULL;   /* one window: nothing to share */
    struct rd_prescan *ps = calloc(1, sizeof *ps);
    if (ps && !(ps->sums = calloc(DEPTH * wchunks, sizeof *ps->sums))) {
        free(ps);
        ps = NULL;
    }
    if (!ps)
        return NULL;   /* (no memory: the scan alone, as before) */
    ps->map = map;
    ps->h = *h;
    ps->fd = fd;
    ps->nchunks = nchunks;
    ps->wchunks = wchunks;
    ps->nwin = (nchunks + wchunks - 1) / wchunks;
    pthread_mutex_init(&ps->lock, NULL);
    pthread_cond_init(&ps->cond, NULL);
    if (pthread_create(&ps->helper, NULL, helper, ps)) {
        pthread_mutex_destroy(&ps->lock);
        pthread_cond_destroy(&ps->cond);
        free(ps->sums);
        free(ps);
        return NULL;
    }
    return ps;
}

const struct rd_chunk_sum *rd_prescan_get(struct rd_prescan *ps, size_t ci)
{
    size_t w = ci / ps->wchunks;
    if (w >= ps->nwin)
        return NULL;
    pthread_mutex_lock(&ps->lock);
    if (w != ps->cur) {
        ps->cur = w;   /* (windows are asked for in order: those before are done with) */
        pthread_cond_broadcast(&ps->cond);
    }
    int mine = !(w & 1), ready = ps->done[w % DEPTH] == w + 1;
    if (!mine)
        while (ps->done[w % DEPTH] != w + 1)
            pthread_cond_wait(&ps->cond, &ps->lock);
    pthread_mutex_unlock(&ps->lock);
    if (mine && !ready) {
        sum_window(ps, w);
        ps->done[w % DEPTH] = w + 1;   /* (the helper never writes an even window's slot) */
    }
    const struct rd_chunk_sum *s = &ps->sums[(w % DEPTH) * ps->wchunks + ci % ps->wchunks];
    return s->fast ? s : NULL;
}

void rd_prescan_stop(struct rd_prescan *ps)
{
    if (!ps)
        return;
    pthread_mutex_lock(&ps->lock);
    ps->stop = 1;
    pthread_cond_broadcast(&ps->cond);
    pthread_mutex_unlock(&ps->lock);
    pthread_join(ps->helper, NULL);
    pthread_mutex_destroy(&ps->lock);
    pthread_cond_destroy(&ps->cond);
    free(ps->sums);
    free(ps);
}
