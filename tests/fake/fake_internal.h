/* The fake libcuda.so.1 used by the tests (no GPU needed). Every export of
 * the real driver exists (tests/fake/generated/fake_driver.c); each call is
 * counted and its argument words kept, so tests can check what really
 * reached the driver through cutap. fake_core.c gives a few entry points
 * real behaviour (cuGetProcAddress with the driver's version/flag rules,
 * cuGetExportTable with test tables, output parameters, NULL checks). */
#ifndef FAKE_INTERNAL_H
#define FAKE_INTERNAL_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "generated/cutap_ids.h"

#define FAKE_EXPORT __attribute__((visibility("default")))

/* Test signature of the exports no header declares (and of the fake's
 * cuFutureFunction): 8 integer arguments (two on the stack) and 2 doubles. */
#define FAKE_UNTYPED_PARAMS uint64_t u0, uint64_t u1, uint64_t u2, uint64_t u3, uint64_t u4, \
                            uint64_t u5, uint64_t u6, uint64_t u7, double d0, double d1
#define FAKE_UNTYPED_WORDS(a) uint64_t a[10] = {u0, u1, u2, u3, u4, u5, u6, u7, fake_d2w(d0), fake_d2w(d1)}

static inline uint64_t fake_f2w(float f) { uint64_t w = 0; memcpy(&w, &f, sizeof f); return w; }
static inline uint64_t fake_d2w(double d) { uint64_t w; memcpy(&w, &d, sizeof d); return w; }
/* Structs passed by value are recorded as a hash of their bytes. */
static inline uint64_t fake_struct_word(const void *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const unsigned char *)p)[i]) * 1099511628211ULL;
    return h;
}

struct fake_procaddr {
    const char *base;
    int version;
    int flavour;            /* 0 plain, 1 ptds, 2 ptsz */
    const char *export_name;
};
extern const struct fake_procaddr fake_procaddr_table[];
extern const unsigned fake_procaddr_count;
extern const char *const fake_names[CUTAP_DRIVER_COUNT];

uint64_t fake_call(uint32_t id, const uint64_t *a, unsigned n);
extern void *const fake_addresses[];
FAKE_EXPORT uint64_t cuFutureFunction(FAKE_UNTYPED_PARAMS);

/* Test interface of the fake (tests link it as -lcuda). */
#define FAKE_ID_FUTURE CUTAP_DRIVER_COUNT      /* cuFutureFunction */
#define FAKE_ID_SLOT_BASE (CUTAP_DRIVER_COUNT + 1)   /* export-table slots */
FAKE_EXPORT uint64_t fake_count(uint32_t id);
/* TOOLS_RUNTIME_CALLBACK_HOOKS (fake_tools.c) */
extern const uintptr_t fake_table_tools[7];
extern const uintptr_t fake_table_tools_tls[3];
FAKE_EXPORT uint64_t fake_count_name(const char *name);
FAKE_EXPORT unsigned fake_last(uint32_t *id, uint64_t *args);   /* this thread's last call */
FAKE_EXPORT void fake_set_result(uint32_t id, int result);
FAKE_EXPORT int fake_is_special(uint32_t id);
FAKE_EXPORT void *fake_real_address(const char *name);
FAKE_EXPORT const void *fake_export_table(const void *uuid16);   /* the fake's own table, or NULL */
FAKE_EXPORT int fake_last_stack_aligned(void);

/* The GPU the fake libcupti's activity API sees (fake_gpu.c,
 * fake_activity.h): CUPTI's callback id of each export (generated), the
 * start and end of a call (fake_gpu_enter: -1 when no libcupti listens,
 * else whether it tracks the call; fake_gpu_leave tells the work a
 * successful call put on the GPU, then the end), the graph functions'
 * handles (fake_gpu_behaviour: 1 when id is one of them, its result set). */
extern const uint16_t fake_cupti_cbids[CUTAP_DRIVER_COUNT];
int fake_gpu_enter(uint32_t id);
void fake_gpu_leave(uint32_t id, const uint64_t *a, unsigned n, uint64_t result, int tracked);
int fake_gpu_behaviour(uint32_t id, const uint64_t *a, uint64_t *result);
/* fake_core.c: a kernel's name by its handle (NULL: none handed out), and
 * whether p is device memory the fake handed out. */
const char *fake_func_name(uint64_t handle);
int fake_is_device_ptr(uint64_t p);
/* fake_maps.c: an mapping of len bytes at map (len a multiple of 4096, at
 * least 4 pages) unmapped the ways no libcuda 580 does but a program or a
 * later driver may: its last page, a page in the middle (the rest in two
 * pieces), the second piece moved by mremap and unmapped there, the first
 * piece at last, replaced by anonymous PROT_NONE memory (MAP_FIXED), as
 * libcuda 580 releases its mappings, then that unmapped (FAKE_NV_MAPS). */
void fake_unmap_pieces(void *map, size_t len);

#endif
