/* A trace directory: tr_load, tr_free, run orders, and selection at
 * read time (-e, --from, --to). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>

#include "filter_expr.h"
#include "read_internal.h"

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
    tr->run_order = rd_alloc0(tr->nruns, sizeof *tr->run_order);
    tr->place_order = rd_alloc0(tr->nruns, sizeof *tr->place_order);
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

uint64_t tr_serial(void)
{
    static _Atomic uint64_t n;
    return ++n;
}

int tr_load(struct trace *tr, const char *path)
{
    memset(tr, 0, sizeof *tr);
    tr->sel_to = UINT64_MAX;
    tr->serial = tr_serial();
    struct stat st;
    if (tr_mem_file.path && !strcmp(path, tr_mem_file.path)) {
        rd_load_file(tr, path);
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
            files = rd_grow(files, &cap, n + 1, sizeof *files);
            if (asprintf(&files[n], "%s/%s", path, e->d_name) < 0)
                exit(1);
            n++;
        }
        closedir(d);
        if (n)
            qsort(files, n, sizeof *files, cmp_str);   /* stable order of processes */
        for (size_t i = 0; i < n; i++) {
            rd_load_file(tr, files[i]);
            free(files[i]);
        }
        free(files);
        if (!n) {
            TR_ERR("cutap: %s: no trace files (*%s) in this directory\n", path, CUTAP_FILE_SUFFIX);
            return -1;
        }
    } else {
        rd_load_file(tr, path);
    }
    if (!tr->nprocs)
        return -1;
    tr->origin_ns = UINT64_MAX;
    for (size_t i = 0; i < tr->nprocs; i++)
        if (tr->procs[i].base_ns < tr->origin_ns)
            tr->origin_ns = tr->procs[i].base_ns;
    order_runs(tr);
    rd_build_ranges(tr);   /* NVTX: ranges join the calls, as parents */
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
        free(tr->procs[i].env);
        rd_gpu_free(&tr->procs[i]);
        for (struct tr_kept *k = tr->procs[i].kept, *next; k; k = next) {
            next = k->next;
            free(k);
        }
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
        size_t kept = 0;
        for (size_t i = 0; i < tr->nnames; i++)
            kept += tr->name_keep[i] = cutap_filter_eval(filter, tr->names[i].name, tr->names[i].layer, NULL) == 1;
        if (!kept)
            TR_ERR("cutap: warning: -e '%s' matches no function of this trace (%zu named): nothing is selected\n",
                   filter, tr->nnames);
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
