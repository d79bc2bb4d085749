/* A fake runtime copy's report of one of its API calls to CUPTI, made the
 * way the real runtime makes it (docs/HIDDEN_API.md): through slot 1 of the
 * driver's TOOLS_RUNTIME_CALLBACK_HOOKS export table, which the fake driver
 * (tests/fake/fake_core.c) hands to the fake libcupti when a tool loaded
 * it. Under cutap the table is its wrapped copy, so the report arrives from
 * inside a framed slot call, as on a GPU. Returns whether a subscriber got
 * it. */
#ifndef CUTAP_TESTS_RT_COPY_H
#define CUTAP_TESTS_RT_COPY_H
#include <stdatomic.h>
#include <stdint.h>

#include "cuda_min.h"

typedef int (*rt_copy_hook_fn)(int site, uint32_t cbid, const char *name, const void *params, void *ret,
                               uint64_t *corr);

static int rt_copy_report(int site, uint32_t cbid, const char *name, const void *params, void *ret, uint64_t *corr)
{
    static const unsigned char uuid[16] = {0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74,
                                           0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66};
    static const uintptr_t *_Atomic table;
    const uintptr_t *t = atomic_load(&table);
    if (!t) {
        if (cuGetExportTable((const void **)&t, uuid) != CUDA_SUCCESS || !t)
            return 0;
        atomic_store(&table, t);
    }
    return ((rt_copy_hook_fn)t[1])(site, cbid, name, params, ret, corr);
}
#endif
