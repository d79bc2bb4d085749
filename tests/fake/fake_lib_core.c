/* Core of each fake runtime/library: see fake_lib_internal.h. Like the
 * fake driver's (fake_core.c), with its own id space: the ids of the
 * library's layer. */
#include <stdatomic.h>
#include <string.h>

#include "fake_lib_internal.h"

static _Atomic uint64_t counts[CUTAP_STATIC_COUNT];
static _Atomic int forced_on[CUTAP_STATIC_COUNT];
static _Atomic uint64_t forced[CUTAP_STATIC_COUNT];
static fake_lib_special_fn special[CUTAP_STATIC_COUNT];
static __thread struct {
    uint32_t id;
    unsigned n;
    uint64_t a[FAKE_LIB_MAX_WORDS];
    int aligned;
} last;

static int mine(uint32_t id) { return id >= fake_lib_first && id < fake_lib_first + fake_lib_n; }

uint64_t fake_lib_call(uint32_t id, const uint64_t *a, unsigned n)
{
    atomic_fetch_add(&counts[id], 1);
    last.id = id;
    last.n = n;
    memcpy(last.a, a, n * sizeof *a);
    /* A callee runs with (rsp + 8) % 16 == 0 at entry; the frame address
     * (rbp after the prologue) is then 16-aligned. */
    last.aligned = ((uintptr_t)__builtin_frame_address(0) & 15) == 0;
    if (atomic_load(&forced_on[id]))
        return atomic_load(&forced[id]);
    if (special[id])
        return special[id](a);
    return 0;
}

static uint64_t count(uint32_t id) { return id < CUTAP_STATIC_COUNT ? atomic_load(&counts[id]) : 0; }

static unsigned last_call(uint32_t *id, uint64_t *args)
{
    *id = last.id;
    memcpy(args, last.a, last.n * sizeof *args);
    return last.n;
}

static void set_result(uint32_t id, int on, uint64_t result)
{
    if (!mine(id))
        return;
    atomic_store(&forced[id], result);
    atomic_store(&forced_on[id], on);
}

static void *real_address(const char *name)
{
    for (uint32_t i = 0; i < fake_lib_n; i++)
        if (!strcmp(fake_lib_names[i], name))
            return fake_lib_addresses[i];
    return NULL;
}

static int last_stack_aligned(void) { return last.aligned; }

const struct fake_lib_api *fake_lib_api(void)
{
    static struct fake_lib_api api = {.count = count, .last = last_call, .set_result = set_result,
                                      .real_address = real_address, .last_stack_aligned = last_stack_aligned};
    api.layer = fake_lib_layer;
    api.first = fake_lib_first;
    api.n = fake_lib_n;
    return &api;
}

__attribute__((constructor)) static void setup(void)
{
    for (unsigned i = 0; i < fake_lib_nspecials; i++)
        if (mine(fake_lib_specials[i].id))
            special[fake_lib_specials[i].id] = fake_lib_specials[i].fn;
}
