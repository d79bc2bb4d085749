/* The real driver: which object it is, the real address of every export
 * (resolved eagerly from the driver's own handle, so no lookup can fail
 * later, e.g. after the program's own handle is closed), and the reverse
 * map that turns a pointer the driver hands out into our wrapper of exactly
 * that export. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resolve_internal.h"

_Atomic int cutap_driver_state;
void *cutap_real[CUTAP_STATIC_COUNT];
static void *driver_handle;   /* our own reference: never closed */
static char driver_path[4096];
static pthread_mutex_t drv_lock = PTHREAD_MUTEX_INITIALIZER;
CUTAP_FORK_SAFE(drv_lock)

/* Open-addressing map real address -> id (driver exports, layer
 * functions) or dynamic id. Room for every static id and as many again. */
#define MAP_SIZE 16384
_Static_assert(MAP_SIZE >= 2 * CUTAP_STATIC_COUNT, "address map too small");
struct slot {
    void *key;
    uint32_t id;
};
static struct slot map[MAP_SIZE];
static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;
CUTAP_FORK_SAFE(map_lock)

static unsigned hash_ptr(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 29;
    return (unsigned)x & (MAP_SIZE - 1);
}

/* Readers run without the lock: a slot's id is written before its key. */
static uint32_t map_get(const void *p)
{
    for (unsigned i = hash_ptr(p), n = 0; n < MAP_SIZE; i = (i + 1) & (MAP_SIZE - 1), n++) {
        void *k = __atomic_load_n(&map[i].key, __ATOMIC_ACQUIRE);
        if (k == p)
            return map[i].id;
        if (!k)
            return CUTAP_ID_ALL;
    }
    return CUTAP_ID_ALL;
}

static void map_put(void *p, uint32_t id)
{
    for (unsigned i = hash_ptr(p), n = 0; n < MAP_SIZE; i = (i + 1) & (MAP_SIZE - 1), n++) {
        if (map[i].key == p)
            return;   /* aliases: the first (lowest id) name wins */
        if (!map[i].key) {
            map[i].id = id;
            __atomic_store_n(&map[i].key, p, __ATOMIC_RELEASE);
            return;
        }
    }
}

void cutap_addr_map_put(void *p, uint32_t id)
{
    pthread_mutex_lock(&map_lock);
    map_put(p, id);
    pthread_mutex_unlock(&map_lock);
}

uint32_t cutap_addr_map_get(const void *p)
{
    return map_get(p);
}

void *cutap_driver_real(uint32_t id)
{
    return id < CUTAP_DRIVER_COUNT ? cutap_real[id] : NULL;
}

void *cutap_static_real(uint32_t id)
{
    if (id < CUTAP_DRIVER_COUNT)
        return atomic_load(&cutap_driver_state) == 1 ? cutap_real[id] : NULL;
    int k = cutap_lib_info[id - CUTAP_DRIVER_COUNT].layer - CUTAP_FIRST_LIB_LAYER;
    return atomic_load(&cutap_lib_state[k]) == 1 ? cutap_real[id] : NULL;
}

/* dlopen hands out the same handle for every open of one object. */
int cutap_driver_is_handle(const void *handle)
{
    return atomic_load_explicit(&cutap_driver_state, memory_order_acquire) == 1 && handle == driver_handle;
}

/* Lock discipline: no cutap lock is ever held across a call into the
 * dynamic loader (dlopen, dlsym, dladdr, dlinfo take glibc's loader lock,
 * and constructors run under it may call back into cutap). Adoption
 * resolves into private memory first and takes drv_lock only to publish.
 * A thread that re-enters while it is adopting (a constructor run by our
 * own dlopen calls the driver) gets "no driver" for that call instead of
 * waiting for itself. */
#define adopting (cutap_tls.driver_adopting)

struct resolved {
    void *real[CUTAP_DRIVER_COUNT];   /* driver ids only */
    char path[4096];
};

/* Whether addr is in cutap itself: the front (every exported entry, which
 * a lookup through the global scope or the program's handle finds) or the
 * core. Never a driver. */
static int ours(const void *addr)
{
    Dl_info a, f, c;
    return dladdr(addr, &a) && ((dladdr((void *)cutap_front_attach, &f) && a.dli_fbase == f.dli_fbase) ||
                                (dladdr((void *)ours, &c) && a.dli_fbase == c.dli_fbase));
}

/* handle is a reference of our own, kept for the life of the process when
 * it wins, so the driver is never unmapped under the wrappers (the program
 * may dlclose its handle and open it again). */
static int adopt(void *handle)
{
    struct link_map *lm = NULL;
    void *init = cutap_libc_dlsym(handle, "cuInit");
    if (init && ours(init)) {
        dlclose(handle);   /* a handle whose scope finds cutap's own entries first */
        return 0;
    }
    struct resolved *r = calloc(1, sizeof *r);
    if (!r || dlinfo(handle, RTLD_DI_LINKMAP, &lm) || !lm) {
        cutap_warn("cannot inspect the driver object");
        free(r);
        dlclose(handle);
        return 0;
    }
    snprintf(r->path, sizeof r->path, "%s", lm->l_name);
    unsigned found = 0;
    for (uint32_t id = 0; id < CUTAP_DRIVER_COUNT; id++)
        found += (r->real[id] = cutap_libc_dlsym(handle, cutap_driver_info[id].name)) != NULL;

    if (!found) {
        cutap_warn("%s has no CUDA driver entry points; not used as the driver", r->path);
        free(r);
        dlclose(handle);
        return 0;
    }
    int won = 0;
    pthread_mutex_lock(&drv_lock);
    if (atomic_load(&cutap_driver_state) != 1) {
        won = 1;
        driver_handle = handle;
        memcpy(driver_path, r->path, sizeof driver_path);
        memcpy(cutap_real, r->real, sizeof r->real);
        for (uint32_t id = 0; id < CUTAP_DRIVER_COUNT; id++)
            if (cutap_real[id])
                map_put(cutap_real[id], id);
        for (unsigned i = 0; i < cutap_untyped_count; i++)
            __atomic_store_n(&cutap_untyped_ctx[i].real, cutap_real[cutap_untyped_ids[i]], __ATOMIC_RELEASE);
        cutap_getprocaddress_init();
        cutap_exporttable_init();
        atomic_store_explicit(&cutap_driver_state, 1, memory_order_release);
        for (uint32_t id = 0; id < CUTAP_DRIVER_COUNT; id++)
            cutap_refresh_id(id);
    }
    pthread_mutex_unlock(&drv_lock);
    if (won)
        cutap_log_debug("driver %s: %u of %d exports resolved", r->path, found, CUTAP_DRIVER_COUNT);
    else
        dlclose(handle);   /* another thread adopted first */
    free(r);
    return 1;
}

static const char *driver_env;

/* Adopts CUTAP_DRIVER if set and usable, else the libcuda.so.1 the
 * process has loaded. Never a driver the program did not load: our export
 * reached while none is loaded (a weak reference, a lookup before the
 * program opened one) answers CUDA_ERROR_NOT_FOUND, as the program would
 * have found nothing to call without cutap; loading the machine's
 * libcuda.so.1 in its place would run a driver the program never chose
 * (issue #24). The driver loaded later is adopted then. */
static void open_and_adopt(int first)
{
    void *h;
    if (first && driver_env && *driver_env) {   /* tried once: it stays refused */
        if ((h = dlopen(driver_env, RTLD_LAZY | RTLD_LOCAL)) && adopt(h))
            return;
        if (!h)
            cutap_warn("CUTAP_DRIVER=%s cannot be opened: %s", driver_env, dlerror());
    }
    if ((h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD)))
        adopt(h);
}

void cutap_driver_configure(const char *driver)
{
    driver_env = driver && *driver ? strdup(driver) : NULL;
}

/* The loader's count of objects loaded when the driver was last found
 * missing: a driver call made then is answered "not found" without
 * another look until the program has loaded something. */
static _Atomic unsigned long long missing_at;

int cutap_driver_ensure(void)
{
    cutap_init();
    int s = atomic_load_explicit(&cutap_driver_state, memory_order_acquire);
    if (s == 1)
        return 0;
    unsigned long long adds = cutap_dl_adds();
    if (s == -1 && adds == atomic_load_explicit(&missing_at, memory_order_relaxed))
        return -1;
    if (adopting)
        return -1;
    adopting = 1;
    open_and_adopt(s == 0);
    adopting = 0;
    if (atomic_load(&cutap_driver_state) != 1) {
        pthread_mutex_lock(&drv_lock);
        int first = atomic_load(&cutap_driver_state) == 0;
        if (first)
            atomic_store(&cutap_driver_state, -1);
        atomic_store_explicit(&missing_at, adds, memory_order_relaxed);
        pthread_mutex_unlock(&drv_lock);
        if (first)
            cutap_warn("no CUDA driver found (libcuda.so.1%s): driver calls return CUDA_ERROR_NOT_FOUND",
                       driver_env ? " or CUTAP_DRIVER" : "");
    }
    return atomic_load(&cutap_driver_state) == 1 ? 0 : -1;
}

/* addr came out of a dlsym for a driver name on some handle: if no driver
 * is in use yet, the object holding addr is it (the program opened the
 * driver itself, maybe by an absolute path or as libcuda.so). */
void cutap_driver_adopt_from(void *addr)
{
    if (atomic_load_explicit(&cutap_driver_state, memory_order_acquire) == 1 || adopting)
        return;
    Dl_info info, self;
    if (!dladdr(addr, &info) || !info.dli_fname || ours(addr))
        return;   /* our own export (a lookup through the global scope) */
    void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    /* Only an object that has the driver's entry point is a driver. */
    void *init = h ? cutap_libc_dlsym(h, "cuInit") : NULL;
    if (init && dladdr(init, &self) && self.dli_fbase == info.dli_fbase) {
        adopting = 1;
        adopt(h);
        adopting = 0;
    } else if (h) {
        dlclose(h);
    }
}

/* Is p inside an executable segment of a loaded object (of the driver,
 * when driver_only)? dladdr alone also answers for data. */
struct code_query {
    uintptr_t p;
    int driver_only;
    int found;
};

static int code_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct code_query *q = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && q->p >= lo && q->p < lo + ph->p_memsz) {
            int ours = !q->driver_only || (info->dlpi_name && !strcmp(info->dlpi_name, driver_path));
            q->found = ours && (ph->p_flags & PF_X) ? 1 : -1;
            return 1;
        }
    }
    return 0;
}

static int is_code(const void *p, int driver_only)
{
    struct code_query q = {(uintptr_t)p, driver_only, 0};
    dl_iterate_phdr(code_cb, &q);
    return q.found == 1;
}

int cutap_addr_is_code(const void *p)
{
    return is_code(p, 0);
}

/* The caller hands out the function itself when no stub can be made: its
 * calls are made, not recorded. Said once, with the reason (a W^X policy
 * refuses executable memory made at run time). */
void *cutap_stub_or_warn(struct cutap_tramp_ctx *ctx)
{
    static _Atomic int said;
    void *stub = cutap_tramp_make_stub(ctx);
    if (!stub && !atomic_exchange(&said, 1))
        cutap_warn("cannot make executable memory for trampolines (%s): entry points cutap does not know "
                   "(newer driver exports, export-table slots) are called unrecorded",
                   strerror(errno));
    return stub;
}

void *cutap_wrap_pointer(void *p, const char *name_hint)
{
    if (!p)
        return p;
    uint32_t id = map_get(p);
    if (id < CUTAP_STATIC_COUNT)
        return cutap_static_wrapper(id);   /* a driver export or a layer function */
    if (atomic_load_explicit(&cutap_driver_state, memory_order_acquire) != 1)
        return p;
    if (id != CUTAP_ID_ALL) {
        struct cutap_tramp_ctx *ctx = cutap_id_ctx(id);
        return ctx ? (void *)ctx->reserved : p;
    }
    if (!is_code(p, 1))
        return p;   /* not a driver function (data, or another object) */
    /* A driver function the tables do not know: a newer entry point, or
     * an undeclared one. Give it an id and a trampoline, once per address. */
    pthread_mutex_lock(&map_lock);
    void *out = p;
    id = map_get(p);
    if (id != CUTAP_ID_ALL) {
        struct cutap_tramp_ctx *ctx = cutap_id_ctx(id);
        out = ctx ? (void *)ctx->reserved : p;
    } else {
        struct cutap_tramp_ctx *ctx = NULL;
        id = cutap_id_new(name_hint && *name_hint ? name_hint : "cu?unknown", CUTAP_LAYER_DRIVER, &ctx);
        void *stub = ctx ? cutap_stub_or_warn(ctx) : NULL;
        if (stub) {
            ctx->reserved = (uint64_t)(uintptr_t)stub;
            __atomic_store_n(&ctx->real, p, __ATOMIC_RELEASE);
            cutap_refresh_id(id);
            map_put(p, id);
            out = stub;
            cutap_log_debug("new entry point %s at %p -> trampoline %p", cutap_call_name(id), p, stub);
        }
    }
    pthread_mutex_unlock(&map_lock);
    return out;
}
