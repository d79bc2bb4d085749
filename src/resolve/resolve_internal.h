/* What src/resolve (how calls reach cutap: the driver's exports, dlsym,
 * cuGetProcAddress, export tables, the runtime and library layers, CUPTI's
 * runtime callbacks, NVTX, the ioctl layer) offers the layers beside and
 * above it (src/record, the generated wrappers) and its own files. What
 * the core calls here is declared in core_internal.h ("what the core calls
 * in src/resolve"). */
#ifndef CUTAP_RESOLVE_INTERNAL_H
#define CUTAP_RESOLVE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core_internal.h"

/* --- resolve/driver.c ------------------------------------------------------- */

/* The real driver function of an id (resolved first), NULL if none. */
void *cutap_driver_real(uint32_t id);
/* Adopts the object that holds addr as the driver, if none is yet. */
void cutap_driver_adopt_from(void *addr);
int cutap_driver_is_handle(const void *handle);
int cutap_addr_is_code(const void *p);
/* Maps a pointer the driver handed out to what the caller should get:
 * our wrapper of that export, a trampoline for an export we do not know, or
 * the pointer itself when it is no driver function. */
void *cutap_wrap_pointer(void *p, const char *name_hint);
/* A trampoline stub for ctx (cutap_tramp_make_stub), NULL when no
 * executable memory can be had: then said once, and the caller hands out
 * the function itself (its calls are made, not recorded). */
void *cutap_stub_or_warn(struct cutap_tramp_ctx *ctx);
/* Map of real function addresses (driver exports, layer functions,
 * dynamic ids) to ids. */
void cutap_addr_map_put(void *p, uint32_t id);
uint32_t cutap_addr_map_get(const void *p);

/* --- resolve/libs.c: the runtime and library layers ------------------------ */

/* A layer with no library to find (NVTX): its real functions are cutap's
 * own, reals[i] for id first + i; the layer becomes ready. */
void cutap_lib_install(int layer, void *const *reals);
/* addr came out of a dlsym of the layer function id: adopt its object as
 * that layer's library if none is yet and the object is one. */
void cutap_lib_adopt_from(uint32_t id, void *addr);
/* What a layer is bound to: its soname (NULL before it is adopted) and
 * whether the generated signatures apply (1) or its calls are untyped (0). */
const char *cutap_lib_bound(int layer, int *vouched);
/* Generated for libs.c: the contexts and 16-byte stubs of the typed layer
 * ids routed through the trampoline (another major), and each typed layer
 * id's resolver stub, its first cutap_hot entry (lib_untyped.S,
 * lib_resolve.S). */
extern struct cutap_tramp_ctx cutap_route_ctx[];
extern const unsigned char cutap_route_stubs[];
extern void *const cutap_hot_initial[];

/* --- resolve/dl.c, getprocaddress.c, exporttable.c -------------------------- */

unsigned long long cutap_dl_adds(void);   /* objects loaded so far */
void cutap_getprocaddress_init(void);
void cutap_exporttable_init(void);
/* cuGetProcAddress table (src/generated/driver_table.c): base name,
 * version, flavour -> exported variant. */
enum { CUTAP_FLAVOUR_PLAIN = 0, CUTAP_FLAVOUR_PTDS = 1, CUTAP_FLAVOUR_PTSZ = 2 };
struct cutap_procaddr {
    const char *base;
    int version;
    uint8_t flavour;
    uint16_t id;
};
extern const struct cutap_procaddr cutap_procaddr_table[];
extern const unsigned cutap_procaddr_count;

/* --- resolve/integrity.c: the two tables the runtime verifies --------------- */

int cutap_integrity_table(const void *uuid16);   /* CUDART_INTERFACE or INTEGRITY_CHECK */
int cutap_integrity_copies_ok(void);             /* decided once per process (may call the driver) */
void cutap_integrity_given(const void *uuid16, const void *table, void *slot1);
void *cutap_integrity_slot1_fn(void);            /* what INTEGRITY_CHECK's copied slot 1 runs */

/* --- resolve/rt_calls.c and cupti_rt.c ---------------------------------------- */

/* Which runtime callback ids carry the parameters of the pinned headers
 * (bit c of cutap_rt_cbid_current: id c; src/generated/cupti_rt_cbid.c). */
extern const uint32_t cutap_rt_cbid_count;
extern const uint8_t cutap_rt_cbid_current[];
/* A slot of TOOLS_RUNTIME_CALLBACK_HOOKS was wrapped (exporttable.c):
 * under --runtime=cupti, #1 and #4 are not recorded, #1 keeps its frame. */
void cutap_cupti_hook_slot(uint32_t id, unsigned slot);
/* A runtime copy's report of one of its calls (site 0 entry, 1 exit),
 * recorded as CUPTI's would be; origin: an address in the copy; key: the
 * runtime's record of the call (the same at its entry and its exit). */
void cutap_rt_report(int site, uint32_t cbid, const char *name, const void *params, const void *ret, void *origin,
                     const void *key);
/* Whether origin lies in the shared libcudart our symbol wrappers record. */
int cutap_rt_origin_is_shared(const void *origin);
/* A CUPTI subscriber's report of the same (site 0 entry, 1 exit): corr is
 * the call's correlation word, origin the copy's code (NULL: not known). */
void cutap_rt_cupti_report(int site, uint32_t cbid, const char *name, const void *params, const void *ret,
                           uint64_t *corr, void *origin);

/* --- resolve/rt_hooks.c ------------------------------------------------------ */

/* The runtime's record, as CUDA 13.0's runtimes fill it (0x78 bytes; the
 * fields cutap reads are the ones checked against what CUPTI handed its
 * subscriber for the same call). */
struct rt_record {
    uint32_t size;              /* 0x00: 0x78 */
    uint32_t size_pad;          /* 0x04: not written (CUDA 11.8 and 12.4 runtimes leave stack contents:
                                 * read as part of a 64-bit size, their reports were judged malformed) */
    uint64_t context_uid;       /* 0x08: filled by #4 */
    uint64_t unknown10, unknown18;
    uint64_t *correlation;      /* 0x20: CUPTI's correlationData */
    void *result;               /* 0x28: cudaError_t *, valid at the exit */
    const char *name;           /* 0x30: "cudaGetDeviceCount" */
    const void *params;         /* 0x38: <name>_v<ver>_params */
    void *context;              /* 0x40 */
    const char *symbol;         /* 0x48 */
    uint32_t cbid;              /* 0x50 */
    uint32_t site;              /* 0x54: 0 entry, 1 exit */
};
_Static_assert(offsetof(struct rt_record, params) == 0x38 && offsetof(struct rt_record, site) == 0x54,
               "the runtime's record as measured (docs/HIDDEN_API.md)");
/* A report of the default mode (resolve/rt_hooks.c) from a site whose
 * form is known, that no CUPTI client in the process asked for: recorded
 * as cutap_rt_report records it, straight through where the recorder is
 * the call's only client (resolve/rt_calls.c). Returns 0 (#1's result). */
uint64_t cutap_rt_hook_enter(const struct rt_record *r, void *origin);
uint64_t cutap_rt_hook_exit(const struct rt_record *r);

/* The default: the runtime copies' own reports, without CUPTI. */
extern int cutap_rt_hooks;
/* What the copy of TOOLS_RUNTIME_CALLBACK_HOOKS holds in slot 1, 2 or 4
 * under it (real: the driver's function); NULL for any other slot. */
void *cutap_rt_hooks_slot(unsigned slot, void *real);

#endif
