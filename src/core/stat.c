/* CUTAP_STAT=DEST: the counting client. Per call id: calls, errors (result
 * not CUDA_SUCCESS, driver layer only), total, min and max time. The table
 * goes to DEST ("stderr" or a path, %p = pid) when the process exits,
 * sorted by total time, like `strace -c`. A forked child starts from zero. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core_internal.h"

struct counter {
    _Atomic uint64_t calls, errors, total, max;
    _Atomic uint64_t min;
};
static struct counter *cnt;
static int client = -1;
static const char *dest;

static int pre(cutap_call_t *call, void *ctx, uint64_t *scratch)
{
    (void)ctx;
    (void)call;
    *scratch = cutap_now_ns();
    return CUTAP_PROCEED;
}

static void post(cutap_call_t *call, void *ctx, uint64_t *scratch)
{
    (void)ctx;
    uint64_t dt = cutap_now_ns() - *scratch;
    struct counter *c = &cnt[call->id];
    atomic_fetch_add_explicit(&c->calls, 1, memory_order_relaxed);
    if (cutap_call_is_error(call))
        atomic_fetch_add_explicit(&c->errors, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&c->total, dt, memory_order_relaxed);
    uint64_t m = atomic_load_explicit(&c->max, memory_order_relaxed);
    while (dt > m && !atomic_compare_exchange_weak(&c->max, &m, dt)) {}
    m = atomic_load_explicit(&c->min, memory_order_relaxed);
    while ((m == 0 || dt < m) && !atomic_compare_exchange_weak(&c->min, &m, dt)) {}
}

static int by_total(const void *a, const void *b)
{
    uint64_t x = cnt[*(const uint32_t *)a].total, y = cnt[*(const uint32_t *)b].total;
    return x < y ? 1 : x > y ? -1 : 0;
}

static const char *layer_name(int l)
{
    static const char *const names[] = CUTAP_LAYER_NAMES;
    return l >= 0 && l < CUTAP_NLAYERS ? names[l] : "?";
}

static void report(void)
{
    if (__atomic_load_n(&cutap_tsc_forbidden, __ATOMIC_ACQUIRE) == 2)
        return;   /* seccomp strict mode: opening a file would kill the program */
    uint32_t n = cutap_call_count(), used = 0;
    uint32_t *ids = malloc(n * sizeof *ids);
    if (!ids)
        return;
    uint64_t all = 0, calls = 0, errors = 0;
    for (uint32_t i = 0; i < n; i++)
        if (cnt[i].calls) {
            ids[used++] = i;
            all += cnt[i].total;
            calls += cnt[i].calls;
            errors += cnt[i].errors;
        }
    qsort(ids, used, sizeof *ids, by_total);
    /* The table is made in memory and written in one write: a full disk
     * or a file-size limit loses it, never kills the program. */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        free(ids);
        return;
    }
    fprintf(f, "cutap stat: pid %d\n%6s %12s %10s %8s %10s %10s %10s  %-6s %s\n", (int)getpid(), "% time",
            "total_ns", "calls", "errors", "avg_ns", "min_ns", "max_ns", "layer", "name");
    for (uint32_t k = 0; k < used; k++) {
        struct counter *c = &cnt[ids[k]];
        fprintf(f, "%6.2f %12llu %10llu %8llu %10llu %10llu %10llu  %-6s %s\n",
                all ? 100.0 * (double)c->total / (double)all : 0.0, (unsigned long long)c->total,
                (unsigned long long)c->calls, (unsigned long long)c->errors,
                (unsigned long long)(c->total / c->calls), (unsigned long long)c->min,
                (unsigned long long)c->max, layer_name(cutap_call_layer(ids[k])), cutap_call_name(ids[k]));
    }
    fprintf(f, "%6s %12llu %10llu %8llu  total\n", "100.00", (unsigned long long)all,
            (unsigned long long)calls, (unsigned long long)errors);
    fclose(f);
    free(ids);
    int fd = cutap_open_output(dest, 1);
    if (fd >= 0) {
        if (cutap_write_all(fd, text, len))
            cutap_warn("the stat table could not be written: %s", strerror(errno));
        close(fd);
    }
    free(text);
}

static void child_reset(void)
{
    memset(cnt, 0, CUTAP_MAX_IDS * sizeof *cnt);
}

void cutap_stat_start(const char *d)
{
    cnt = calloc(CUTAP_MAX_IDS, sizeof *cnt);
    if (!cnt || (client = cutap_register("stat", pre, post, NULL)) < 0)
        return;
    dest = d;
    cutap_enable(client, CUTAP_ID_ALL, 1);
    pthread_atfork(NULL, NULL, child_reset);
    atexit(report);
}
