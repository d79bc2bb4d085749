/* getenv and secure_getenv, as the front exports them (issue #32): what
 * the NVIDIA libraries read from the environment is recorded by the core
 * (src/record/env.c), with the object that asked; every other caller's
 * lookup only passes through.
 *
 * The answer is glibc's own (its function, found at start-up by
 * cutap_env_init). Before that, a lookup made by an earlier constructor
 * is answered here as glibc answers it: the first entry NAME=... of the
 * environment (a name may hold '='), NULL for an empty name or no
 * environment; secure_getenv also NULL in a set-user-ID or set-group-ID
 * program (AT_SECURE). errno is the caller's.
 *
 * Whose a lookup is: the object holding the caller's return address,
 * found with _dl_find_object (lock-free, async-signal-safe; dladdr where
 * glibc lacks it), its kind (an NVIDIA library by file name, or not)
 * cached per object range, 16 of them. Until the core records lookups
 * (cutap_env_on), an NVIDIA library's are kept here, the first 64, and
 * handed to it when recording starts (cutap_front_env_drain); a forked
 * child keeps none of its parent's. Nothing here calls getenv, allocates
 * or takes a lock of cutap's. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "front_internal.h"

#define EXPORT __attribute__((visibility("default")))

typedef char *(*getenv_fn)(const char *);
typedef cutap_find_object_fn find_object_fn;
/* Set by the core when it records lookups (src/record/env.c): until then,
 * and with CUTAP_ENV=0, stat or --ring, a lookup made after the core was
 * loaded costs glibc's call and this load. */
CUTAP_FRONT _Atomic int cutap_env_on;
static getenv_fn _Atomic real_getenv, real_secure_getenv;

static find_object_fn _Atomic find_object;
static void env_child(void);

void cutap_env_init(void)
{
    __atomic_store_n(&real_getenv, (getenv_fn)cutap_front_next("getenv", NULL), __ATOMIC_RELEASE);
    __atomic_store_n(&real_secure_getenv, (getenv_fn)cutap_front_next("secure_getenv", NULL), __ATOMIC_RELEASE);
    __atomic_store_n(&find_object, (find_object_fn)cutap_front_next("_dl_find_object", NULL), __ATOMIC_RELEASE);
    pthread_atfork(NULL, NULL, env_child);
}

static char *scan(const char *name)
{
    extern char **environ;
    size_t n = name ? strlen(name) : 0;
    if (!n || !environ)
        return NULL;
    for (char **e = environ; *e; e++)
        if (!strncmp(*e, name, n) && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

/* The file names of NVIDIA's user-space libraries: a stem followed by the
 * end of the name, '.', '-' or '_' (libcudart.so.13, libcudart-d0da41ae.so.11.0
 * of an auditwheel-built wheel, libcudnn_ops.so.9), or, for those ending
 * in '-', anything: the driver's, the CUDA toolkit's, NCCL, cuDNN,
 * NVSHMEM, TensorRT, cuQuantum. The core's record/env.c asks too. */
CUTAP_FRONT int cutap_front_nvidia_lib(const char *path)
{
    static const char *const stem[] = {
        "libcuda", "libcudart", "libcublas", "libcublasLt", "libcublasmp", "libcudnn", "libnccl", "libnvidia-",
        "libcufft", "libcufftw", "libcurand", "libcusparse", "libcusparseLt", "libcusolver", "libcusolverMg",
        "libnvrtc", "libnvJitLink", "libnvToolsExt", "libnvtx3interop", "libcupti", "libnvperf", "libnvshmem",
        "libcutensor", "libcutensorMg", "libcudss", "libnvinfer", "libnvonnxparser", "libnvjpeg", "libnpp",
        "libnvblas", "libcufile", "libnvptxcompiler", "libnvvm", "libnvfatbin", "libnvcuvid", "libnvoptix",
        "libcudadebugger", "libcustatevec", "libcutensornet", "libcheckpoint", "libpcsamplingutil",
    };
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    for (size_t i = 0; i < sizeof stem / sizeof stem[0]; i++) {
        size_t n = strlen(stem[i]);
        if (!strncmp(b, stem[i], n) && (stem[i][n - 1] == '-' || !b[n] || strchr(".-_", b[n])))
            return 1;
    }
    return 0;
}

/* Lookups made before the core records them, by an NVIDIA library (its
 * constructor, code run before the first CUDA call): kept here, the first
 * CUTAP_ENV_EARLY_MAX of them, for the core (cutap_front_env_drain). */
static struct cutap_env_early early[CUTAP_ENV_EARLY_MAX];
static _Atomic uint8_t early_ready[CUTAP_ENV_EARLY_MAX];
/* Slots claimed, and the DRAINED bit, in one word: a slot is claimed only
 * before the drain (which sets the bit and reads the count at once), so
 * none is taken where the drain cannot see it. */
#define DRAINED 0x80000000u
static _Atomic unsigned nearly;

/* The kinds of the objects callers were found in: [start, end), the kind
 * in start's low bits (1 NVIDIA's, 2 another's; objects start on a page).
 * A slot being replaced reads as empty (end 0 first, written last). */
#define OBJS 16
static struct {
    _Atomic uintptr_t start, end;
} objs[OBJS];
static _Atomic unsigned objs_next;
static int kind_cached(uintptr_t a)
{
    for (unsigned i = 0; i < OBJS; i++) {
        uintptr_t e = atomic_load_explicit(&objs[i].end, memory_order_acquire);
        uintptr_t s = atomic_load_explicit(&objs[i].start, memory_order_acquire);
        if (a < e && a >= (s & ~(uintptr_t)3) && atomic_load_explicit(&objs[i].end, memory_order_relaxed) == e)
            return (int)(s & 3);
    }
    return 0;
}

static int nvidia_caller(const void *caller)
{
    uintptr_t a = (uintptr_t)caller;
    if (!a)
        return 0;
    int k = kind_cached(a);
    if (k)
        return k == 1;
    find_object_fn f = atomic_load_explicit(&find_object, memory_order_acquire);
    struct cutap_dl_found fo;
    uintptr_t start, end;
    const char *path = NULL;
    if (f) {
        if (f((void *)caller, &fo))
            return 0;
        start = (uintptr_t)fo.map_start, end = (uintptr_t)fo.map_end;
        path = fo.link_map ? fo.link_map->l_name : NULL;
    } else {
        Dl_info di;   /* (glibc before 2.35: no range; this caller's page alone) */
        if (!dladdr(caller, &di))
            return 0;
        path = di.dli_fname;
        start = a & ~(uintptr_t)4095, end = start + 4096;
    }
    k = path && *path && cutap_front_nvidia_lib(path) ? 1 : 2;
    if (!(start & 3) && end > start) {
        unsigned i = atomic_fetch_add_explicit(&objs_next, 1, memory_order_relaxed) % OBJS;
        atomic_store_explicit(&objs[i].end, 0, memory_order_release);
        atomic_store_explicit(&objs[i].start, start | (uintptr_t)k, memory_order_release);
        atomic_store_explicit(&objs[i].end, end, memory_order_release);
    }
    return k == 1;
}

static void env_child(void)
{
    atomic_fetch_and(&nearly, DRAINED);   /* none of the parent's; drained stays drained */
    for (unsigned i = 0; i < CUTAP_ENV_EARLY_MAX; i++)
        atomic_store(&early_ready[i], 0);
}

static void keep_early(int secure, const char *name, const char *value, const void *caller)
{
    if ((atomic_load(&nearly) & DRAINED) || !nvidia_caller(caller))
        return;
    unsigned i = atomic_load(&nearly);
    do
        if ((i & DRAINED) || i >= DRAINED - 1)
            return;
    while (!atomic_compare_exchange_weak(&nearly, &i, i + 1));
    if (i >= CUTAP_ENV_EARLY_MAX)
        return;   /* counted (nearly), not kept */
    struct cutap_env_early *x = &early[i];
    size_t n = strnlen(name, sizeof x->name), v = value ? strnlen(value, sizeof x->value) : 0;
    x->caller = caller;
    x->secure = (uint8_t)secure;
    x->set = value != NULL;
    x->cut = n == sizeof x->name || v == sizeof x->value;
    memcpy(x->name, name, n < sizeof x->name ? n : sizeof x->name - 1);
    x->name[n < sizeof x->name ? n : sizeof x->name - 1] = 0;
    if (value) {
        memcpy(x->value, value, v < sizeof x->value ? v : sizeof x->value - 1);
        x->value[v < sizeof x->value ? v : sizeof x->value - 1] = 0;
    }
    atomic_store_explicit(&early_ready[i], 1, memory_order_release);
}

/* Each kept lookup to fn (none after the first call). A slot taken but
 * not filled yet (its thread between the two) is waited for a moment,
 * then counted lost, as are those past the first 64. */
CUTAP_FRONT unsigned cutap_front_env_drain(void (*fn)(const struct cutap_env_early *e), unsigned *lost)
{
    *lost = 0;
    unsigned n = atomic_fetch_or(&nearly, DRAINED), k = 0;
    if (n & DRAINED)
        return 0;
    *lost = n > CUTAP_ENV_EARLY_MAX ? n - CUTAP_ENV_EARLY_MAX : 0;
    for (unsigned i = 0; i < n && i < CUTAP_ENV_EARLY_MAX; i++) {
        int spins = 1 << 16;
        while (!atomic_load_explicit(&early_ready[i], memory_order_acquire) && --spins)
            __builtin_ia32_pause();
        if (spins && fn)
            fn(&early[i]), k++;
        else if (!spins)
            ++*lost;
    }
    return k;
}

static char *lookup(int secure, const char *name, const void *caller)
{
    getenv_fn f = __atomic_load_n(secure ? &real_secure_getenv : &real_getenv, __ATOMIC_ACQUIRE);
    char *v = f ? f(name) : secure && getauxval(AT_SECURE) ? NULL : scan(name);
    if (!name)
        return v;
    int err = errno;   /* glibc's getenv leaves errno alone: so does the rest */
    const struct cutap_core *c = cutap_core_if_loaded();
    if (!atomic_load_explicit(&cutap_env_on, memory_order_relaxed)) {
        keep_early(secure, name, v, caller);   /* (until drained: the core's start) */
    } else if (nvidia_caller(caller) && c && c->size > offsetof(struct cutap_core, env) && c->env) {
        c->env(secure, name, v, caller);
    }
    errno = err;
    return v;
}

EXPORT char *cutap_f_getenv(const char *name) __asm__("getenv");
char *cutap_f_getenv(const char *name)
{
    return lookup(0, name, __builtin_return_address(0));
}

EXPORT char *cutap_f_secure_getenv(const char *name) __asm__("secure_getenv");
char *cutap_f_secure_getenv(const char *name)
{
    return lookup(1, name, __builtin_return_address(0));
}
