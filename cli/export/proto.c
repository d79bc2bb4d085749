/* cutap export --format perfetto-proto: Perfetto's native trace format
 * (a protobuf `Trace`: repeated TracePacket, field 1), streamed, for traces
 * too long for the JSON export (about 700 bytes a call there).
 *
 * The encoder is ours; the field numbers are Perfetto's
 * (protos/perfetto/trace/trace_packet.proto, track_event/ protos):
 *   TracePacket   timestamp 8, trusted_packet_sequence_id 10, track_event 11,
 *                 interned_data 12, sequence_flags 13,
 *                 trace_packet_defaults 59, track_descriptor 60
 *   TrackEvent    category_iids 3, type 9 (1 SLICE_BEGIN, 2 SLICE_END,
 *                 3 INSTANT), name_iid 10, track_uuid 11
 *   TrackDescriptor uuid 1, name 2, process 3, thread 4, parent_uuid 5
 *   ProcessDescriptor pid 1, process_name 6; ThreadDescriptor pid 1, tid 2,
 *                 thread_name 5
 *   InternedData  event_categories 1, event_names 2 (iid 1, name 2)
 *   TracePacketDefaults track_event_defaults 11 (TrackEventDefaults
 *                 track_uuid 11)
 *   sequence_flags 1 INCREMENTAL_STATE_CLEARED, 2 NEEDS_INCREMENTAL_STATE
 *
 * Layout: a track per process and per thread (descriptors first); one
 * packet sequence per thread, whose defaults name the thread's track, so
 * an event carries no track; a call is a SLICE_BEGIN (name and category by
 * interned id, emitted the first time the sequence uses them) and a
 * SLICE_END (none for a call that never returned: the viewer shows it
 * "did not end"). Ends are emitted from a per-thread stack when the next
 * call of the thread starts outside them, so each sequence is in time
 * order and nesting is exact. Timestamps: ns from the trace's start. NVTX
 * push/pop ranges are slices like calls (category "range"), marks
 * instants, a range that does not nest a slice on a track of its own.
 * About 38 bytes a call; no argument words (the JSON lines and SQLite
 * exports have them). */
#define _GNU_SOURCE   /* fwrite_unlocked */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "export_internal.h"
#include "trace_read.h"

/* --- wire format ---------------------------------------------------- */

struct pb {
    unsigned char *b;
    size_t n, cap;
};

static void pb_room(struct pb *p, size_t more)
{
    if (p->n + more <= p->cap)
        return;
    size_t cap = p->cap ? p->cap : 256;
    while (cap < p->n + more)
        cap *= 2;
    unsigned char *b = realloc(p->b, cap);
    if (!b) {
        fprintf(stderr, "cutap: out of memory\n");
        exit(1);
    }
    p->b = b, p->cap = cap;
}

static void pb_varint(struct pb *p, uint64_t v)
{
    pb_room(p, 10);
    while (v >= 0x80) {
        p->b[p->n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    p->b[p->n++] = (unsigned char)v;
}

static void pb_uint(struct pb *p, unsigned field, uint64_t v)
{
    pb_varint(p, (uint64_t)field << 3);   /* wire type 0 */
    pb_varint(p, v);
}

static void pb_fixed64(struct pb *p, unsigned field, uint64_t v)
{
    pb_varint(p, (uint64_t)field << 3 | 1);   /* wire type 1 */
    pb_room(p, 8);
    for (int i = 0; i < 8; i++)
        p->b[p->n++] = (unsigned char)(v >> (8 * i));
}

static void pb_bytes(struct pb *p, unsigned field, const void *s, size_t len)
{
    pb_varint(p, (uint64_t)field << 3 | 2);
    pb_varint(p, len);
    pb_room(p, len);
    memcpy(p->b + p->n, s, len);
    p->n += len;
}

static void pb_str(struct pb *p, unsigned field, const char *s)
{
    pb_bytes(p, field, s, strlen(s));
}

static void pb_msg(struct pb *p, unsigned field, const struct pb *m)
{
    pb_bytes(p, field, m->b, m->n);
}

/* --- the writer ------------------------------------------------------ */

struct open_slice {
    uint64_t t1;          /* 0: never ended */
    uint16_t depth;
};

struct seq {
    int started;
    size_t nopen, capopen;
    struct open_slice *open;
    unsigned char *named;   /* bit per name index: interned on this sequence */
    uint32_t cats;          /* bit per layer + 4 (see cat_iid): interned */
};

struct writer {
    FILE *f;
    struct pf_proc *pp;
    unsigned char *out;     /* packets gathered, written 1 MiB at a time */
    size_t nout;
    const struct trace *tr;
    struct pb pkt, ev, in, tmp;
    struct seq *seqs;
    size_t named_bytes;
    uint64_t async_uuid;
};

#define OUT_SIZE (1u << 20)

static void out_flush(struct writer *w)
{
    fwrite_unlocked(w->out, 1, w->nout, w->f);
    w->nout = 0;
}

static void out_bytes(struct writer *w, const void *b, size_t n)
{
    if (w->nout + n > OUT_SIZE) {
        out_flush(w);
        if (n > OUT_SIZE) {
            fwrite_unlocked(b, 1, n, w->f);
            return;
        }
    }
    memcpy(w->out + w->nout, b, n);
    w->nout += n;
}

static size_t put_varint(unsigned char *b, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        b[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    b[n++] = (unsigned char)v;
    return n;
}

/* A packet as Trace.packet (field 1). */
static void emit(struct writer *w, const struct pb *packet)
{
    unsigned char head[11];
    head[0] = 1u << 3 | 2;
    size_t n = 1 + put_varint(head + 1, packet->n);
    out_bytes(w, head, n);
    out_bytes(w, packet->b, packet->n);
}

/* The common packet, encoded at once: an event on the sequence's default
 * track with nothing to intern (a begin with its name and category ids,
 * an end). Same bytes as event() would make, written straight into the
 * output (its lengths are under 128, one byte each: at most 1 + 10 + 1 +
 * 10 + 1 + 1 + 14 + 2 = 40 bytes; two small copies a packet were a fifth
 * of the export's time). */
static void emit_small(struct writer *w, uint64_t seq, unsigned type, uint64_t ns, uint64_t name_iid, uint64_t cat)
{
    if (w->nout + 64 > OUT_SIZE)
        out_flush(w);
    unsigned char *o = w->out + w->nout, *p = o + 2;
    size_t np = 0;
    p[np++] = 8 << 3;
    np += put_varint(p + np, ns);
    p[np++] = 10 << 3;
    np += put_varint(p + np, seq);
    p[np++] = 11 << 3 | 2;
    size_t at = np++;   /* the event's length, once known */
    if (name_iid) {
        if (cat) {
            p[np++] = 3 << 3;
            np += put_varint(p + np, cat);
        }
        p[np++] = 10 << 3;
        np += put_varint(p + np, name_iid);
    }
    p[np++] = 9 << 3;
    p[np++] = (unsigned char)type;
    p[at] = (unsigned char)(np - at - 1);
    p[np++] = 13 << 3;
    p[np++] = 2;
    o[0] = 1u << 3 | 2;
    o[1] = (unsigned char)np;
    w->nout += 2 + np;
}

/* ns from the trace's start; a damaged time before it is 0 */
static uint64_t rel(const struct trace *tr, uint64_t t) { return t > tr->origin_ns ? t - tr->origin_ns : 0; }

static uint64_t proc_uuid(size_t p) { return (uint64_t)p << 32 | 0xffffffffu; }
static uint64_t thread_uuid(size_t t) { return t + 1; }

/* Categories by layer: interned id = layer + 5 (the reader's own layers
 * are negative, down to -4). */
static uint64_t cat_iid(int layer) { return (uint64_t)((int64_t)layer + 5); }   /* (a damaged file: any int) */

static void seq_start(struct writer *w, size_t t)
{
    struct seq *s = &w->seqs[t];
    if (s->started)
        return;
    s->started = 1;
    struct pb *p = &w->pkt, *d = &w->tmp, *e = &w->ev;
    p->n = d->n = e->n = 0;
    pb_uint(e, 11, thread_uuid(t));          /* TrackEventDefaults.track_uuid */
    pb_msg(d, 11, e);                        /* TracePacketDefaults.track_event_defaults */
    pb_uint(p, 10, t + 1);                   /* trusted_packet_sequence_id */
    pb_uint(p, 13, 1);                       /* SEQ_INCREMENTAL_STATE_CLEARED */
    pb_msg(p, 59, d);                        /* trace_packet_defaults */
    emit(w, p);
}

/* One event on thread t's sequence: type, at time ns, named (BEGIN,
 * INSTANT) by name index name with category layer; track: 0 for the
 * sequence's default (the thread's), or a track uuid. */
static void event_flows(struct writer *w, size_t t, unsigned type, uint64_t ns, int64_t name, int layer,
                        uint64_t track, const uint64_t *flows, size_t nflows)
{
    struct seq *s = &w->seqs[t];
    seq_start(w, t);
    if (!track && !nflows) {
        uint64_t ci = name >= 0 ? cat_iid(layer) : 0;
        int known = name < 0 || ((s->named[(size_t)name / 8] >> (name % 8) & 1) && (ci >= 32 || (s->cats >> ci & 1)));
        if (known) {
            emit_small(w, t + 1, type, ns, name >= 0 ? (uint64_t)name + 1 : 0, ci < 32 ? ci : 0);
            return;
        }
    }
    struct pb *p = &w->pkt, *e = &w->ev, *in = &w->in, *tmp = &w->tmp;
    p->n = e->n = in->n = 0;
    if (name >= 0) {
        unsigned char *bit = &s->named[(size_t)name / 8], m = (unsigned char)(1u << (name % 8));
        if (!(*bit & m)) {
            *bit |= m;
            tmp->n = 0;
            pb_uint(tmp, 1, (uint64_t)name + 1);
            pb_str(tmp, 2, w->tr->names[name].name);
            pb_msg(in, 2, tmp);              /* InternedData.event_names */
        }
        uint64_t ci = cat_iid(layer);
        if (ci < 32 && !(s->cats & (1u << ci))) {
            s->cats |= 1u << ci;
            tmp->n = 0;
            pb_uint(tmp, 1, ci);
            pb_str(tmp, 2, layer_str(layer));
            pb_msg(in, 1, tmp);              /* InternedData.event_categories */
        }
        if (ci < 32)
            pb_uint(e, 3, ci);               /* category_iids */
        pb_uint(e, 10, (uint64_t)name + 1);  /* name_iid */
    }
    pb_uint(e, 9, type);
    if (track)
        pb_uint(e, 11, track);
    for (size_t k = 0; k < nflows; k++)
        pb_fixed64(e, 47, flows[k]);         /* flow_ids: to the GPU work it launched */
    pb_uint(p, 8, ns);                       /* timestamp */
    pb_uint(p, 10, t + 1);                   /* trusted_packet_sequence_id */
    pb_msg(p, 11, e);
    if (in->n)
        pb_msg(p, 12, in);
    pb_uint(p, 13, 2);                       /* SEQ_NEEDS_INCREMENTAL_STATE */
    emit(w, p);
}

static void event(struct writer *w, size_t t, unsigned type, uint64_t ns, int64_t name, int layer, uint64_t track)
{
    event_flows(w, t, type, ns, name, layer, track, NULL, 0);
}

/* Ends the slices of thread t open at depth >= depth. A call that never
 * returned gets no end, unless something shows it cannot still be running
 * (a damaged record): a later call of the thread at its depth or above
 * (bound, its start), or an enclosing call that returned (its end); the
 * viewer's end would otherwise close the wrong slice. */
static void close_to(struct writer *w, size_t t, unsigned depth, uint64_t bound)
{
    struct seq *s = &w->seqs[t];
    while (s->nopen && s->open[s->nopen - 1].depth >= depth) {
        struct open_slice *o = &s->open[--s->nopen];
        uint64_t end = o->t1;
        /* one that never ended (a call that never returned, a range never
         * popped): ended by the nearest enclosing call that returned, or
         * by the next call starting outside it if that comes first (the
         * sequence stays in time order: the enclosing call's end follows) */
        for (size_t k = s->nopen; !end && k-- > 0;)
            end = s->open[k].t1;
        if (!o->t1 && bound && (!end || bound < end))
            end = bound;
        if (end)
            event(w, t, 2, rel(w->tr, end), -1, 0, 0);
    }
}

static void push(struct writer *w, size_t t, uint64_t t1, unsigned depth)
{
    struct seq *s = &w->seqs[t];
    if (s->nopen == s->capopen) {
        s->capopen = s->capopen ? s->capopen * 2 : 16;
        s->open = realloc(s->open, s->capopen * sizeof *s->open);
        if (!s->open) {
            fprintf(stderr, "cutap: out of memory\n");
            exit(1);
        }
    }
    s->open[s->nopen++] = (struct open_slice){t1, (uint16_t)depth};
}

static void descriptors(struct writer *w)
{
    const struct trace *tr = w->tr;
    struct pb *p = &w->pkt, *d = &w->ev, *x = &w->tmp;
    for (size_t i = 0; i < tr->nprocs; i++) {
        const struct cutap_file_header *h = &tr->procs[i].h;
        char name[512];
        proc_display_name(h, name, sizeof name);
        p->n = d->n = x->n = 0;
        pb_uint(x, 1, (uint64_t)w->pp[i].pid);
        pb_str(x, 6, name);
        pb_uint(d, 1, proc_uuid(i));
        pb_msg(d, 3, x);
        pb_msg(p, 60, d);
        emit(w, p);
    }
    for (size_t t = 0; t < tr->nthreads; t++) {
        const struct tr_thread *th = &tr->threads[t];
        char tname[32];
        if (th->name[0])
            snprintf(tname, sizeof tname, "%s", th->name);
        else
            snprintf(tname, sizeof tname, "tid %d", th->tid);
        p->n = d->n = x->n = 0;
        pb_uint(x, 1, (uint64_t)w->pp[th->proc].pid);
        /* a thread of a process shown under a made-up pid gets a made-up
         * tid too: the viewer keys threads by tid */
        int64_t tid = w->pp[th->proc].pid == tr->procs[th->proc].h.pid ? th->tid : w->pp[th->proc].pid * 64 + (int64_t)t;
        pb_uint(x, 2, (uint64_t)tid);
        pb_str(x, 5, tname);
        pb_uint(d, 1, thread_uuid(t));
        pb_uint(d, 5, proc_uuid(th->proc));
        pb_msg(d, 4, x);
        pb_msg(p, 60, d);
        emit(w, p);
    }
}

/* --- GPU activity (cutap trace --gpu) -------------------------------------
 * A track per process, device and stream, under the process; each kernel,
 * copy or memset a slice on it, named inline, on a packet sequence per
 * track (in start order); a flow from the launching call's slice (its
 * flow_ids) ends on it (terminating_flow_ids). Flow id: the process's index
 * and the record's, + 1. */
static uint64_t gpu_uuid(size_t pi, const struct tr_gpu *x, unsigned lane)
{
    return (uint64_t)1 << 61 | (uint64_t)(pi & 0xfffff) << 40 | (uint64_t)(x->g->context & 0xff) << 32 |
           (uint64_t)(x->g->device & 0xff) << 24 | (uint64_t)(lane & 0xff) << 16 | (x->g->stream & 0xffff);
}
static uint64_t gpu_flow(size_t pi, size_t k) { return ((uint64_t)pi << 40 | k) + 1; }

static const struct trace *sort_tr;
static size_t sort_pi;
static int cmp_gpu_track(const void *a, const void *b)
{
    const struct tr_proc *p = &sort_tr->procs[sort_pi];
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const struct tr_gpu *x = &p->gpu[i], *y = &p->gpu[j];
    uint64_t u = gpu_uuid(sort_pi, x, p->gpu_lane[i]), v = gpu_uuid(sort_pi, y, p->gpu_lane[j]);
    if (u != v)
        return u < v ? -1 : 1;
    return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

static void gpu_tracks(struct writer *w)
{
    const struct trace *tr = w->tr;
    struct pb *p = &w->pkt, *d = &w->ev;
    uint32_t seq = 0xf0000000u;
    for (size_t pi = 0; pi < tr->nprocs; pi++) {
        const struct tr_proc *gp = &tr->procs[pi];
        if (!gp->ngpu)
            continue;
        size_t *ord = xcalloc(gp->ngpu, sizeof *ord);
        for (size_t k = 0; k < gp->ngpu; k++)
            ord[k] = k;
        sort_tr = tr, sort_pi = pi;
        qsort(ord, gp->ngpu, sizeof *ord, cmp_gpu_track);
        uint64_t last = 0;
        for (size_t j = 0; j < gp->ngpu; j++) {
            const struct tr_gpu *x = &gp->gpu[ord[j]];
            uint64_t uuid = gpu_uuid(pi, x, gp->gpu_lane[ord[j]]);
            if (uuid != last) {   /* a new track: its descriptor */
                char name[96];
                gpu_track_name(x, gp->gpu_lane[ord[j]], name, sizeof name);
                p->n = d->n = 0;
                pb_uint(d, 1, uuid);
                pb_str(d, 2, name);
                pb_uint(d, 5, proc_uuid(pi));
                pb_msg(p, 60, d);
                emit(w, p);
                last = uuid;
                seq++;
            }
            if (!x->t0 || x->t1 < x->t0)
                continue;
            char label[4096];
            gpu_label(gp, x, label, sizeof label);
            for (int k = 0; k < 2; k++) {
                p->n = d->n = 0;
                if (!k) {
                    pb_str(d, 23, label);   /* TrackEvent.name */
                    if (x->call_off)
                        pb_fixed64(d, 48, gpu_flow(pi, ord[j]));   /* terminating_flow_ids */
                }
                pb_uint(d, 9, k ? 2 : 1);
                pb_uint(d, 11, uuid);
                pb_uint(p, 8, rel(tr, k ? x->t1 : x->t0));
                pb_uint(p, 10, seq);
                pb_msg(p, 11, d);
                emit(w, p);
            }
        }
        free(ord);
    }
}

/* A range that does not nest: a slice on a track of its own, under its
 * process, on a packet sequence of its own (its end may come long after
 * later events of its thread's sequence), named inline (TrackEvent.name,
 * 23), nothing interned. */
static void async_range(struct writer *w, const struct tr_call *c)
{
    const struct trace *tr = w->tr;
    const struct tr_thread *th = &tr->threads[c->thread];
    uint64_t uuid = ++w->async_uuid, seq = tr->nthreads + 1 + (uuid - ((uint64_t)1 << 62));
    struct pb *p = &w->pkt, *d = &w->ev;
    p->n = d->n = 0;
    pb_uint(d, 1, uuid);
    pb_str(d, 2, tr->names[c->name].name);
    pb_uint(d, 5, proc_uuid(th->proc));
    pb_msg(p, 60, d);
    emit(w, p);
    uint64_t end = c->t1 ? c->t1 : tr_range_of(c)->draw_t1;
    for (int k = 0; k < 2; k++) {
        p->n = d->n = 0;
        if (!k)
            pb_str(d, 23, tr->names[c->name].name);
        pb_uint(d, 9, k ? 2 : 1);
        pb_uint(d, 11, uuid);
        pb_uint(p, 8, rel(tr, k ? end : c->t0));
        pb_uint(p, 10, seq);
        pb_msg(p, 11, d);
        emit(w, p);
    }
}

/* One call or range, in the order of the trace (cli/parallel.c: with one
 * worker the walk and the file are on the calling thread and this on the
 * worker, in order: the sequences' state stays sequential). */
static void proto_entry(void *wv, FILE *f, const struct tr_call *c, size_t index, size_t n)
{
    (void)index, (void)n;
    struct writer *w = wv;
    const struct trace *tr = w->tr;
    w->f = f;
    struct seq *s = &w->seqs[c->thread];
    if (!s->named)
        s->named = xcalloc(w->named_bytes, 1);
    close_to(w, c->thread, c->depth, c->t0);
    int layer = tr->names[c->name].layer;
    if (c->rflags & TR_RF_RANGE) {
        const struct tr_range *r = tr_range_of(c);
        if (r->kind == TR_RANGE_MARK) {
            event(w, c->thread, 3, rel(tr, c->t0), c->name, layer, 0);
            return;
        }
        if (c->rflags & TR_RF_ASYNC) {
            async_range(w, c);
            return;
        }
    }
    const struct tr_gpu *gx;
    size_t pi = tr->threads[c->thread].proc, ng = tr_gpu_of(&tr->procs[pi], c, &gx);
    if (ng) {   /* a launch: flows to what it put on the GPU */
        uint64_t *flows = xcalloc(ng, sizeof *flows);
        size_t nf = 0, k0 = (size_t)(gx - tr->procs[pi].gpu);
        for (size_t k = 0; k < ng; k++)
            if (gx[k].t0 && gx[k].t1 >= gx[k].t0)
                flows[nf++] = gpu_flow(pi, k0 + k);
        event_flows(w, c->thread, 1, rel(tr, c->t0), c->name, layer, 0, flows, nf);
        free(flows);
    } else {
        event(w, c->thread, 1, rel(tr, c->t0), c->name, layer, 0);
    }
    push(w, c->thread, c->t1, c->depth);
}

/* A block's last entry encoded (on the worker): what is buffered goes to
 * the block's stream, once a block, not once an entry (that was 119 of
 * the worker's 515 instructions a call: a stdio write of ~30 bytes). */
static void proto_block_end(void *wv, FILE *f)
{
    struct writer *w = wv;
    w->f = f;
    out_flush(w);
}

int write_perfetto_proto(const struct trace *tr, FILE *f)
{
    struct writer w = {.f = f, .tr = tr, .async_uuid = (uint64_t)1 << 62};
    w.seqs = xcalloc(tr->nthreads, sizeof *w.seqs);
    w.out = xcalloc(OUT_SIZE, 1);
    w.pp = pf_procs(tr);
    descriptors(&w);
    w.named_bytes = (tr->nnames + 7) / 8;   /* the names are all known: nothing interns during the walk */
    out_flush(&w);   /* the descriptors, before the blocks */
    /* the walk and the file on this thread, the encoding on one worker
     * where two CPUs may be used (issue #27: about 1.7 times one thread's
     * rate); its state is one sequence's, so never more than one */
    unsigned nw = cli_par_workers(tr) ? 1 : 0;
    struct cli_par par = {.tr = tr, .what = "export", .out = f, .fmt = proto_entry, .block_end = proto_block_end, .arg = &w};
    int err, rc = cli_par_run(&par, nw, &err);   /* (a write's error shows in ferror(f)) */
    (void)err;
    w.f = f;
    for (size_t t = 0; t < tr->nthreads; t++)
        close_to(&w, t, 0, 0);
    gpu_tracks(&w);
    for (size_t t = 0; t < tr->nthreads; t++) {
        free(w.seqs[t].open);
        free(w.seqs[t].named);
    }
    free(w.seqs);
    out_flush(&w);
    free(w.out);
    free(w.pp);
    free(w.pkt.b), free(w.ev.b), free(w.in.b), free(w.tmp.b);
    if (tr->ncounters)
        fprintf(stderr, "cutap export: %zu counters not exported (use --format jsonl or sqlite)\n", tr->ncounters);
    return rc;
}
