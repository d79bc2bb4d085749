/* The program's own CUPTI activity client and subscriber (issue #31).
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
 * builds), never cutap's own.
 *
 * CUPTI also has one callback subscriber per process (a second
 * cuptiSubscribe fails with CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED).
 * trace --gpu subscribes to join GPU work to calls; a program that
 * subscribes itself (Kineto, a CUPTI sample) calls through cuptiSubscribe
 * or cuptiSubscribe_v2 here: cutap first lets its own subscription go
 * (record/gpu.c joins through external ids from then on), so that the
 * program's gets what it asks for, as without cutap. */
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
/* Set by record/gpu.c while cutap holds CUPTI's one subscription: called
 * before the program's cuptiSubscribe goes through, it lets it go. */
CUTAP_FRONT void (*cutap_cupti_sub_yield)(void);

typedef int (*register_fn)(void *requested, void *completed);
typedef int (*subscribe_fn)(void *subscriber, void *callback, void *userdata);
typedef int (*subscribe2_fn)(void *subscriber, void *callback, void *userdata, void *params);
EXPORT int cuptiActivityRegisterCallbacks(void *requested, void *completed);
EXPORT int cuptiSubscribe(void *subscriber, void *callback, void *userdata);
EXPORT int cuptiSubscribe_v2(void *subscriber, void *callback, void *userdata, void *params);

/* The functions watched: each export, and libcupti's definition it calls
 * (found at its first call, or given by a dlsym of a libcupti handle). */
enum { W_REGISTER, W_SUBSCRIBE, W_SUBSCRIBE2, W_COUNT };
static const struct {
    const char *name;
    const void *ours;
} watched[W_COUNT] = {
    {"cuptiActivityRegisterCallbacks", (const void *)cuptiActivityRegisterCallbacks},
    {"cuptiSubscribe", (const void *)cuptiSubscribe},
    {"cuptiSubscribe_v2", (const void *)cuptiSubscribe_v2},
};
static void *_Atomic real[W_COUNT];

/* The loaded objects' names, taken while the loader lists them; looked at
 * after, so that no dlopen runs inside dl_iterate_phdr (which holds a loader
 * lock that dlopen, taking another, would invert). */
#define FIND_MAX 1024
struct names {
    const char *name[FIND_MAX];
    size_t n;
};
static int list_loaded(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct names *w = data;
    if (info->dlpi_name && info->dlpi_name[0] && w->n < FIND_MAX)
        w->name[w->n++] = info->dlpi_name;
    return 0;
}

/* The definition of `name` a loaded object (and its dependencies) gives,
 * not cutap's (`ours`): objects named libcupti.so* first, then any other. */
static void *find_loaded(const char *name, const void *ours)
{
    struct names w = {.n = 0};   /* (8 KiB of the calling thread's stack, once) */
    dl_iterate_phdr(list_loaded, &w);
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < w.n; i++) {
            const char *b = strrchr(w.name[i], '/');
            b = b ? b + 1 : w.name[i];
            if ((pass == 0) != !strncmp(b, "libcupti.so", 11))
                continue;
            void *h = dlopen(w.name[i], RTLD_NOW | RTLD_NOLOAD);
            void *f = h ? cutap_libc_dlsym(h, name) : NULL;
            if (f && f != ours)
                return f;
        }
    return NULL;
}

/* libcupti's definition of a watched function (the one after cutap in
 * the lookup order, or one a loaded object defines); NULL: no libcupti
 * loaded. */
static void *real_of(int w)
{
    void *f = atomic_load_explicit(&real[w], memory_order_acquire);
    if (!f) {
        f = cutap_libc_dlsym(RTLD_NEXT, watched[w].name);
        if (!f || f == watched[w].ours)
            f = find_loaded(watched[w].name, watched[w].ours);
        if (f)
            atomic_store_explicit(&real[w], f, memory_order_release);
    }
    return f;
}

/* dlsym of a watched name on a handle (not RTLD_DEFAULT or RTLD_NEXT,
 * whose scopes find the export anyway): which (or -1), for the dlsym
 * entry (front.c) to send the lookup here. Profilers that load CUPTI
 * themselves (XLA's, for JAX) take its functions so. */
int cutap_cupti_watched(void *handle, const char *name)
{
    if (!handle || handle == RTLD_DEFAULT || handle == RTLD_NEXT || strncmp(name, "cupti", 5))
        return -1;
    for (int w = 0; w < W_COUNT; w++)
        if (!strcmp(name, watched[w].name))
            return w;
    return -1;
}

/* That lookup: the export, where the handle's definition is the one the
 * export calls (libcupti's: the one after cutap in the lookup order, or
 * one a loaded object named libcupti.so* defines); otherwise the handle's
 * own definition, unwatched (helper-30: a library of the program's that
 * defines the name and forwards to libcupti through dlsym got the export
 * back and called itself for ever; a second libcupti's lookup reached the
 * first). NULL (dlerror() as glibc left it) where the handle has none. */
void *cutap_cupti_dl_lookup(int w, void *handle, const char *version)
{
    void *r = version ? cutap_libc_dlvsym(handle, watched[w].name, version) : cutap_libc_dlsym(handle, watched[w].name);
    if (!r || r == watched[w].ours || r != real_of(w))
        return r;
    return (void *)watched[w].ours;
}

EXPORT int cuptiActivityRegisterCallbacks(void *requested, void *completed)
{
    register_fn f = (register_fn)real_of(W_REGISTER);
    if (!f)
        return 15;   /* CUPTI_ERROR_NOT_INITIALIZED: no libcupti loaded to take the call */
    __atomic_store_n(&cutap_cupti_client_ns, cutap_now_ns() | 1, __ATOMIC_RELEASE);
    void (*yield)(void) = __atomic_load_n(&cutap_cupti_yield, __ATOMIC_ACQUIRE);
    if (yield)
        yield();
    return f(requested, completed);
}

static void sub_yield(void)
{
    void (*yield)(void) = __atomic_load_n(&cutap_cupti_sub_yield, __ATOMIC_ACQUIRE);
    if (yield)
        yield();
}

EXPORT int cuptiSubscribe(void *subscriber, void *callback, void *userdata)
{
    subscribe_fn f = (subscribe_fn)real_of(W_SUBSCRIBE);
    if (!f)
        return 15;   /* CUPTI_ERROR_NOT_INITIALIZED, as above */
    sub_yield();
    return f(subscriber, callback, userdata);
}

/* A libcupti without cuptiSubscribe_v2 (before CUDA 12.9?): a program
 * that found cutap's export (a weak reference, dlsym(RTLD_DEFAULT)) where
 * bare it would have found none and called cuptiSubscribe is answered by
 * cuptiSubscribe (the params are optional: a name, and room for the
 * other subscriber's name on failure, left as given; helper-29). */
EXPORT int cuptiSubscribe_v2(void *subscriber, void *callback, void *userdata, void *params)
{
    subscribe2_fn f = (subscribe2_fn)real_of(W_SUBSCRIBE2);
    if (!f)
        return cuptiSubscribe(subscriber, callback, userdata);
    sub_yield();
    return f(subscriber, callback, userdata, params);
}
