/* The loaded objects calls are attributed to (issue #14): a runtime call
 * reported through CUPTI by a copy of the runtime linked into the program
 * or into a library (cuDNN, PyTorch's, XLA's) is named by the object that
 * copy lives in. An address is turned into an object once (dladdr), then
 * cached per address: the call sites of a copy are few, its calls many.
 *
 * No lock of cutap's is held around dladdr, which takes the dynamic
 * loader's lock: a library constructor that makes a runtime call while
 * dlopen runs holds that one. The cache is one atomic word per entry,
 * (address << 16 | index + 1), user addresses being below 2^47; the table
 * of objects only grows, under a mutex taken after dladdr returned. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core_internal.h"

#define MAX_OBJECTS 1024
#define ADDR_CACHE 1024
static struct {
    uint64_t base;
    char *path;
} objects[MAX_OBJECTS];
static _Atomic uint32_t nobjects;
static pthread_mutex_t objects_lock = PTHREAD_MUTEX_INITIALIZER;
CUTAP_FORK_SAFE(objects_lock)
static _Atomic uint64_t addr_cache[ADDR_CACHE];

uint32_t cutap_object_of(const void *addr)
{
    uintptr_t a = (uintptr_t)addr;
    if (!a || a >> 47)
        return 0;
    _Atomic uint64_t *e = &addr_cache[(a >> 4) % ADDR_CACHE];
    uint64_t v = atomic_load_explicit(e, memory_order_acquire);
    if (v >> 16 == a && (v & 0xffff))
        return (uint32_t)(v & 0xffff);
    Dl_info di;
    if (!dladdr(addr, &di) || !di.dli_fbase)
        return 0;
    uint64_t base = (uint64_t)(uintptr_t)di.dli_fbase;
    const char *name = di.dli_fname && *di.dli_fname ? di.dli_fname : "?";
    uint32_t idx = 0;
    pthread_mutex_lock(&objects_lock);
    uint32_t n = atomic_load_explicit(&nobjects, memory_order_relaxed);
    for (uint32_t i = 0; i < n && !idx; i++)
        if (objects[i].base == base)
            idx = i + 1;
    if (!idx && n < MAX_OBJECTS) {
        char *p = strdup(name);
        if (p) {
            objects[n].base = base;
            objects[n].path = p;
            atomic_store_explicit(&nobjects, n + 1, memory_order_release);
            idx = n + 1;
        }
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
