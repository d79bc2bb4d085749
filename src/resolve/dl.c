/* Lookups of CUDA names (dlsym, dlvsym), in the core: the front's entries
 * (src/front/dlsym_entry.S, front.c) let only names that may be CUDA ones
 * come here, and jump to glibc's dlsym for every other, with the caller's
 * stack untouched, so that glibc sees the original caller (RTLD_NEXT is
 * relative to it). glibc's dlsym itself is found by the front
 * (cutap_libc_dlsym, cutap_libc_dlvsym). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "resolve_internal.h"

static int adds_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    *(unsigned long long *)data = info->dlpi_adds;
    return 1;   /* the first object tells: the count is the loader's */
}

/* How many objects the dynamic loader has loaded so far (it never goes
 * down): tells whether a library found missing may have arrived since. */
unsigned long long cutap_dl_adds(void)
{
    unsigned long long n = 0;
    dl_iterate_phdr(adds_cb, &n);
    return n;
}

/* Decides whether a lookup is one cutap must see: a name the generated
 * tables know (driver or layer), on any handle; or any other "cu" name on
 * the driver's own handle (entry points newer than the tables). Everything
 * else goes straight to glibc. */
static int core_dl_divert(void *handle, const char *name, const char *version)
{
    (void)version;
    if (cutap_lookup(name) < CUTAP_STATIC_COUNT)
        return 1;
    if (name[0] != 'c' || name[1] != 'u')
        return 0;
    if (!handle || handle == RTLD_DEFAULT || handle == RTLD_NEXT)
        return 0;
    if (atomic_load_explicit(&cutap_driver_state, memory_order_acquire) != 1) {
        void *init = cutap_libc_dlsym(handle, "cuInit");
        if (init)
            cutap_driver_adopt_from(init);
    }
    return cutap_driver_is_handle(handle);
}

/* RTLD_NEXT relative to the caller, for driver names only: the first object
 * after the caller's in its namespace's load order that defines name. */
static void *next_after(const char *name, const char *version, void *caller)
{
    Dl_info info;
    struct link_map *lm = NULL;
    if (!dladdr1(caller, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
        return NULL;
    for (struct link_map *l = lm->l_next; l; l = l->l_next) {
        if (!l->l_name || !*l->l_name)
            continue;
        void *h = dlopen(l->l_name, RTLD_LAZY | RTLD_NOLOAD);
        if (!h)
            continue;
        void *r = version ? cutap_libc_dlvsym(h, name, version) : cutap_libc_dlsym(h, name);
        Dl_info ri;
        struct link_map *rl = NULL;
        int own = r && dladdr1(r, &ri, (void **)&rl, RTLD_DL_LINKMAP) && rl == l;
        dlclose(h);
        if (own)
            return r;
    }
    return NULL;
}

static void *core_dl_lookup(void *handle, const char *name, const char *version, void *caller)
{
    cutap_init();
    void *r;
    if (handle == RTLD_NEXT)
        r = next_after(name, version, caller);
    else
        r = version ? cutap_libc_dlvsym(handle, name, version) : cutap_libc_dlsym(handle, name);
    if (!r)
        return NULL;   /* dlerror() keeps glibc's message */
    uint32_t id = cutap_lookup(name);
    if (id < CUTAP_STATIC_COUNT && r == cutap_static_wrapper(id)) {
        /* A lookup through a scope that holds libcutap.so (RTLD_DEFAULT,
         * the main program's handle, ctypes.CDLL(None), RTLD_NEXT from the
         * program) found our own export: answer as the scope after us
         * would. Programs probe this way whether CUDA is loaded
         * (optional-GPU code, frameworks); our export would say yes when
         * no driver or library is there, and the program would then call
         * into nothing. The driver's names as the libraries' (issue #24). */
        r = cutap_front_next(name, version);
        /* RTLD_DEFAULT goes on in the caller's own group (a library
         * opened RTLD_LOCAL with its libcuda finds that one bare) */
        if (!r && handle == RTLD_DEFAULT)
            r = cutap_front_caller_group(name, version, caller);
        if (!r)
            return NULL;
    }
    if (id >= CUTAP_DRIVER_COUNT && id < CUTAP_STATIC_COUNT) {
        /* A runtime or library function: its object becomes the layer's
         * library if none is yet (frameworks dlopen them RTLD_LOCAL). */
        cutap_lib_adopt_from(id, r);
        return cutap_wrap_pointer(r, name);
    }
    if (handle != RTLD_NEXT && handle != RTLD_DEFAULT)
        cutap_driver_adopt_from(r);
    return cutap_wrap_pointer(r, name);
}

void cutap_dl_core(struct cutap_core *c)
{
    c->dl_divert = core_dl_divert;
    c->dl_lookup = core_dl_lookup;
}
