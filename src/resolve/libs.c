/* The runtime and library layers: which loaded object is each layer's
 * library, and the real address of each of its functions.
 *
 * A program reaches our wrappers of cudaMalloc, cublasGemmEx, ... because
 * libcutap.so, preloaded, comes first in the global lookup scope: PLT
 * references of every object bind to it, also those of objects loaded
 * RTLD_LOCAL later (their own scope is searched after the global one).
 * The real function is then not necessarily reachable by name from here
 * (dlsym(RTLD_NEXT) from libcutap.so does not search an RTLD_LOCAL group),
 * so each layer is resolved from the loaded object whose soname is the
 * layer's (libcudart.so.13, libcublas.so.13, ...), reading that object's own
 * dynamic symbol table: no dependency of it can answer in its place (the
 * libcudnn.so.9 front and its libcudnn_ops.so.9 define the same names).
 *
 * One copy per layer: if a second object with the same soname is loaded
 * (two CUDA versions in one process), lookups that land in it are left
 * unwrapped (cutap_wrap_pointer finds no id for them), never misrouted.
 *
 * Another major. A layer accepts any libX.so.N, but its typed wrappers
 * carry the signatures of the pinned headers (CUDA 13.0), and majors do
 * change signatures under the same name (cudaStreamGetCaptureInfo takes 3
 * arguments in CUDA 11 and 12.0, 7 in 13.0; cudaMemPrefetchAsync an int
 * device in 12.4, a cudaMemLocation by value in 13.0). A soname is the
 * library's ABI promise: the signatures are vouched for by the headers of
 * the major that soname belongs to. Bound to the pinned one (the layer's
 * sonames[0]: libcudart.so.13, libcudnn.so.9, libcufft.so.12...), every
 * typed function is typed as generated. Bound to an older soname the
 * generators know (cutap_older_sonames: libcudart.so.12, .so.11.0, from
 * the snapshots of those majors' headers, gen/older_model.py), each
 * function goes by its mode there (cutap_older_mode): the pinned signature
 * (most: cudaMalloc, cublasSgemm_v2), a variant of that major's (its own
 * description and wrapper, lib_older_variants.c, recorded under the same
 * id), or untyped where that major's headers do not declare it (newer
 * functions, exports no longer declared). Bound to any other soname, or
 * for those untyped functions, the function runs through the generic
 * trampoline instead (its own context and stub per id): registers and
 * stack arguments pass untouched, and name, duration, result and nesting
 * are recorded, the arguments as raw register words, no output read.
 * Until a layer is adopted, its typed functions enter through their
 * resolver stubs (lib_resolve.S), which adopt it before any typed code
 * sees the arguments; the exported entries are assembly fronts
 * (fronts.S) that jump there with the caller's registers untouched. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resolve_internal.h"

_Atomic int cutap_lib_state[CUTAP_LIB_LAYERS];
/* What each adopted layer is bound to. cutap_lib_routed: a layer of another
 * major, whose typed functions run through their route stubs and contexts
 * (src/generated/lib_resolve.S, indexed by id - CUTAP_DRIVER_COUNT): the
 * contexts are filled, then routed set, then the layer's state becomes 1. */
static struct {
    char soname[64];
    int vouched;
} bound[CUTAP_LIB_LAYERS];
_Atomic uint8_t cutap_lib_routed[CUTAP_LIB_LAYERS];
/* Per typed layer id: 1 when it runs through its route (set before the
 * layer's cutap_lib_routed, never cleared). */
static _Atomic uint8_t id_routed[CUTAP_STATIC_COUNT - CUTAP_DRIVER_COUNT];
const struct cutap_older_variant *cutap_lib_variant[CUTAP_STATIC_COUNT - CUTAP_DRIVER_COUNT];

/* The index of soname among the layer's older ones, -1: none. */
static int older_group(int k, const char *soname)
{
    for (int g = 0; g < 2 && cutap_older_sonames[k][g]; g++)
        if (!strcmp(cutap_older_sonames[k][g], soname))
            return g;
    return -1;
}

/* How id runs in a layer bound to older soname group g (-1: unknown). */
static int older_mode(uint32_t id, int g)
{
    return g < 0 ? CUTAP_OLDER_UNTYPED : (cutap_older_mode[id - CUTAP_DRIVER_COUNT] >> (2 * g)) & 3;
}

static const struct cutap_older_variant *find_variant(uint32_t id, int g)
{
    /* a few dozen, looked up once per id when a layer is adopted */
    for (unsigned i = 0; i < cutap_older_variant_count; i++)
        if (cutap_older_variants[i].id == id && cutap_older_variants[i].group == g)
            return &cutap_older_variants[i];
    return NULL;
}
static void *lib_handle[CUTAP_LIB_LAYERS];   /* our reference: never closed */
static pthread_mutex_t lib_lock = PTHREAD_MUTEX_INITIALIZER;
CUTAP_FORK_SAFE(lib_lock)
/* Same discipline as the driver (resolve/driver.c): no cutap lock across a
 * loader call; a thread re-entering while it adopts gets "unavailable". */
#define lib_adopting (cutap_tls.lib_adopting)

static const char *base_name(const char *p)
{
    const char *b = p ? strrchr(p, '/') : NULL;
    return b ? b + 1 : p;
}

/* DT_SONAME of a loaded object, or NULL. */
static const char *object_soname(struct dl_phdr_info *info)
{
    const ElfW(Dyn) *dyn = cutap_elf_dynamic(info);
    if (!dyn)
        return NULL;
    const char *strtab = NULL;
    uintptr_t soname = 0;
    int has = 0;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        if (dyn->d_tag == DT_STRTAB) {
            uintptr_t v = dyn->d_un.d_ptr;
            strtab = (const char *)(v < info->dlpi_addr ? v + info->dlpi_addr : v);
        } else if (dyn->d_tag == DT_SONAME) {
            soname = dyn->d_un.d_val;
            has = 1;
        }
    }
    return strtab && has ? strtab + soname : NULL;
}

/* A layer's sonames: exact names ("libcudart.so.13"), and a bare
 * "libX.so" entry also accepts any "libX.so.<version>". */
static int name_matches(const struct cutap_layer_desc *d, const char *n)
{
    if (!n)
        return 0;
    for (const char *const *s = d->sonames; *s; s++) {
        size_t len = strlen(*s);
        if (!strcmp(n, *s) || (len > 3 && !strcmp(*s + len - 3, ".so") && !strncmp(n, *s, len) && n[len] == '.'))
            return 1;
    }
    return 0;
}

struct find {
    const struct cutap_layer_desc *d;
    uintptr_t addr;            /* object holding this address, or 0: any */
    void **real;               /* d->count addresses */
    unsigned found;
    char path[512];
    char soname[64];
    int done;
};

static int find_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct find *f = data;
    if (f->addr) {
        int holds = 0;
        for (int i = 0; i < info->dlpi_phnum && !holds; i++) {
            const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
            uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
            holds = ph->p_type == PT_LOAD && f->addr >= lo && f->addr < lo + ph->p_memsz;
        }
        if (!holds)
            return 0;
        f->done = 1;   /* the object holding addr decides, match or not */
    }
    const char *so = object_soname(info);
    if (!name_matches(f->d, so ? so : base_name(info->dlpi_name)))
        return f->done;
    for (uint32_t i = 0; i < f->d->count; i++)
        f->found += (f->real[i] = cutap_elf_lookup(info, cutap_fn(f->d->first + i)->name)) != NULL;
    if (!f->found)
        return f->done;   /* same name, none of the API: not it */
    snprintf(f->path, sizeof f->path, "%s", info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "(main program)");
    snprintf(f->soname, sizeof f->soname, "%s", so ? so : base_name(info->dlpi_name));
    f->done = 1;
    return 1;
}

/* Adopts the layer's library: the object holding addr, or (addr 0) the
 * first loaded one with the layer's soname. 1 when the layer is ready. */
static int adopt(int k, uintptr_t addr)
{
    const struct cutap_layer_desc *d = &cutap_layers[k];
    struct find f = {.d = d, .addr = addr};
    if (!(f.real = calloc(d->count, sizeof *f.real)))
        return 0;
    dl_iterate_phdr(find_cb, &f);
    if (!f.found) {
        free(f.real);
        return 0;
    }
    /* Keep the object mapped for good: the program may dlclose its handle
     * while our wrappers still point into it. */
    void *h = strcmp(f.path, "(main program)") ? dlopen(f.path, RTLD_LAZY | RTLD_NOLOAD) : NULL;
    int vouched = !strcmp(f.soname, d->sonames[0]);
    int group = vouched ? -1 : older_group(k, f.soname);
    unsigned routed = 0, variants = 0;
    int won = 0;
    pthread_mutex_lock(&lib_lock);
    if (atomic_load(&cutap_lib_state[k]) != 1) {
        won = 1;
        lib_handle[k] = h;
        snprintf(bound[k].soname, sizeof bound[k].soname, "%s", f.soname);
        bound[k].vouched = vouched;
        for (uint32_t i = 0; i < d->count; i++) {
            uint32_t id = d->first + i;
            cutap_real[id] = f.real[i];
            if (f.real[i])
                cutap_addr_map_put(f.real[i], id);
            int t = cutap_fn(id)->tramp;
            if (t >= 0)
                __atomic_store_n(&cutap_lib_untyped_ctx[t].real, f.real[i], __ATOMIC_RELEASE);
            if (vouched || !cutap_lib_info[id - CUTAP_DRIVER_COUNT].typed)
                continue;
            int mode = older_mode(id, group);
            const struct cutap_older_variant *v = mode == CUTAP_OLDER_VARIANT ? find_variant(id, group) : NULL;
            if (v) {
                __atomic_store_n(&cutap_lib_variant[id - CUTAP_DRIVER_COUNT], v, __ATOMIC_RELEASE);
                variants += f.real[i] != NULL;
            } else if (mode != CUTAP_OLDER_SAME) {
                /* Until refreshed, the route takes the slow path. */
                struct cutap_tramp_ctx *c = &cutap_route_ctx[id - CUTAP_DRIVER_COUNT];
                c->id = id;
                __atomic_store_n(&c->active, 1, __ATOMIC_RELAXED);
                __atomic_store_n(&c->real, f.real[i], __ATOMIC_RELEASE);
                atomic_store_explicit(&id_routed[id - CUTAP_DRIVER_COUNT], 1, memory_order_release);
                routed += f.real[i] != NULL;
            }
        }
        if (!vouched)
            atomic_store_explicit(&cutap_lib_routed[k], 1, memory_order_release);
        atomic_store_explicit(&cutap_lib_state[k], 1, memory_order_release);
    }
    pthread_mutex_unlock(&lib_lock);
    if (won) {
        for (uint32_t i = 0; i < d->count; i++)
            cutap_refresh_id(d->first + i);
        if (vouched)
            cutap_log_debug("layer %s: %s, %u of %u functions resolved", d->name, f.path, f.found, d->count);
        else
            cutap_log_debug("layer %s: %s, %u of %u functions resolved (%s major: %u typed by a signature of "
                            "its own, %u untyped)", d->name, f.path, f.found, d->count,
                            group < 0 ? "an unknown" : "an older", variants, routed);
    } else if (h) {
        dlclose(h);
    }
    free(f.real);
    return 1;
}

/* The route of a typed function of a layer bound to another major; NULL
 * for every other id. */
struct cutap_tramp_ctx *cutap_lib_route_ctx(uint32_t id)
{
    if (id < CUTAP_DRIVER_COUNT || id >= CUTAP_STATIC_COUNT)
        return NULL;
    return atomic_load_explicit(&id_routed[id - CUTAP_DRIVER_COUNT], memory_order_acquire)
               ? &cutap_route_ctx[id - CUTAP_DRIVER_COUNT]
               : NULL;
}

void *cutap_lib_route_stub(uint32_t id)
{
    return cutap_lib_route_ctx(id) ? (void *)(cutap_route_stubs + 16 * (size_t)(id - CUTAP_DRIVER_COUNT)) : NULL;
}

const char *cutap_lib_bound(int layer, int *vouched)
{
    int k = layer - CUTAP_FIRST_LIB_LAYER;
    if (k < 0 || k >= CUTAP_LIB_LAYERS || atomic_load_explicit(&cutap_lib_state[k], memory_order_acquire) != 1 ||
        !bound[k].soname[0])
        return NULL;
    if (vouched)
        *vouched = bound[k].vouched;
    return bound[k].soname;
}

void *cutap_lib_resolver(uint32_t id)
{
    return id >= CUTAP_DRIVER_COUNT && id < CUTAP_STATIC_COUNT ? cutap_hot_initial[id] : NULL;
}

/* The first call of a typed layer function (lib_resolve.S, with every
 * argument register saved): adopt the layer, then say where the call goes.
 * The caller's registers and stack are untouched until it gets there. */
void *cutap_lib_resolve(uint32_t id)
{
    int layer = cutap_fn(id)->layer, k = layer - CUTAP_FIRST_LIB_LAYER;
    void *resolver = cutap_lib_resolver(id);
    cutap_lib_ensure(layer);
    for (;;) {
        void *hot = atomic_load(&cutap_hot[id].to);
        if (hot != resolver)
            return hot ? hot : cutap_static_wrapper(id);   /* NULL: the typed slow path */
        if (atomic_load_explicit(&cutap_lib_state[k], memory_order_acquire) != 1) {
            /* This thread is adopting the layer (the library called its own
             * API from code we ran), or no library of the layer is loaded
             * (-1): the call is not made (its "unavailable" status, 0 for a
             * function without one), and recorded untyped through its route,
             * whose context has no real function yet: no typed code sees
             * words whose signature the library loaded later may not have. */
            struct cutap_tramp_ctx *c = &cutap_route_ctx[id - CUTAP_DRIVER_COUNT];
            c->id = id;
            __atomic_store_n(&c->active, 1, __ATOMIC_RELEASE);
            return (void *)(cutap_route_stubs + 16 * (size_t)(id - CUTAP_DRIVER_COUNT));
        }
        /* adopted, not yet refreshed by its adopter; or a signal handler
         * on a thread in a refresh, which must not wait for it: the
         * general way for now */
        if (cutap_refresh_id(id))
            return cutap_refresh_fallback(id);
    }
}

/* Per layer, the loader's count of objects loaded when the library was
 * last found missing (as for the driver, resolve/driver.c). */
static _Atomic unsigned long long lib_missing_at[CUTAP_LIB_LAYERS];

int cutap_lib_ensure(int layer)
{
    cutap_init();
    int k = layer - CUTAP_FIRST_LIB_LAYER;
    if (k < 0 || k >= CUTAP_LIB_LAYERS)
        return -1;
    int s = atomic_load_explicit(&cutap_lib_state[k], memory_order_acquire);
    if (s == 1)
        return 0;
    unsigned long long adds = cutap_dl_adds();
    if (s == -1 && adds == atomic_load_explicit(&lib_missing_at[k], memory_order_relaxed))
        return -1;
    if (lib_adopting)
        return -1;
    /* Our wrapper was called and no such library may be loaded: the
     * caller bound our export (a weak reference, a lookup before the
     * library was loaded). It is never loaded here: the program did not
     * load it, and a library of the machine's in its place (another
     * version, a system copy) would run code the program never chose
     * (issue #24). The call gets the layer's "unavailable" status. */
    lib_adopting = 1;
    adopt(k, 0);
    lib_adopting = 0;
    if (atomic_load(&cutap_lib_state[k]) != 1) {
        pthread_mutex_lock(&lib_lock);
        int first = atomic_load(&cutap_lib_state[k]) == 0;
        if (first)
            atomic_store(&cutap_lib_state[k], -1);
        atomic_store_explicit(&lib_missing_at[k], adds, memory_order_relaxed);
        pthread_mutex_unlock(&lib_lock);
        if (first && cutap_layers[k].sonames[0])
            cutap_warn("no %s library loaded (%s): its calls return status %u", cutap_layers[k].name,
                       cutap_layers[k].sonames[0], cutap_layers[k].unavailable);
    }
    return atomic_load(&cutap_lib_state[k]) == 1 ? 0 : -1;
}

void cutap_lib_adopt_from(uint32_t id, void *addr)
{
    if (id < CUTAP_DRIVER_COUNT || id >= CUTAP_STATIC_COUNT || !addr)
        return;
    int k = cutap_fn(id)->layer - CUTAP_FIRST_LIB_LAYER;
    if (atomic_load_explicit(&cutap_lib_state[k], memory_order_acquire) == 1 || lib_adopting)
        return;
    lib_adopting = 1;
    adopt(k, (uintptr_t)addr);
    lib_adopting = 0;
}

void cutap_lib_install(int layer, void *const *reals)
{
    int k = layer - CUTAP_FIRST_LIB_LAYER;
    if (k < 0 || k >= CUTAP_LIB_LAYERS)
        return;
    const struct cutap_layer_desc *d = &cutap_layers[k];
    pthread_mutex_lock(&lib_lock);
    for (uint32_t i = 0; i < d->count; i++)
        cutap_real[d->first + i] = reals[i];
    atomic_store_explicit(&cutap_lib_state[k], 1, memory_order_release);
    pthread_mutex_unlock(&lib_lock);
    for (uint32_t i = 0; i < d->count; i++)
        cutap_refresh_id(d->first + i);
}
