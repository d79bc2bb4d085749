/* cutap export --format jsonl: one JSON object a line. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"
#include "nv_params.h"

/* An NVTX range or mark (trace_read.h) as a JSON line: "type":"range" or
 * "mark", the fields a call has but result, args and decoding, and
 * "kind":"push"|"start", "nested" (whether it is the parent of what ran
 * inside it), "domain". dur_ns is null, and "unfinished":true, for a range
 * never ended. */
/* The fields every JSON line starts with: type, id, parent, time,
 * duration, host, pid, tid, rank. */
static void jsonl_head(FILE *f, const struct trace *tr, const struct tr_call *c, size_t i, const char *type,
                       const char *jhost)
{
    const struct tr_thread *t = &tr->threads[c->thread];
    const struct cutap_file_header *h = &tr->procs[t->proc].h;
    /* (integers without printf: a line is written millions of times) */
    out_s("{\"type\":\"", f);
    out_s(type, f);
    out_s("\",\"id\":", f);
    text_u64(f, i + 1);
    out_s(",\"parent\":", f);
    if (c->parent)
        text_u64(f, c->parent);
    else
        out_s("null", f);
    out_s(",\"t_ns\":", f);
    text_u64(f, c->t0 - tr->origin_ns);
    out_s(",\"dur_ns\":", f);
    if (c->t1)
        text_u64(f, c->t1 - c->t0);
    else
        out_s("null", f);
    out_s(",\"host\":", f);
    out_s(jhost, f);
    out_s(",\"pid\":", f);
    text_i64(f, h->pid);
    out_s(",\"tid\":", f);
    text_i64(f, t->tid);
    out_s(",\"rank\":", f);
    if (h->rank >= 0)
        text_i64(f, h->rank);
    else
        out_s("null", f);
}

static void jsonl_range(FILE *f, const struct trace *tr, const struct tr_call *c, size_t i, const char *jhost,
                        const char *jname)
{
    const struct tr_range *r = tr_range_of(c);
    jsonl_head(f, tr, c, i, r->kind == TR_RANGE_MARK ? "mark" : "range", jhost);
    fprintf(f, ",\"layer\":\"%s\",\"name\":%s,\"depth\":%u,", layer_str(tr->names[c->name].layer), jname, c->depth);
    if (r->kind != TR_RANGE_MARK)
        fprintf(f, "\"kind\":\"%s\",\"nested\":%s,", r->kind == TR_RANGE_PUSH ? "push" : "start",
                c->rflags & TR_RF_ASYNC ? "false" : "true");
    fprintf(f, "\"domain\":\"0x%llx\"%s}\n", (unsigned long long)r->domain, c->t1 ? "" : ",\"unfinished\":true");
}

/* A kernel, copy or memset (cutap trace --gpu): "type":"gpu", the
 * launching call's id (null: not joined), its GPU start and duration. */
static void jsonl_gpu(FILE *f, const struct trace *tr, size_t pi, const struct tr_gpu *x, size_t call,
                      const char *jhost)
{
    const struct tr_proc *p = &tr->procs[pi];
    out_s("{\"type\":\"gpu\",\"call\":", f);
    if (call)
        text_u64(f, call);
    else
        out_s("null", f);
    out_s(",\"t_ns\":", f);
    if (x->t0)
        text_u64(f, x->t0 > tr->origin_ns ? x->t0 - tr->origin_ns : 0);
    else
        out_s("null", f);
    out_s(",\"dur_ns\":", f);
    if (x->t0 && x->t1 >= x->t0)
        text_u64(f, x->t1 - x->t0);
    else
        out_s("null", f);
    out_s(",\"host\":", f);
    out_s(jhost, f);
    fprintf(f, ",\"pid\":%d", p->h.pid);
    json_gpu_fields(f, p, x);
    out_s("}\n", f);
}

/* One entry (cli/parallel.c: on the thread w belongs to). */
static void jsonl_fmt(void *wp, FILE *f, const struct tr_call *c, size_t i, size_t n)
{
    (void)n;
    struct export_worker *w = wp;
    const struct trace *tr = w->tr;
    char **jname = w->jname, **jhost = w->jhost;
    const struct tr_thread *t = &tr->threads[c->thread];
    if (c->rflags & TR_RF_RANGE) {
        jsonl_range(f, tr, c, i, jhost[t->proc], jname[c->name]);
        return;
    }
    jsonl_head(f, tr, c, i, "call", jhost[t->proc]);
    out_s(",\"layer\":\"", f);
    out_s(layer_str(tr->names[c->name].layer), f);
    out_s("\",\"name\":", f);
    out_s(jname[c->name], f);
    out_s(",\"depth\":", f);
    text_u64(f, c->depth);
    if (c->t1) {
        out_s(",\"result\":", f);
        text_u64(f, tr_result(c));
        out_s(",\"args\":[", f);
    } else {
        out_s(",\"result\":null,\"args\":[", f);   /* it never returned */
    }
    const uint64_t *words = tr_args(c);
    for (unsigned a = 0; a < c->rec->nargs; a++) {
        out_s(a ? ",\"" : "\"", f);
        text_hex(f, words[a]);
        out_c('"', f);
    }
    out_c(']', f);
    /* The same call decoded, as cutap dump prints it. */
    decode_call(&w->dec, tr, c);
    out_s(",\"status\":", f);
    if (c->t1)
        json_str(f, w->dec.buf + w->dec.status_at);
    else
        out_s("null", f);
    out_s(",\"decoded\":", f);
    json_str(f, w->dec.buf);
    json_kernel_object(f, tr, c);
    if (!c->t1)
        out_s(",\"unfinished\":true", f);
    if (c->flags & CUTAP_RF_INJECTED)
        out_s(c->flags & CUTAP_RF_SKIPPED ? ",\"injected\":\"not made\"" : ",\"injected\":\"delayed\"", f);
    struct nvp_block pb;
    if (nvp_block_of(tr, c, &pb)) {   /* trace --ioctl-params */
        out_s(",\"params\":", f);
        nvp_put_json(f, &pb);
    }
    const struct cutap_stack_frame *fr;
    unsigned nfr = tr_call_stack(tr, c, &fr);
    if (nfr) {
        const struct tr_proc *sp = &tr->procs[t->proc];
        out_s(",\"stack\":[", f);
        for (unsigned k = 0; k < nfr; k++) {
            char buf[512];
            sym_stack_frame(tr, sp, &fr[k], buf, sizeof buf);
            if (k)
                out_c(',', f);
            json_str(f, buf);
        }
        out_c(']', f);
    }
    out_s("}\n", f);
    const struct tr_gpu *x;
    size_t ng = tr_gpu_of(&tr->procs[t->proc], c, &x);
    for (size_t k = 0; k < ng; k++)
        jsonl_gpu(f, tr, t->proc, x + k, i + 1, jhost[t->proc]);
}

int write_jsonl(const struct trace *tr, FILE *f)
{
    char **jname = json_names(tr);
    char **jhost = calloc(tr->nprocs ? tr->nprocs : 1, sizeof *jhost);
    if (!jhost) {
        fprintf(stderr, "cutap: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < tr->nprocs; i++)
        jhost[i] = json_dup(tr->procs[i].h.host);
    struct export_worker base = {.tr = tr, .jname = jname, .jhost = jhost};
    struct cli_par par = {.tr = tr, .what = "export", .out = f, .fmt = jsonl_fmt, .init = export_worker_new,
                          .fini = export_worker_free, .arg = &base};
    int err, rc = cli_par_run(&par, cli_par_workers(tr), &err);   /* (a write's error shows in ferror(f)) */
    for (size_t i = 0; i < tr->ncounters; i++) {
        const struct tr_counter *k = &tr->counters[i];
        const struct tr_thread *t = &tr->threads[k->thread];
        fprintf(f,
                "{\"type\":\"counter\",\"host\":%s,\"pid\":%d,\"tid\":%d,\"layer\":\"%s\",\"name\":%s,"
                "\"calls\":%llu,\"errors\":%llu,\"total_ns\":%llu,\"min_ns\":%llu,\"max_ns\":%llu,\"timed\":%llu}\n",
                jhost[t->proc], tr->procs[t->proc].h.pid, t->tid, layer_str(tr->names[k->name].layer),
                jname[k->name], (unsigned long long)k->calls, (unsigned long long)k->errors,
                (unsigned long long)k->total_ns, (unsigned long long)k->min_ns, (unsigned long long)k->max_ns,
                (unsigned long long)k->timed);
    }
    /* GPU records joined to no call */
    for (size_t i = 0; i < tr->nprocs; i++)
        for (size_t k = 0; k < tr->procs[i].ngpu && !tr->procs[i].gpu[k].call_off; k++)
            jsonl_gpu(f, tr, i, &tr->procs[i].gpu[k], 0, jhost[i]);
    /* What NVIDIA libraries read from the environment (issue #32) */
    for (size_t i = 0; i < tr->nprocs; i++)
        for (size_t k = 0; k < tr->procs[i].nenv; k++) {
            const struct tr_proc *p = &tr->procs[i];
            const struct tr_env *e = &p->env[k];
            uint64_t t = tr_env_ns(p, e);
            fprintf(f, "{\"type\":\"env\",\"t_ns\":%llu,\"host\":%s,\"pid\":%d,\"tid\":%d,\"name\":",
                    (unsigned long long)(t > tr->origin_ns ? t - tr->origin_ns : 0), jhost[i], p->h.pid,
                    tr->threads[e->thread].tid);
            json_str(f, e->name);
            out_s(",\"value\":", f);
            json_str_or_null(f, e->value);
            fprintf(f, ",\"secure\":%s,\"early\":%s,\"object\":", e->flags & CUTAP_ENV_SECURE ? "true" : "false",
                    e->flags & CUTAP_ENV_EARLY ? "true" : "false");
            json_str(f, tr_env_object(tr, p, e));
            out_s("}\n", f);
        }
    /* Processes whose recording lost calls or names (version 3 header). */
    for (size_t i = 0; i < tr->nprocs; i++) {
        const struct tr_proc *p = &tr->procs[i];
        char loss[1024];
        int lost = tr_loss_text(p, loss, 256);
        size_t ll = lost ? strlen(loss) : 0;
        if (tr_window_text(tr, p, loss + ll + (lost ? 2 : 0), sizeof loss - ll - 2)) {
            if (lost)
                memcpy(loss + ll, "; ", 2);
            lost = 1;
        }
        if (!lost)
            continue;
        fprintf(f, "{\"type\":\"process\",\"host\":%s,\"pid\":%d,", jhost[i], p->h.pid);
        json_loss(f, p, loss);
        out_s("}\n", f);
    }
    free_strs(jhost, tr->nprocs);
    free_strs(jname, tr->nnames);
    return rc;
}
