/* The loaded objects calls are attributed to (issue #14): a runtime call
 * reported through CUPTI by a copy of the runtime linked into the program
 * or into a library (cuDNN, PyTorch's, XLA's) is named by the object that
 * copy lives in; so is an NVIDIA library's environment lookup (issue #32).
 * An address is turned into an object once, then cached per address: the
 * call sites of a copy are few, its calls many.
 *
 * The first time, it may run in a signal handler (a getenv of libcuda's
 * there): the object is found with _dl_find_object (glibc 2.35 and later:
 * lock-free, async-signal-safe), dladdr only where that is missing or for
 * the main program (its link map has no name), which takes the dynamic
 * loader's lock (no lock of cutap's is held around it: a library
 * constructor that makes a runtime call while dlopen runs holds that one).
 * The names are kept in a fixed arena (no malloc); the table of objects
 * only grows, under a mutex taken with a bounded number of tries (a
 * signal handler on the thread that holds it, a holder that never came
 * back: the answer is 0, unknown, rather than a wait). No thread-local
 * storage: the core is dlopened (static TLS would come from glibc's
 * surplus that later dlopens share). The
 * cache is one atomic word per entry, (address << 16 | index + 1), user
 * addresses being below 2^47. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core_internal.h"

#define MAX_OBJECTS 1024
#define ADDR_CACHE 1024
#define NAMES (256 * 1024)
static struct {
    uint64_t base;
    const char *path;
} objects[MAX_OBJECTS];
static char names[NAMES];
static size_t names_used;
static _Atomic uint32_t nobjects;
static pthread_mutex_t objects_lock = PTHREAD_MUTEX_INITIALIZER;
CUTAP_FORK_SAFE(objects_lock)
static _Atomic uint64_t addr_cache[ADDR_CACHE];

typedef cutap_find_object_fn find_object_fn;
static find_object_fn find_object;
__attribute__((constructor)) static void objects_init(void)
{
    find_object = (find_object_fn)cutap_libc_dlsym(RTLD_DEFAULT, "_dl_find_object");
}

/* base and name of the object holding addr (0 when none) */
static int locate(const void *addr, uint64_t *base, const char **name)
{
    struct cutap_dl_found fo;
    if (find_object && !find_object((void *)addr, &fo) && fo.link_map && fo.link_map->l_name &&
        fo.link_map->l_name[0]) {
        *base = (uint64_t)(uintptr_t)fo.map_start;   /* dladdr's dli_fbase: the same l_map_start */
        *name = fo.link_map->l_name;
        return 1;
    }
    Dl_info di;
    if (!dladdr(addr, &di) || !di.dli_fbase)
        return 0;
    *base = (uint64_t)(uintptr_t)di.dli_fbase;
    *name = di.dli_fname && *di.dli_fname ? di.dli_fname : "?";
    return 1;
}

uint32_t cutap_object_of(const void *addr)
{
    uintptr_t a = (uintptr_t)addr;
    if (!a || a >> 47)
        return 0;
    _Atomic uint64_t *e = &addr_cache[(a >> 4) % ADDR_CACHE];
    uint64_t v = atomic_load_explicit(e, memory_order_acquire);
    if (v >> 16 == a && (v & 0xffff))
        return (uint32_t)(v & 0xffff);
    uint64_t base;
    const char *name;
    if (!locate(addr, &base, &name))
        return 0;
    uint32_t idx = 0;
    if (!cutap_lock_bounded(&objects_lock))
        return 0;
    uint32_t n = atomic_load_explicit(&nobjects, memory_order_relaxed);
    for (uint32_t i = 0; i < n && !idx; i++)
        if (objects[i].base == base)
            idx = i + 1;
    size_t len = strlen(name) + 1;
    if (!idx && n < MAX_OBJECTS && len <= NAMES - names_used) {
        char *p = memcpy(names + names_used, name, len);
        names_used += len;
        objects[n].base = base;
        objects[n].path = p;
        atomic_store_explicit(&nobjects, n + 1, memory_order_release);
        idx = n + 1;
    }
    pthread_mutex_unlock(&objects_lock);
    if (idx)
        atomic_store_explicit(e, (uint64_t)a << 16 | idx, memory_order_release);
    return idx;
}

const char *cutap_object_path(uint32_t index1, uint64_t *base)
{
    if (!index1 || index1 > atomic_load_explicit(&nobjects, memory_order_acquire))
        return NULL;
    if (base)
        *base = objects[index1 - 1].base;
    return objects[index1 - 1].path;
}
