/* cutap export --format perfetto: Chrome/Perfetto JSON (trace events). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"
#include "nv_params.h"

/* An NVTX range or mark (the reader's, trace_read.h) as Perfetto events:
 * a push/pop range that nests is a slice on its thread's track, like the
 * calls inside it (one never ended is drawn to where tr_range.draw_t1
 * says, "(unfinished)" added to its name); a start/end range, or a push/pop
 * that does not nest, is an async slice (b/e, id = its entry's index + 1);
 * a mark is an instant. cat: "range" or "mark". */
static void pf_range(FILE *f, const struct trace *tr, const struct tr_call *c, size_t i, int64_t pid, int tid)
{
    const struct tr_range *r = tr_range_of(c);
    const char *msg = tr->names[c->name].name;
    uint64_t end = c->t1 ? c->t1 : r->draw_t1;
    char un[512];
    if (!c->t1 && r->kind != TR_RANGE_MARK) {
        snprintf(un, sizeof un, "%s (unfinished)", msg);
        msg = un;
    }
    if (r->kind == TR_RANGE_MARK) {
        fprintf(f, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":%lld,\"tid\":%d,\"ts\":", (long long)pid, tid);
        put_us(f, c->t0 - tr->origin_ns);
    } else if (c->rflags & TR_RF_ASYNC) {
        fprintf(f, "{\"ph\":\"b\",\"id\":\"0x%zx\",\"pid\":%lld,\"tid\":%d,\"ts\":", i + 1, (long long)pid, tid);
        put_us(f, c->t0 - tr->origin_ns);
        out_s(",\"name\":", f);
        json_str(f, msg);
        fprintf(f, ",\"cat\":\"range\"},\n{\"ph\":\"e\",\"id\":\"0x%zx\",\"pid\":%lld,\"tid\":%d,\"ts\":", i + 1,
                (long long)pid, tid);
        put_us(f, end - tr->origin_ns);
    } else {
        fprintf(f, "{\"ph\":\"X\",\"pid\":%lld,\"tid\":%d,\"ts\":", (long long)pid, tid);
        put_us(f, c->t0 - tr->origin_ns);
        out_s(",\"dur\":", f);
        put_us(f, end - c->t0);
    }
    out_s(",\"name\":", f);
    json_str(f, msg);
    fprintf(f, ",\"cat\":\"%s\",\"args\":{\"depth\":%u,\"domain\":\"0x%llx\"}}", layer_str(tr->names[c->name].layer),
            c->depth, (unsigned long long)r->domain);
}

/* A kernel, copy or memset (cutap trace --gpu) as a slice on its device's
 * and stream's track in the process (gpu_track_tid), with a flow arrow
 * from the launching call (flow id: the process's index and the record's,
 * 0 without a call). */
static void pf_gpu(FILE *f, const struct trace *tr, const struct pf_proc *pp, size_t pi, size_t k,
                   const struct tr_call *c)
{
    const struct tr_proc *p = &tr->procs[pi];
    const struct tr_gpu *x = &p->gpu[k];
    if (!x->t0 || x->t1 < x->t0)
        return;   /* no GPU time: nothing to draw */
    unsigned long long flow = ((unsigned long long)pi << 40 | k) + 1;
    uint32_t gt = gpu_track_tid(x, p->gpu_lane[k]);
    if (c) {
        fprintf(f, ",\n{\"ph\":\"s\",\"id\":%llu,\"pid\":%lld,\"tid\":%d,\"ts\":", flow, (long long)pp[pi].pid,
                tr->threads[c->thread].tid);
        put_us(f, c->t0 > tr->origin_ns ? c->t0 - tr->origin_ns : 0);
        out_s(",\"name\":\"launch\",\"cat\":\"gpu\"}", f);
    }
    fprintf(f, ",\n{\"ph\":\"X\",\"pid\":%lld,\"tid\":%u,\"ts\":", (long long)pp[pi].pid, gt);
    put_us(f, x->t0 > tr->origin_ns ? x->t0 - tr->origin_ns : 0);
    out_s(",\"dur\":", f);
    put_us(f, x->t1 - x->t0);
    char buf[4096];
    out_s(",\"name\":", f);
    json_str(f, gpu_label(p, x, buf, sizeof buf));
    out_s(",\"cat\":\"gpu\",\"args\":{\"launched_by\":", f);
    json_str(f, c ? tr->names[c->name].name : "(not joined)");
    json_gpu_fields(f, p, x);
    out_s("}}", f);
    if (c) {
        fprintf(f, ",\n{\"ph\":\"f\",\"bp\":\"e\",\"id\":%llu,\"pid\":%lld,\"tid\":%u,\"ts\":", flow,
                (long long)pp[pi].pid, gt);
        put_us(f, x->t0 > tr->origin_ns ? x->t0 - tr->origin_ns : 0);
        out_s(",\"name\":\"launch\",\"cat\":\"gpu\"}", f);
    }
}

/* One call or range (cli/parallel.c: on the thread w belongs to). */
static void pf_fmt(void *wp, FILE *f, const struct tr_call *c, size_t i, size_t n)
{
    struct export_worker *w = wp;
    const struct trace *tr = w->tr;
    const struct pf_proc *pp = w->pp;
    char **jname = w->jname;
    const struct tr_thread *t = &tr->threads[c->thread];
    const struct tr_name *nm = &tr->names[c->name];
    out_s(n || !w->lead ? ",\n" : "\n", f);   /* (after the metadata, or the first line) */
    if (c->rflags & TR_RF_RANGE) {
        pf_range(f, tr, c, i, pp[t->proc].pid, t->tid);
        return;
    }
    if (c->t1) {
        out_s("{\"ph\":\"X\",\"pid\":", f);   /* (without printf: a line a call) */
        text_i64(f, pp[t->proc].pid);
        out_s(",\"tid\":", f);
        text_i64(f, t->tid);
        out_s(",\"ts\":", f);
        put_us(f, c->t0 - tr->origin_ns);
        out_s(",\"dur\":", f);
        put_us(f, c->t1 - c->t0);
        out_s(",\"name\":", f);
        out_s(jname[c->name], f);
    } else {
        fprintf(f, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":%lld,\"tid\":%d,\"ts\":", (long long)pp[t->proc].pid,
                t->tid);
        put_us(f, c->t0 - tr->origin_ns);
        out_s(",\"name\":", f);
        char un[512];
        snprintf(un, sizeof un, "%s (unfinished)", nm->name);
        json_str(f, un);
    }
    out_s(",\"cat\":\"", f);
    out_s(layer_str(nm->layer), f);
    out_s("\",\"args\":{", f);
    /* An unfinished call has no result. JavaScript numbers are
     * doubles: a raw return register (untyped calls) above 2^53 would
     * be rounded, so it goes out as hex. */
    if (!c->t1)
        ;
    else if (tr_result(c) < (1ull << 53)) {
        out_s("\"result\":", f);
        text_u64(f, tr_result(c));
        out_c(',', f);
    } else
        fprintf(f, "\"result\":\"0x%llx\",", (unsigned long long)tr_result(c));
    decode_call(&w->dec, tr, c);
    if (c->flags & CUTAP_RF_INJECTED)
        out_s(c->flags & CUTAP_RF_SKIPPED ? "\"injected\":\"not made\"," : "\"injected\":\"delayed\",", f);
    if (c->t1) {
        out_s("\"status\":", f);
        json_str(f, w->dec.buf + w->dec.status_at);
        out_c(',', f);
    }
    out_s("\"depth\":", f);
    text_u64(f, c->depth);
    out_s(",\"decoded\":", f);
    json_str(f, w->dec.buf);
    const uint64_t *words = tr_args(c);
    for (unsigned a = 0; a < c->rec->nargs; a++) {
        out_s(",\"a", f);
        text_u64(f, a);
        out_s("\":\"", f);
        text_hex(f, words[a]);
        out_c('"', f);
    }
    json_kernel_object(f, tr, c);
    struct nvp_block pb;
    if (nvp_block_of(tr, c, &pb)) {   /* trace --ioctl-params: the block, as in the JSON lines */
        out_s(",\"params\":", f);
        nvp_put_json(f, &pb);
    }
    out_s("}}", f);
    const struct tr_gpu *x;
    size_t ng = tr_gpu_of(&tr->procs[t->proc], c, &x);
    for (size_t k = 0; k < ng; k++)
        pf_gpu(f, tr, pp, t->proc, (size_t)(x - tr->procs[t->proc].gpu) + k, c);
}

int write_perfetto(const struct trace *tr, FILE *f)
{
    struct pf_proc *pp = pf_procs(tr);
    char **jname = json_names(tr);
    int first = 1;
#define SEP() (out_s(first ? "\n" : ",\n", f), first = 0)

    /* Threads grouped by process: tord[tstart[p] .. tstart[p+1]) are the
     * threads of process p (a counting sort). */
    size_t *tstart = calloc(tr->nprocs + 1, sizeof *tstart), *fill = calloc(tr->nprocs + 1, sizeof *fill);
    size_t *tord = calloc(tr->nthreads ? tr->nthreads : 1, sizeof *tord);
    if (!tstart || !fill || !tord) {
        fprintf(stderr, "cutap: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < tr->nthreads; i++)
        tstart[tr->threads[i].proc + 1]++;
    for (size_t i = 0; i < tr->nprocs; i++)
        tstart[i + 1] += tstart[i];
    memcpy(fill, tstart, (tr->nprocs + 1) * sizeof *fill);
    for (size_t i = 0; i < tr->nthreads; i++)
        tord[fill[tr->threads[i].proc]++] = i;
    free(fill);

    out_s("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", f);
    /* Metadata first, each process followed by its threads. Perfetto
     * names a thread by tid alone (the newest thread with that tid), so a
     * thread is named right after the event that creates it: a tid that
     * recurs in another process (exec, other hosts) is not misnamed. The
     * process events carry no tid (Perfetto takes tid = pid). */
    for (size_t i = 0; i < tr->nprocs; i++) {
        char name[512];
        proc_display_name(&tr->procs[i].h, name, sizeof name);
        SEP();
        fprintf(f, "{\"ph\":\"M\",\"pid\":%lld,\"name\":\"process_name\",\"args\":{\"name\":", (long long)pp[i].pid);
        json_str(f, name);
        out_s("}}", f);
        SEP();
        fprintf(f, "{\"ph\":\"M\",\"pid\":%lld,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%zu}}",
                (long long)pp[i].pid, pp[i].sort_index);
        char loss[1024];
        int lost = tr_loss_text(&tr->procs[i], loss, 256);
        size_t ll = lost ? strlen(loss) : 0;
        if (tr_window_text(tr, &tr->procs[i], loss + ll + (lost ? 2 : 0), sizeof loss - ll - 2)) {
            if (lost)
                memcpy(loss + ll, "; ", 2);
            lost = 1;
        }
        if (lost) {
            /* shown beside the process name; the numbers as args */
            SEP();
            fprintf(f, "{\"ph\":\"M\",\"pid\":%lld,\"name\":\"process_labels\",\"args\":{\"labels\":",
                    (long long)pp[i].pid);
            json_str(f, loss);
            out_c(',', f);
            json_loss(f, &tr->procs[i], loss);
            out_s("}}", f);
        }
        for (size_t k = tstart[i]; k < tstart[i + 1]; k++) {
            const struct tr_thread *t = &tr->threads[tord[k]];
            char tname[32];
            if (t->name[0])
                snprintf(tname, sizeof tname, "%s", t->name);
            else
                snprintf(tname, sizeof tname, "tid %d", t->tid);
            SEP();
            fprintf(f, "{\"ph\":\"M\",\"pid\":%lld,\"tid\":%d,\"name\":\"thread_name\",\"args\":{\"name\":",
                    (long long)pp[i].pid, t->tid);
            json_str(f, tname);
            out_s("}}", f);
        }
        /* its GPU tracks, one per device and stream (few: a list) */
        const struct tr_proc *gp = &tr->procs[i];
        uint32_t *seen = NULL;
        size_t nseen = 0, cap_seen = 0;
        for (size_t k = 0; k < gp->ngpu; k++) {
            const struct tr_gpu *x = &gp->gpu[k];
            uint32_t gt = gpu_track_tid(x, gp->gpu_lane[k]);
            size_t j = 0;
            while (j < nseen && seen[j] != gt)
                j++;
            if (j < nseen)
                continue;
            if (nseen == cap_seen) {
                cap_seen = cap_seen ? 2 * cap_seen : 16;
                if (!(seen = realloc(seen, cap_seen * sizeof *seen))) {
                    fprintf(stderr, "cutap: out of memory\n");
                    exit(1);
                }
            }
            seen[nseen++] = gt;
            char tn[96];
            gpu_track_name(x, gp->gpu_lane[k], tn, sizeof tn);
            SEP();
            fprintf(f, "{\"ph\":\"M\",\"pid\":%lld,\"tid\":%u,\"name\":\"thread_name\",\"args\":{\"name\":\"%s\"}}",
                    (long long)pp[i].pid, gt, tn);
        }
        free(seen);
    }
    free(tstart);
    free(tord);
    struct export_worker base = {.tr = tr, .jname = jname, .pp = pp, .lead = first};
    struct cli_par par = {.tr = tr, .what = "export", .out = f, .fmt = pf_fmt, .init = export_worker_new,
                          .fini = export_worker_free, .arg = &base};
    int err, rc = cli_par_run(&par, cli_par_workers(tr), &err);   /* (a write's error shows in ferror(f)) */
    for (size_t i = 0; i < tr->nprocs; i++)   /* GPU records joined to no call */
        for (size_t k = 0; k < tr->procs[i].ngpu && !tr->procs[i].gpu[k].call_off; k++)
            pf_gpu(f, tr, pp, i, k, NULL);
    out_s("\n]}\n", f);
#undef SEP
    if (tr->ncounters)
        fprintf(stderr,
                "cutap export: %zu counters not exported (counters are not events; use --format jsonl or "
                "sqlite)\n",
                tr->ncounters);
    free_strs(jname, tr->nnames);
    free(pp);
    return rc;
}
