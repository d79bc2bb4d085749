/* Fault injection (issue #17): CUTAP_INJECT holds specs (one a line, the
 * canonical form of src/common/inject_spec.h: numbers only, the cutap
 * command resolved the names). A client of the callback API, registered
 * after the recorder's (its pre callback runs after the recorder started
 * the record, its post before the recorder ends it), enabled for the ids
 * the specs select: only those lose their fast path. For each call of a
 * spec's selection the process counts it (one atomic counter per spec,
 * shared by the threads: "the Nth call" is the Nth the process made), then
 * on a chosen call sleeps (delay=) and, with error= or retval=, skips the
 * real call, the caller getting the value, its outputs untouched. The
 * call carries CUTAP_CALL_INJECTED; the recorder marks its record. Calls
 * that cannot be skipped (untyped ones, runtime calls CUPTI reported) get
 * the delay only. Counters restart in a forked child; an exec'd image
 * reads CUTAP_INJECT again. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "filter_expr.h"
#include "inject_spec.h"
#include "record_internal.h"
#include "resolve_internal.h"
#include "cutap_cuda_abi.h"

static struct cutap_inject_spec specs[CUTAP_INJECT_MAX];
static _Atomic uint64_t counts[CUTAP_INJECT_MAX];
static unsigned nspecs;
/* per id, the specs that select it (bit k: spec k) */
static uint16_t *sel;
static int client = -1;

static void child(void)
{
    for (unsigned k = 0; k < nspecs; k++)
        atomic_store(&counts[k], 0);
}

static void sleep_ns(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    while (nanosleep(&ts, &ts) && errno == EINTR) {
    }
}

static int inject_pre(cutap_call_t *call, void *ctx, uint64_t *scratch)
{
    (void)ctx;
    (void)scratch;
    uint32_t id = call->id;
    uint16_t m = id < CUTAP_MAX_IDS && sel ? sel[id] : 0;
    int skip = 0;
    for (unsigned k = 0; m && k < nspecs; k++, m >>= 1) {
        if (!(m & 1))
            continue;
        uint64_t n = atomic_fetch_add(&counts[k], 1) + 1;
        const struct cutap_inject_spec *s = &specs[k];
        if (!cutap_inject_when(s, n))
            continue;
        call->flags |= CUTAP_CALL_INJECTED;
        if (s->delay_ns)
            sleep_ns(s->delay_ns);
        if (s->has_value && !skip && !(call->flags & (CUTAP_CALL_UNTYPED | CUTAP_CALL_REPORTED))) {
            call->result = s->value;
            skip = 1;
        }
    }
    return skip ? CUTAP_SKIP : CUTAP_PROCEED;
}


void cutap_inject_start(const char *env)
{
    int rank = cutap_rec_rank();
    for (const char *p = env; *p && nspecs < CUTAP_INJECT_MAX;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char why[256];
        struct cutap_inject_spec s;
        if (len && cutap_inject_parse(p, len, &s, why, sizeof why)) {
            cutap_warn("CUTAP_INJECT: %s; that spec is not applied", why);
        } else if (len && s.value_name[0]) {
            cutap_warn("CUTAP_INJECT: '%s' names a status: give its number (cutap trace --inject turns names into "
                       "numbers); that spec is not applied", s.value_name);
        } else if (len) {
            int mine = !s.nranks;
            for (int i = 0; i < s.nranks; i++)
                mine |= s.ranks[i] == rank;
            if (mine)
                specs[nspecs++] = s;
        }
        p = nl ? nl + 1 : p + len;
    }
    if (!nspecs)
        return;
    sel = calloc(CUTAP_MAX_IDS, sizeof *sel);
    client = sel ? cutap_register("inject", inject_pre, NULL, NULL) : -1;
    if (client < 0) {
        cutap_warn("fault injection could not start: nothing is injected");
        return;
    }
    uint32_t n = cutap_call_count();
    for (uint32_t id = 0; id < n && id < CUTAP_MAX_IDS; id++) {
        const char *name = cutap_call_name(id);
        int layer = cutap_call_layer(id);
        for (unsigned k = 0; k < nspecs; k++)
            if (name && cutap_filter_eval(specs[k].names, name, layer, NULL) == 1)
                sel[id] |= (uint16_t)(1u << k);
        if (sel[id])
            cutap_enable(client, id, 1);
    }
    pthread_atfork(NULL, NULL, child);
}

/* --- CUTAP_SYNC_LAUNCHES (cutap trace --sync-launches FILTER) -------------
 * After each successful call FILTER selects (kernel launches), the context
 * is synchronised, directly through the driver (not recorded), and an
 * error it returns becomes the launch's result: the launch that made an
 * asynchronous kernel error fails itself, as under CUDA_LAUNCH_BLOCKING=1,
 * but only for the selected launches. A driver call gets the driver's
 * status; a runtime call only the sticky ones (cutap_status_is_sticky),
 * whose numbers cudaError_t and CUresult share. */

static void sync_post(cutap_call_t *call, void *ctx, uint64_t *scratch)
{
    (void)ctx;
    (void)scratch;
    if ((call->flags & (CUTAP_CALL_SKIPPED | CUTAP_CALL_UNTYPED)) || (uint32_t)call->result != 0)
        return;
    if (call->layer != CUTAP_LAYER_DRIVER && call->layer != CUTAP_LAYER_RUNTIME)
        return;
    typedef int (*sync_fn)(void);
    sync_fn fn = (sync_fn)cutap_driver_real(CUTAP_ID_cuCtxSynchronize);
    int r = fn ? fn() : 0;
    if (r && (call->layer == CUTAP_LAYER_DRIVER || cutap_status_is_sticky((uint64_t)r)))
        call->result = (uint64_t)(uint32_t)r;
}

void cutap_sync_launches_start(const char *filter)
{
    int c = cutap_register("sync-launches", NULL, sync_post, NULL);
    if (c < 0 || cutap_filter_apply(c, filter))
        cutap_warn("--sync-launches could not start: launches are not synchronised");
}
