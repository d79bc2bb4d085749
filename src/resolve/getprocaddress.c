/* cuGetProcAddress and cuGetProcAddress_v2 (the CUDA runtime, static or
 * shared, resolves every driver entry point through them; so does
 * cudaGetDriverEntryPoint[ByVersion]). We call the real one with the
 * caller's arguments unchanged, then map the pointer it returned to our
 * wrapper of exactly that exported variant (the driver chose the variant
 * from name, version and per-thread flag; we do not second-guess it).
 * Asking for cuGetProcAddress itself thus returns ours. NULL results,
 * symbolStatus and errors pass through untouched. */
#include "resolve_internal.h"

static void fix(cutap_call_t *call)
{
    const char *symbol = (const char *)(uintptr_t)call->args[0];
    void **pfn = (void **)(uintptr_t)call->args[1];
    /* Only look at *pfn when the driver succeeded: it wrote it then, and a
     * NULL or bad pfn was already rejected by the driver itself. */
    if (call->result != CUTAP_CUDA_SUCCESS || !pfn || !*pfn)
        return;
    *pfn = cutap_wrap_pointer(*pfn, symbol);
}

void cutap_getprocaddress_init(void)
{
    cutap_fixup[CUTAP_ID_cuGetProcAddress] = fix;
    cutap_fixup[CUTAP_ID_cuGetProcAddress_v2] = fix;
}
