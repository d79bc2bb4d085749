/* Call ids: the generated ones (one per export) and dynamic ones made at run
 * time for functions met through the generic trampoline (entry points newer
 * than the tables, export-table slots). Dynamic ids are never freed: a
 * trampoline handed out may be called until the process ends. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core_internal.h"

struct dyn {
    char *name;
    int layer;
    struct cutap_tramp_ctx ctx;
    /* typed dynamic ids (cutap_id_new_typed): a signature of cutap's own */
    int nargs;                       /* -1: untyped */
    const cutap_arg_info_t *args;
    unsigned flags;                  /* CUTAP_DYN_* */
};
static struct dyn *dyn[CUTAP_MAX_IDS - CUTAP_STATIC_COUNT];
static _Atomic uint32_t ndyn;
static pthread_mutex_t dyn_lock = PTHREAD_MUTEX_INITIALIZER;
CUTAP_FORK_SAFE(dyn_lock)


static uint32_t id_new(const char *name, int layer, int nargs, const cutap_arg_info_t *args, unsigned flags,
                       struct cutap_tramp_ctx **ctx_out)
{
    struct dyn *d = calloc(1, sizeof *d);
    if (!d || !(d->name = strdup(name))) {
        free(d);
        return CUTAP_ID_ALL;
    }
    d->layer = layer;
    d->nargs = nargs;
    d->args = args;
    d->flags = flags;
    pthread_mutex_lock(&dyn_lock);
    uint32_t k = atomic_load(&ndyn);
    if (k >= CUTAP_MAX_IDS - CUTAP_STATIC_COUNT) {
        pthread_mutex_unlock(&dyn_lock);
        free(d->name);
        free(d);
        cutap_warn("more than %d dynamic call ids; %s is not intercepted", CUTAP_MAX_IDS, name);
        return CUTAP_ID_ALL;
    }
    uint32_t id = CUTAP_STATIC_COUNT + k;
    d->ctx.id = id;
    d->ctx.active = 1;
    dyn[k] = d;
    cutap_dispatch_new_id(id, d->name, layer);
    atomic_store(&ndyn, k + 1);
    pthread_mutex_unlock(&dyn_lock);
    if (ctx_out)
        *ctx_out = &d->ctx;
    return id;
}

uint32_t cutap_id_new(const char *name, int layer, struct cutap_tramp_ctx **ctx_out)
{
    return id_new(name, layer, -1, NULL, 0, ctx_out);
}

uint32_t cutap_id_new_typed(const char *name, int layer, unsigned nargs, const cutap_arg_info_t *args, unsigned flags)
{
    return id_new(name, layer, (int)nargs, args, flags, NULL);
}

static const struct dyn *dyn_of(uint32_t id)
{
    uint32_t k = id - CUTAP_STATIC_COUNT;
    return id >= CUTAP_STATIC_COUNT && id != CUTAP_ID_ALL && k < atomic_load(&ndyn) ? dyn[k] : NULL;
}

unsigned cutap_id_flags(uint32_t id)
{
    const struct dyn *d = dyn_of(id);
    return d ? d->flags : 0;
}

struct cutap_tramp_ctx *cutap_id_ctx(uint32_t id)
{
    if (id < CUTAP_DRIVER_COUNT) {
        for (unsigned i = 0; i < cutap_untyped_count; i++)
            if (cutap_untyped_ids[i] == id)
                return &cutap_untyped_ctx[i];
        return NULL;
    }
    if (id < CUTAP_STATIC_COUNT) {
        struct cutap_tramp_ctx *route = cutap_lib_route_ctx(id);
        if (route)
            return route;
        int t = cutap_fn(id)->tramp;
        return t >= 0 ? &cutap_lib_untyped_ctx[t] : NULL;
    }
    uint32_t k = id - CUTAP_STATIC_COUNT;
    return k < atomic_load(&ndyn) ? &dyn[k]->ctx : NULL;
}

void *cutap_untyped_stub(uint32_t id)
{
    if (id < CUTAP_DRIVER_COUNT) {
        for (unsigned i = 0; i < cutap_untyped_count; i++)
            if (cutap_untyped_ids[i] == id)
                return (void *)(cutap_untyped_stubs + 16 * (size_t)i);
        return NULL;
    }
    if (id < CUTAP_STATIC_COUNT && !cutap_fn(id)->typed && cutap_fn(id)->tramp >= 0)
        return (void *)(cutap_lib_untyped_stubs + 16 * (size_t)cutap_fn(id)->tramp);
    return NULL;
}

uint32_t cutap_call_count(void)
{
    return CUTAP_STATIC_COUNT + atomic_load(&ndyn);
}

const char *cutap_call_name(uint32_t id)
{
    if (id < CUTAP_STATIC_COUNT)
        return cutap_fn(id)->name;
    uint32_t k = id - CUTAP_STATIC_COUNT;
    return id != CUTAP_ID_ALL && k < atomic_load(&ndyn) ? dyn[k]->name : NULL;
}

int cutap_call_layer(uint32_t id)
{
    if (id < CUTAP_STATIC_COUNT)
        return cutap_fn(id)->layer;
    uint32_t k = id - CUTAP_STATIC_COUNT;
    return id != CUTAP_ID_ALL && k < atomic_load(&ndyn) ? dyn[k]->layer : -1;
}

int cutap_call_nargs(uint32_t id)
{
    if (id < CUTAP_STATIC_COUNT && cutap_fn(id)->typed && !cutap_lib_route_ctx(id))
        return cutap_fn(id)->nargs;
    const struct dyn *d = dyn_of(id);
    return d ? d->nargs : -1;
}

int cutap_call_result_kind(uint32_t id)
{
    if (id >= CUTAP_STATIC_COUNT || !cutap_fn(id)->typed || cutap_lib_route_ctx(id))
        return CUTAP_RESULT_UNKNOWN;   /* dynamic ids, untyped calls (an older major not declaring it) */
    const struct cutap_fninfo *fi = cutap_fn(id);
    return fi->layer == CUTAP_LAYER_DRIVER ? CUTAP_RESULT_STATUS : fi->rkind;
}

const char *cutap_status_name(int layer, uint64_t value)
{
    int64_t v = (int32_t)(uint32_t)value;   /* status enums are 32-bit */
    for (const struct cutap_status_table *t = cutap_status_tables; t->layer >= 0; t++) {
        if (t->layer != layer)
            continue;
        unsigned lo = 0, hi = t->n;
        while (lo < hi) {
            unsigned mid = (lo + hi) / 2;
            if (t->names[mid].value < v)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo < t->n && t->names[lo].value == v ? t->names[lo].name : NULL;
    }
    return NULL;
}

const cutap_arg_info_t *cutap_call_arg(uint32_t id, unsigned index)
{
    if (id < CUTAP_STATIC_COUNT) {
        /* one description read (a layer adopted meanwhile installs its
         * major's variant: its count and its array together) */
        const struct cutap_fninfo *fi = cutap_fn(id);
        return fi->typed && !cutap_lib_route_ctx(id) && index < fi->nargs ? &fi->args[index] : NULL;
    }
    int n = cutap_call_nargs(id);
    if (n < 0 || index >= (unsigned)n)
        return NULL;
    return &dyn_of(id)->args[index];
}

/* Binary search over generated names sorted in [lo, hi]. */
static uint32_t search(const char *name, int lo, int hi)
{
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        int c = strcmp(name, cutap_fn((uint32_t)mid)->name);
        if (!c)
            return (uint32_t)mid;
        if (c < 0)
            hi = mid - 1;
        else
            lo = mid + 1;
    }
    return CUTAP_ID_ALL;
}

/* The driver's names, then each layer's (each sorted), then the dynamic ones. */
uint32_t cutap_lookup(const char *name)
{
    if (!name)
        return CUTAP_ID_ALL;
    uint32_t id = search(name, 0, CUTAP_DRIVER_COUNT - 1);
    for (int l = 0; id == CUTAP_ID_ALL && l < CUTAP_LIB_LAYERS; l++)
        id = search(name, (int)cutap_layers[l].first, (int)(cutap_layers[l].first + cutap_layers[l].count) - 1);
    if (id != CUTAP_ID_ALL)
        return id;
    uint32_t n = atomic_load(&ndyn);
    for (uint32_t k = 0; k < n; k++)
        if (!strcmp(dyn[k]->name, name))
            return CUTAP_STATIC_COUNT + k;
    return CUTAP_ID_ALL;
}

static const char *const layer_names[] = CUTAP_LAYER_NAMES;

const char *cutap_layer_name(int layer)
{
    return layer >= 0 && layer < CUTAP_NLAYERS ? layer_names[layer] : NULL;
}

int cutap_layer_lookup(const char *name)
{
    for (int l = 0; name && l < CUTAP_NLAYERS; l++)
        if (!strcasecmp(name, layer_names[l]))
            return l;
    return -1;
}
