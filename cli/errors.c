/* `cutap report --errors` (issue #17, part 2): where errors began. Per
 * process and thread, the first failing call of each function, with its
 * arguments and result, and how many more of it failed; per process, the
 * first call that returned a sticky error (the context is unusable after
 * an illegal address, a failed launch, a device assert…: every later call
 * fails with it) and the calls that returned one after it, and the kernel
 * launches made since the last successful synchronisation before it
 * (where an asynchronous kernel error comes from: one of them). Calls fault
 * injection made fail are marked; each call's native stack follows it
 * when one was recorded (cutap trace --stack). `cutap trace --sync-launches` makes the launch that made a kernel
 * error return it itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cutap.h"
#include "cutap_format.h"
#include "cutap_cuda_abi.h"

/* A sticky error of the driver or the runtime (cutap_cuda_abi.h). */
static int sticky(const struct trace *tr, const struct tr_call *c)
{
    int layer = tr->names[c->name].layer;
    return (layer == CUTAP_LAYER_DRIVER || layer == CUTAP_LAYER_RUNTIME) && cutap_status_is_sticky((uint32_t)tr_result(c));
}

static int name_is(const char *n, const char *const *list)
{
    for (; *list; list++)
        if (!strncmp(n, *list, strlen(*list)))
            return 1;
    return 0;
}
static const char *const launches[] = {"cuLaunchKernel", "cuLaunchCooperativeKernel", "cuGraphLaunch",
                                       "cudaLaunchKernel", "cudaLaunchCooperativeKernel", "cudaGraphLaunch", NULL};
static const char *const syncs[] = {"cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize",
                                    "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", NULL};

#define LAUNCHES_KEPT 8
struct first {
    uint32_t thread, name;
    struct tr_call c;
    uint64_t more;
};
struct proc_state {
    int has_sticky;
    struct tr_call sticky_c;
    struct first *after;       /* calls that returned a sticky error after it, per name */
    size_t nafter;
    struct tr_call launch[LAUNCHES_KEPT];   /* the last launches since the last good sync */
    uint64_t nlaunch;
    int has_sync;
    struct tr_call sync;       /* that synchronisation */
    struct tr_call at_sticky[LAUNCHES_KEPT];
    uint64_t nat_sticky;
    int had_sync;
    struct tr_call sync_at;
};

static void line(FILE *f, const struct trace *tr, const struct tr_call *c, const char *indent)
{
    uint64_t t = c->t0 > tr->origin_ns ? c->t0 - tr->origin_ns : 0;
    fprintf(f, "%s%llu.%06llu [%d] ", indent, (unsigned long long)(t / 1000000000u),
            (unsigned long long)(t % 1000000000u / 1000u), tr->threads[c->thread].tid);
    text_name(f, &tr->names[c->name]);
    fputc('(', f);
    dump_call_args(f, tr, c);
    fputs(") = ", f);
    dump_call_status(f, tr, c);
    if (c->flags & CUTAP_RF_INJECTED)
        fputs(" INJECTED", f);
    fputc('\n', f);
    char pad[64];
    snprintf(pad, sizeof pad, "%s    ", indent);
    dump_call_stack(f, tr, c, pad);
}

int report_errors(const struct trace *tr, FILE *f)
{
    struct first *firsts = NULL;
    size_t nf = 0, cap = 0;
    uint64_t failing = 0;
    struct proc_state *ps = xcalloc(tr->nprocs, sizeof *ps);
    struct tr_iter it;
    tr_iter_init(&it, tr, "errors");
    for (const struct tr_call *c; (c = tr_iter_next(&it));) {
        if (c->rflags & TR_RF_RANGE)
            continue;
        uint32_t p = tr->threads[c->thread].proc;
        struct proc_state *s = &ps[p];
        const char *n = tr->names[c->name].name;
        int err = c->t1 && call_is_error(tr, c);
        if (!err && c->t1 && name_is(n, syncs) && !s->has_sticky) {
            s->nlaunch = 0;   /* a good synchronisation: earlier launches ended well */
            s->has_sync = 1;
            s->sync = *c;
        }
        if (name_is(n, launches) && !s->has_sticky)
            s->launch[s->nlaunch++ % LAUNCHES_KEPT] = *c;
        if (!err)
            continue;
        failing++;
        if (sticky(tr, c)) {
            if (!s->has_sticky) {
                s->has_sticky = 1;
                s->sticky_c = *c;
                s->nat_sticky = s->nlaunch;
                for (uint64_t k = 0; k < LAUNCHES_KEPT; k++)
                    s->at_sticky[k] = s->launch[k];
                s->had_sync = s->has_sync;
                s->sync_at = s->sync;
            } else {
                size_t k = 0;
                while (k < s->nafter && s->after[k].name != c->name)
                    k++;
                if (k == s->nafter) {
                    s->after = realloc(s->after, (s->nafter + 1) * sizeof *s->after);
                    if (!s->after)
                        exit(1);
                    s->after[s->nafter++] = (struct first){c->thread, c->name, *c, 0};
                }
                s->after[k].more++;
            }
        }
        size_t k = 0;
        while (k < nf && !(firsts[k].thread == c->thread && firsts[k].name == c->name))
            k++;
        if (k < nf) {
            firsts[k].more++;
            continue;
        }
        if (nf == cap) {
            cap = cap ? 2 * cap : 64;
            firsts = realloc(firsts, cap * sizeof *firsts);
            if (!firsts)
                exit(1);
        }
        firsts[nf++] = (struct first){c->thread, c->name, *c, 0};
    }
    fprintf(f, "cutap report --errors: %zu process%s, %llu failing call%s", tr->nprocs, tr->nprocs == 1 ? "" : "es",
            (unsigned long long)failing, failing == 1 ? "" : "s");
    int stacks = 0;
    for (size_t p = 0; p < tr->nprocs; p++)
        stacks |= tr->procs[p].nstacks > 0;
    fprintf(f, "%s\n", stacks ? "" : " (no stacks recorded: cutap trace --stack errors)");
    for (size_t p = 0; p < tr->nprocs; p++) {
        const struct cutap_file_header *h = &tr->procs[p].h;
        int any = ps[p].has_sticky;
        for (size_t k = 0; k < nf && !any; k++)
            any = tr->threads[firsts[k].thread].proc == p;
        if (!any)
            continue;
        fprintf(f, "\nprocess %d (", h->pid);
        text_str(f, basename_of(h->exe));
        fprintf(f, ") host ");
        text_str(f, h->host);
        if (h->rank >= 0)
            fprintf(f, " rank %d", h->rank);
        fputs(":\n", f);
        for (size_t t = 0; t < tr->nthreads; t++) {
            if (tr->threads[t].proc != p)
                continue;
            int shown = 0;
            for (size_t k = 0; k < nf; k++) {
                if (firsts[k].thread != t)
                    continue;
                if (!shown++) {
                    fprintf(f, "  thread %d (", tr->threads[t].tid);
                    text_str(f, tr->threads[t].name);
                    fputs("): the first failing call of each function\n", f);
                }
                line(f, tr, &firsts[k].c, "    ");
                if (firsts[k].more)
                    fprintf(f, "      and %llu more failing %s after it\n", (unsigned long long)firsts[k].more,
                            tr->names[firsts[k].name].name);
            }
        }
        const struct proc_state *s = &ps[p];
        if (!s->has_sticky)
            continue;
        fputs("  sticky error (the context is unusable from here on): first returned by\n", f);
        line(f, tr, &s->sticky_c, "    ");
        for (size_t k = 0; k < s->nafter; k++)
            fprintf(f, "    then %llu x %s returned a sticky error\n", (unsigned long long)s->after[k].more,
                    tr->names[s->after[k].name].name);
        if (s->had_sync) {
            fputs("  kernel launches since the last successful synchronisation\n", f);
            line(f, tr, &s->sync_at, "    ");
        } else
            fputs("  kernel launches since the start (no successful synchronisation before it)\n", f);
        uint64_t n = s->nat_sticky, from = n > LAUNCHES_KEPT ? n - LAUNCHES_KEPT : 0;
        if (!n)
            fputs("    none recorded\n", f);
        if (from)
            fprintf(f, "    (%llu earlier launches not shown)\n", (unsigned long long)from);
        for (uint64_t k = from; k < n; k++)
            line(f, tr, &s->at_sticky[k % LAUNCHES_KEPT], "    ");
        if (n)
            fputs("    one of these made the kernel error (cutap trace --sync-launches 'cuLaunchKernel*,cudaLaunchKernel'\n"
                  "    makes the launch that made it return it)\n", f);
    }
    tr_iter_free(&it);
    for (size_t p = 0; p < tr->nprocs; p++)
        free(ps[p].after);
    free(ps);
    free(firsts);
    return 0;
}
