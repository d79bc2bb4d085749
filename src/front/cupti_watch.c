/* The program's own CUPTI activity client (issue #31).
 *
 * CUPTI keeps one pair of activity buffer callbacks per process: a second
 * cuptiActivityRegisterCallbacks silently replaces the first. cutap trace
 * --gpu registers its own (src/record/gpu.c, through the function's address
 * in libcupti, never this symbol); a profiler the program runs (PyTorch's
 * Kineto, a CUPTI sample) registers through this export, which every
 * library linked against libcupti binds to, cutap being preloaded. Here
 * that is noted (the time, for the recorder: it refuses to start beside a
 * client registered before it, and stops and says so when one takes the
 * buffers over later), and the call goes to libcupti unchanged: the one
 * after cutap in the lookup order, or, where the program loaded libcupti
 * into a scope of its own (RTLD_LOCAL), the one a loaded object defines:
 * libcupti, or a library with CUPTI linked in statically (older PyTorch
 * builds), never cutap's own. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <string.h>

#include "front_internal.h"

#define EXPORT __attribute__((visibility("default")))

/* CLOCK_MONOTONIC ns (| 1) when the program last registered activity
 * callbacks of its own; 0: never (read by record/gpu.c) */
CUTAP_FRONT uint64_t cutap_cupti_client_ns;
/* Set by record/gpu.c while cutap's CUPTI collection runs: called before the
 * program's registration goes through, it hands what cutap collected to
 * cutap and turns cutap's collection off, so that the program's client gets
 * what it asks for, as without cutap. */
CUTAP_FRONT void (*cutap_cupti_yield)(void);

typedef int (*register_fn)(void *requested, void *completed);
EXPORT int cuptiActivityRegisterCallbacks(void *requested, void *completed);
static register_fn real_register;

struct find {
    int pass;                     /* 0: objects named libcupti.so*; 1: any other */
    void *f;
};

/* The definition an object (and its dependencies) gives, not cutap's. */
static int find_loaded(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct find *w = data;
    const char *n = info->dlpi_name, *b = n ? strrchr(n, '/') : NULL;
    b = b ? b + 1 : n;
    if (!b || !*b || (w->pass == 0) != !strncmp(b, "libcupti.so", 11))
        return 0;
    void *h = dlopen(n, RTLD_NOW | RTLD_NOLOAD);
    void *f = h ? cutap_libc_dlsym(h, "cuptiActivityRegisterCallbacks") : NULL;
    if (f == (void *)cuptiActivityRegisterCallbacks)
        f = NULL;
    if (f)
        w->f = f;
    return f != NULL;
}

EXPORT int cuptiActivityRegisterCallbacks(void *requested, void *completed)
{
    register_fn f = __atomic_load_n(&real_register, __ATOMIC_ACQUIRE);
    if (!f) {
        f = (register_fn)cutap_libc_dlsym(RTLD_NEXT, "cuptiActivityRegisterCallbacks");
        for (struct find w = {0, NULL}; !f && w.pass < 2; w.pass++) {
            dl_iterate_phdr(find_loaded, &w);
            f = (register_fn)w.f;
        }
        if (f)
            __atomic_store_n(&real_register, f, __ATOMIC_RELEASE);
    }
    if (!f)
        return 15;   /* CUPTI_ERROR_NOT_INITIALIZED: no libcupti loaded to take the call */
    __atomic_store_n(&cutap_cupti_client_ns, cutap_now_ns() | 1, __ATOMIC_RELEASE);
    void (*yield)(void) = __atomic_load_n(&cutap_cupti_yield, __ATOMIC_ACQUIRE);
    if (yield)
        yield();
    return f(requested, completed);
}
