/* cutap report --env (issue #32): what the NVIDIA libraries read from the
 * environment, per process: each name with the value it got (or unset),
 * the object that asked, how many times, and when first (seconds from the
 * trace's start) on which thread. From the ENV records `cutap trace`
 * writes (src/record/env.c); exit status 1 when no file has any. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const struct tr_proc *sort_p;

static int cmp_str(const char *a, const char *b)
{
    return a == b ? 0 : !a ? -1 : !b ? 1 : strcmp(a, b);
}

/* name, value (unset first), object, secure; then time */
static int cmp_env(const void *a, const void *b)
{
    const struct tr_env *x = &sort_p->env[*(const size_t *)a], *y = &sort_p->env[*(const size_t *)b];
    int k = strcmp(x->name, y->name);
    if (!k)
        k = cmp_str(x->value, y->value);
    if (!k && x->object != y->object)
        k = x->object < y->object ? -1 : 1;
    if (!k && (x->flags & CUTAP_ENV_SECURE) != (y->flags & CUTAP_ENV_SECURE))
        k = x->flags & CUTAP_ENV_SECURE ? 1 : -1;
    if (!k && x->clock != y->clock)
        k = x->clock < y->clock ? -1 : 1;
    return k;
}

static int same_row(const struct tr_env *x, const struct tr_env *y)
{
    return !strcmp(x->name, y->name) && !cmp_str(x->value, y->value) && x->object == y->object &&
           (x->flags & CUTAP_ENV_SECURE) == (y->flags & CUTAP_ENV_SECURE);
}

int report_env(const struct trace *tr, FILE *f, int format, size_t top)
{
    size_t total = 0, json_rows = 0;
    for (size_t i = 0; i < tr->nprocs; i++)
        total += tr->procs[i].nenv;
    if (!total) {
        fprintf(stderr, "cutap report --env: no environment lookup of an NVIDIA library is recorded: the files "
                        "were made by cutap stat, with --ring or CUTAP_ENV=0, or by a cutap before issue #32, or "
                        "no NVIDIA library read the environment after CUDA started\n");
        return 1;
    }
    if (format == FMT_CSV)
        fputs("host,pid,rank,name,value,set,secure,object,lookups,first_s,first_tid,early\n", f);
    else if (format == FMT_JSON)
        fputs("[", f);
    for (size_t i = 0; i < tr->nprocs; i++) {
        const struct tr_proc *p = &tr->procs[i];
        if (!p->nenv)
            continue;
        size_t *ord = malloc(p->nenv * sizeof *ord);
        if (!ord) {
            fprintf(stderr, "cutap: out of memory\n");
            exit(1);
        }
        for (size_t k = 0; k < p->nenv; k++)
            ord[k] = k;
        sort_p = p;
        qsort(ord, p->nenv, sizeof *ord, cmp_env);
        size_t rows = 0, names = 0;
        for (size_t k = 0; k < p->nenv; k++)
            rows += !k || !same_row(&p->env[ord[k - 1]], &p->env[ord[k]]),
                names += !k || strcmp(p->env[ord[k - 1]].name, p->env[ord[k]].name);
        if (format == FMT_TEXT) {
            fprintf(f, "%sprocess %d (", i ? "\n" : "", p->h.pid);
            text_str(f, p->h.host);
            if (p->h.rank >= 0)
                fprintf(f, ", rank %d", p->h.rank);
            fputs(", ", f);
            text_str(f, basename_of(p->h.exe));
            fprintf(f, "): %zu lookups of %zu names\n  %-40s %-24s %8s %10s  %s\n", p->nenv, names, "Name", "Value",
                    "Lookups", "First(s)", "Asked by");
        }
        size_t shown = 0;
        for (size_t k = 0; k < p->nenv;) {
            const struct tr_env *e = &p->env[ord[k]];
            size_t n = 1;
            while (k + n < p->nenv && same_row(e, &p->env[ord[k + n]]))
                n++;
            uint64_t t = tr_env_ns(p, e);   /* the earliest: time is the last key */
            double s = t > tr->origin_ns ? (double)(t - tr->origin_ns) / 1e9 : 0;
            const char *obj = tr_env_object(tr, p, e);
            int tid = tr->threads[e->thread].tid, secure = !!(e->flags & CUTAP_ENV_SECURE);
            k += n;
            if (top && shown++ >= top)
                continue;
            if (format == FMT_TEXT) {
                fputs("  ", f);
                text_str(f, e->name);
                fprintf(f, "%*s", (int)(strlen(e->name) < 40 ? 41 - strlen(e->name) : 1), "");
                if (e->value) {
                    fputc('"', f);
                    text_str(f, e->value);
                    fputc('"', f);
                } else {
                    fputs("(unset)", f);
                }
                size_t vl = e->value ? strlen(e->value) + 2 : 7;
                fprintf(f, "%*s %8zu %10.6f  ", (int)(vl < 24 ? 24 - vl : 0), "", n, s);
                text_str(f, basename_of(obj));
                fputs(secure ? " (secure_getenv)" : "", f);
                fputs(e->flags & CUTAP_ENV_EARLY ? " (before CUDA started: time of writing)\n" : "\n", f);
            } else if (format == FMT_CSV) {
                csv_str(f, p->h.host);
                fprintf(f, ",%d,", p->h.pid);
                if (p->h.rank >= 0)
                    fprintf(f, "%d", p->h.rank);
                fputc(',', f);
                csv_str(f, e->name);
                fputc(',', f);
                csv_str(f, e->value ? e->value : "");
                fprintf(f, ",%d,%d,", e->value != NULL, secure);
                csv_str(f, obj);
                fprintf(f, ",%zu,%.9f,%d,%d\n", n, s, tid, !!(e->flags & CUTAP_ENV_EARLY));
            } else {
                fputs(json_rows++ ? ",\n" : "\n", f);
                fputs("{\"host\":", f);
                json_str(f, p->h.host);
                fprintf(f, ",\"pid\":%d,\"rank\":", p->h.pid);
                if (p->h.rank >= 0)
                    fprintf(f, "%d", p->h.rank);
                else
                    fputs("null", f);
                fputs(",\"name\":", f);
                json_str(f, e->name);
                fputs(",\"value\":", f);
                json_str_or_null(f, e->value);
                fprintf(f, ",\"secure\":%s,\"object\":", secure ? "true" : "false");
                json_str(f, obj);
                fprintf(f, ",\"lookups\":%zu,\"first_s\":%.9f,\"first_tid\":%d,\"early\":%s}", n, s, tid,
                        e->flags & CUTAP_ENV_EARLY ? "true" : "false");
            }
        }
        if (format == FMT_TEXT && top && rows > top)
            fprintf(f, "  ... %zu more\n", rows - top);
        free(ord);
    }
    if (format == FMT_JSON)
        fputs("\n]\n", f);
    return 0;
}
