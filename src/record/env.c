/* What the NVIDIA libraries read from the environment (issue #32): each
 * getenv and secure_getenv made by code of libcuda, the CUDA runtime and
 * libraries, NCCL, NVML, ... (the front's exports, src/front/env.c),
 * written as an ENV meta record in the calling thread's run of records
 * (docs/FORMAT.md): the name, the value it got or none, the object that
 * asked (named in the file once, as runtime copies' objects are).
 *
 * Whose lookup it is: the object holding the caller's return address
 * (cutap_object_of: dladdr once per call site, then a cached word), an
 * NVIDIA library by its file name (nvidia_name below), decided once per
 * object. A lookup of any other object costs that cached lookup and no
 * record. Not recorded: cutap's own lookups (cutap_tls.internal), those of
 * the CUPTI cutap loaded itself (an instrument's), a lookup made while one
 * is being recorded on the thread (a signal handler's), counting mode
 * (cutap stat) and --ring files (the records would grow the file past the
 * ring), outside a capture range or once frozen (rec_cap_on), and any
 * lookup with CUTAP_ENV=0. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "resolve_internal.h"
#include "writer_internal.h"

static int env_on;

void rec_env_setup(int counts)
{
    const char *e = getenv("CUTAP_ENV");
    env_on = !counts && !rec_ring.n && !(e && !strcmp(e, "0"));
    atomic_store(&cutap_env_on, env_on);
}

#define MAX_KIND 1024
static _Atomic uint8_t kind_of[MAX_KIND];   /* per object index: 0 not decided, 1 NVIDIA's, 2 another's */

static int nvidia_object(uint32_t o)
{
    if (!o || o > MAX_KIND)
        return 0;
    uint8_t k = atomic_load_explicit(&kind_of[o - 1], memory_order_relaxed);
    if (!k) {
        const char *path = cutap_object_path(o, NULL);
        k = path && cutap_front_nvidia_lib(path) ? 1 : 2;
        atomic_store_explicit(&kind_of[o - 1], k, memory_order_relaxed);
    }
    /* the CUPTI cutap uses is the instrument's (known only once opened) */
    return k == 1 && o != atomic_load(&cutap_cupti_object);
}

/* text: NAME, NUL, VALUE (none: unset); key: CUTAP_ENV_* */
static void write_env(uint32_t o, uint64_t flags, const char *name, const char *value)
{
    size_t n = strnlen(name, 256), v = value ? strnlen(value, 1024) : 0;
    char text[256 + 1 + 1024];
    memcpy(text, name, n);
    text[n] = 0;
    if (value)
        memcpy(text + n + 1, value, v);
    uint64_t key = flags | (value ? CUTAP_ENV_SET : 0) | ((n == 256 && name[n]) || (value && value[v]) ? CUTAP_ENV_CUT : 0);
    rec_write_meta_n(CUTAP_META_ENV, o, key, text, n + 1 + v);
}

void rec_env_seen(int secure, const char *name, const char *value, const void *caller)
{
    struct cutap_thread *t = &cutap_tls;
    /* (rec_cap_on: outside a capture range, or frozen, nothing is recorded) */
    if (!env_on || t->internal || t->env_busy || !name || !atomic_load_explicit(&rec_cap_on, memory_order_relaxed))
        return;
    t->env_busy = 1;
    uint32_t o = cutap_object_of(caller);
    if (nvidia_object(o) && (o = rec_origin_of(caller)))
        write_env(o, secure ? CUTAP_ENV_SECURE : 0, name, value);
    t->env_busy = 0;
}

static void write_early(const struct cutap_env_early *e)
{
    uint32_t o = cutap_object_of(e->caller);
    if (nvidia_object(o) && (o = rec_origin_of(e->caller)))
        write_env(o, CUTAP_ENV_EARLY | (e->secure ? CUTAP_ENV_SECURE : 0) | (e->cut ? CUTAP_ENV_CUT : 0), e->name,
                  e->set ? e->value : NULL);
}

/* The lookups the front kept from before the core was loaded, written
 * once recording has started (their time: now, their thread: this one). */
void rec_env_drain(void)
{
    unsigned lost = 0;
    cutap_tls.env_busy = 1;
    /* (not recording them: the front's store is closed all the same) */
    cutap_front_env_drain(env_on && atomic_load(&rec_cap_on) ? write_early : NULL, &lost);
    cutap_tls.env_busy = 0;
    if (!env_on)
        return;
    if (lost)
        cutap_warn("%u lookups of the environment by NVIDIA libraries before CUDA started were not kept "
                   "(the first %d were)", lost, CUTAP_ENV_EARLY_MAX);
}
