/* Example cutap plugin: a device-memory limit, the core of a GPU-sharing
 * system. CUTAP_MEMLIMIT_BYTES caps the bytes a process may hold through
 * cuMemAlloc_v2; an allocation that would pass the cap is not made and the
 * program gets CUDA_ERROR_OUT_OF_MEMORY, as from a full GPU.
 *
 *   CUTAP_PLUGINS=build/examples/memlimit.so CUTAP_MEMLIMIT_BYTES=1000000 \
 *     LD_PRELOAD=build/libcutap.so ./app
 *
 * It shows the three things a pre/post client can do: look at arguments,
 * skip the call and supply its result, read output arguments after a call
 * that succeeded. A real limiter would also cover cuMemAllocPitch_v2,
 * cuMemAllocManaged, cuMemAllocAsync(_ptsz), cuMemCreate and the pools. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "cutap.h"

/* cutap API version 2: the interface is negotiated, and functions are
 * asked for by name (their ids are looked up once, at start). */
CUTAP_PLUGIN_NEGOTIATE()

#define CUDA_ERROR_OUT_OF_MEMORY 2
#define MAXALLOC 4096

static uint64_t limit, used;
static struct { uint64_t ptr, size; } live[MAXALLOC];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int me;
static uint32_t id_alloc, id_free;

static int pre(cutap_call_t *c, void *ctx, uint64_t *scratch)
{
    (void)ctx;
    if (c->id != id_alloc)
        return CUTAP_PROCEED;
    uint64_t size = c->args[1];
    pthread_mutex_lock(&lock);
    int over = used + size > limit;
    if (!over)
        used += size;   /* reserve now, so two threads cannot both pass */
    pthread_mutex_unlock(&lock);
    if (!over) {
        *scratch = 1;   /* reserved: given back in post if the call is not made */
        return CUTAP_PROCEED;
    }
    c->result = CUDA_ERROR_OUT_OF_MEMORY;
    return CUTAP_SKIP;
}

static void post(cutap_call_t *c, void *ctx, uint64_t *scratch)
{
    (void)ctx;
    if (c->flags & CUTAP_CALL_SKIPPED) {
        /* not made: denied here (nothing reserved), or skipped by a client
         * after this one (the reservation given back) */
        if (*scratch) {
            pthread_mutex_lock(&lock);
            used -= c->args[1];
            pthread_mutex_unlock(&lock);
        }
        return;
    }
    pthread_mutex_lock(&lock);
    if (c->id == id_alloc) {
        uint64_t *dptr = (uint64_t *)(uintptr_t)c->args[0];
        if (c->result != 0 || !dptr) {
            used -= c->args[1];   /* failed: give the reservation back */
        } else {
            for (int i = 0; i < MAXALLOC; i++)
                if (!live[i].ptr) {
                    live[i].ptr = *dptr, live[i].size = c->args[1];
                    break;
                }
        }
    } else if (c->id == id_free && c->result == 0) {
        for (int i = 0; i < MAXALLOC; i++)
            if (live[i].ptr == c->args[0]) {
                used -= live[i].size;
                live[i].ptr = 0;
                break;
            }
    }
    pthread_mutex_unlock(&lock);
}

int cutap_plugin_init(unsigned api_version);
int cutap_plugin_init(unsigned api_version)
{
    const char *s = getenv("CUTAP_MEMLIMIT_BYTES");
    if (api_version != CUTAP_API_VERSION || !s) {
        fprintf(stderr, "memlimit: set CUTAP_MEMLIMIT_BYTES\n");
        return 1;
    }
    limit = strtoull(s, NULL, 0);
    if ((me = cutap_register("memlimit", pre, post, NULL)) < 0)
        return 2;
    id_alloc = cutap_lookup("cuMemAlloc_v2");
    id_free = cutap_lookup("cuMemFree_v2");
    if (cutap_enable_name(me, "cuMemAlloc_v2", 1) || cutap_enable_name(me, "cuMemFree_v2", 1))
        return 3;
    return 0;
}
