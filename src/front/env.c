/* getenv and secure_getenv, as the front exports them (issue #32): what
 * the NVIDIA libraries read from the environment is recorded by the core
 * (src/record/env.c), with the object that asked; every other caller's
 * lookup only passes through.
 *
 * The answer is glibc's own (its function, found at start-up by
 * cutap_env_init). Before that, a lookup made by an earlier constructor
 * is answered here as glibc answers it: the environment's first entry
 * NAME=..., NULL for an empty name, a name holding '=' or no
 * environment; secure_getenv also NULL in a set-user-ID or set-group-ID
 * program (AT_SECURE). The core hears of a lookup once it is loaded (by
 * the first sign of CUDA); an NVIDIA library's lookups before that are
 * kept here (the first 64) and handed to it when it starts recording.
 * Nothing here calls getenv, allocates or takes a lock of cutap's (dladdr,
 * once per call site before the core is loaded, takes the loader's). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "front_internal.h"

#define EXPORT __attribute__((visibility("default")))

typedef char *(*getenv_fn)(const char *);
/* Set by the core when it records lookups (src/record/env.c): until then,
 * and with CUTAP_ENV=0, stat or --ring, a lookup made after the core was
 * loaded costs glibc's call and this load. */
CUTAP_FRONT _Atomic int cutap_env_on;
static getenv_fn _Atomic real_getenv, real_secure_getenv;

void cutap_env_init(void)
{
    __atomic_store_n(&real_getenv, (getenv_fn)cutap_front_next("getenv", NULL), __ATOMIC_RELEASE);
    __atomic_store_n(&real_secure_getenv, (getenv_fn)cutap_front_next("secure_getenv", NULL), __ATOMIC_RELEASE);
}

static char *scan(const char *name)
{
    extern char **environ;
    size_t n = name ? strlen(name) : 0;
    if (!n || !environ || memchr(name, '=', n))
        return NULL;
    for (char **e = environ; *e; e++)
        if (!strncmp(*e, name, n) && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

/* The file names of NVIDIA's user-space libraries (a version suffix after
 * them allowed): the driver's, the CUDA toolkit's, NCCL, cuDNN, NVSHMEM,
 * TensorRT. The core's record/env.c asks too. */
CUTAP_FRONT int cutap_front_nvidia_lib(const char *path)
{
    static const char *const pre[] = {
        "libcuda.",  "libcudart.", "libcublas.",  "libcublasLt.", "libcudnn",     "libnccl.",  "libnvidia-",
        "libcufft",  "libcurand.", "libcusparse", "libcusolver",  "libnvrtc",     "libnvJitLink", "libnvToolsExt",
        "libcupti.", "libnvperf",  "libnvshmem",  "libcutensor",  "libcudss.",    "libnvinfer", "libnvjpeg",
        "libnpp",    "libnvblas.", "libcufile",   "libnvptxcompiler", "libcuda_", "libnvml.",
    };
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
        if (!strncmp(b, pre[i], strlen(pre[i])))
            return 1;
    return 0;
}

/* Lookups made before the core was loaded by an NVIDIA library (its
 * constructor, or code run before the first CUDA call): kept here, the
 * first CUTAP_ENV_EARLY_MAX of them, for the core to record when it
 * starts (cutap_front_env_drain). Whose a caller is: dladdr once per call
 * site, cached. */
static struct cutap_env_early early[CUTAP_ENV_EARLY_MAX];
static _Atomic uint8_t early_ready[CUTAP_ENV_EARLY_MAX];
static _Atomic unsigned nearly, early_drained;
#define SITES 256
static _Atomic uint64_t site_kind[SITES];   /* caller << 2 | 1 NVIDIA's, 2 another's */

static int nvidia_caller(const void *caller)
{
    uint64_t a = (uint64_t)(uintptr_t)caller;
    if (!a || a >> 60)
        return 0;
    _Atomic uint64_t *e = &site_kind[(a >> 2) % SITES];
    uint64_t v = atomic_load_explicit(e, memory_order_relaxed);
    if (v >> 2 != a) {
        Dl_info di;
        int nv = dladdr(caller, &di) && di.dli_fname && cutap_front_nvidia_lib(di.dli_fname);
        v = a << 2 | (nv ? 1 : 2);
        atomic_store_explicit(e, v, memory_order_relaxed);
    }
    return (v & 3) == 1;
}

static void keep_early(int secure, const char *name, const char *value, const void *caller)
{
    if (atomic_load(&early_drained) || !nvidia_caller(caller))
        return;
    unsigned i = atomic_fetch_add(&nearly, 1);
    if (i >= CUTAP_ENV_EARLY_MAX)
        return;   /* counted (nearly), not kept */
    struct cutap_env_early *x = &early[i];
    size_t n = strnlen(name, sizeof x->name), v = value ? strnlen(value, sizeof x->value) : 0;
    x->caller = caller;
    x->secure = (uint8_t)secure;
    x->set = value != NULL;
    x->cut = n == sizeof x->name || v == sizeof x->value;
    memcpy(x->name, name, n < sizeof x->name ? n : sizeof x->name - 1);
    if (value)
        memcpy(x->value, value, v < sizeof x->value ? v : sizeof x->value - 1);
    atomic_store_explicit(&early_ready[i], 1, memory_order_release);
}

CUTAP_FRONT unsigned cutap_front_env_drain(void (*fn)(const struct cutap_env_early *e), unsigned *lost)
{
    if (atomic_exchange(&early_drained, 1))
        return 0;
    unsigned n = atomic_load(&nearly), k = 0;
    *lost = n > CUTAP_ENV_EARLY_MAX ? n - CUTAP_ENV_EARLY_MAX : 0;
    for (unsigned i = 0; i < n && i < CUTAP_ENV_EARLY_MAX; i++)
        if (atomic_load_explicit(&early_ready[i], memory_order_acquire))
            fn(&early[i]), k++;
    return k;
}

static char *lookup(int secure, const char *name, const void *caller)
{
    getenv_fn f = __atomic_load_n(secure ? &real_secure_getenv : &real_getenv, __ATOMIC_ACQUIRE);
    char *v = f ? f(name) : secure && getauxval(AT_SECURE) ? NULL : scan(name);
    const struct cutap_core *c = cutap_core_if_loaded();
    if (!c) {
        if (name)
            keep_early(secure, name, v, caller);
    } else if (atomic_load_explicit(&cutap_env_on, memory_order_relaxed) && name && nvidia_caller(caller) &&
               c->size > offsetof(struct cutap_core, env) && c->env) {
        c->env(secure, name, v, caller);   /* an NVIDIA library's (the call site's kind cached here) */
    }
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
