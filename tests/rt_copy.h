/* A fake runtime copy's report of one of its API calls, made the way the
 * real runtime makes it (measured: tests/gpu/rt_hooks_probe.cu,
 * docs/HIDDEN_API.md). The copy asks the driver for
 * TOOLS_RUNTIME_CALLBACK_HOOKS once, and its slot #2 for the driver's
 * runtime-callback words; at every call it reads the call's word, and only
 * when it is set fills its record (some bytes left as the stack had them,
 * as real runtimes do), calls TOOLS_TLS#2 (as a CUDA 13 runtime
 * does before each report), then #4 (which fills the context uid) and
 * then #1 (from inside which CUPTI calls its subscribers). Under
 * cutap the table is cutap's copy: the words are cutap's own unless the
 * copy is the shared libcudart it records by symbol, and the reports reach
 * cutap's #1. Returns whether the report was made (the word was set). */
#ifndef CUTAP_TESTS_RT_COPY_H
#define CUTAP_TESTS_RT_COPY_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda_min.h"
#include "cupti_min.h"


typedef uint64_t (*rt_copy_slot)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
#define RT_COPY_DEPTH 128   /* calls nested deeper report nothing */

static int rt_copy_report(int site, uint32_t cbid, const char *name, const void *params, void *ret, uint64_t *corr)
{
    static const unsigned char uuid[16] = {0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74,
                                           0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66};
    static const unsigned char tls_uuid[16] = {0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47,
                                               0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc};
    static const uintptr_t *_Atomic table, *_Atomic tls;
    static const volatile uint32_t *_Atomic words;
    static _Atomic size_t nwords;
    /* One record per call, in the call's frame as the runtime keeps it: the
     * entry and the exit report with the same record (calls nest strictly
     * on a thread, so a stack of them per thread is that frame). */
    static __thread struct rt_copy_record recs[RT_COPY_DEPTH];
    static __thread unsigned depth;
    struct rt_copy_record *r = NULL;
    if (site == 0) {
        if (depth < RT_COPY_DEPTH)
            r = &recs[depth];
        depth++;
    } else {
        if (depth)
            depth--;
        if (depth < RT_COPY_DEPTH)
            r = &recs[depth];
    }
    const uintptr_t *t = atomic_load(&table);
    if (!t) {
        void *p = NULL;
        size_t n = 0;
        const uintptr_t *tt = NULL;
        if (cuGetExportTable((const void **)&t, uuid) != CUDA_SUCCESS || !t ||
            cuGetExportTable((const void **)&tt, tls_uuid) != CUDA_SUCCESS || !tt)
            return 0;
        atomic_store(&tls, tt);
        ((void (*)(void **, size_t *))t[2])(&p, &n);
        atomic_store(&nwords, n);
        atomic_store(&words, (const volatile uint32_t *)p);
        atomic_store(&table, t);
    }
    const volatile uint32_t *w = atomic_load(&words);
    if (!w || cbid >= atomic_load(&nwords) || !w[cbid] || !r)
        return 0;
    static int context_object;
    /* the 4 bytes after the 32-bit size are left as the stack had them
     * (CUDA 11.8's and 12.4's runtimes: often the top of a stack address),
     * and so is an entry's result field */
    *r = (struct rt_copy_record){.size = sizeof *r, .size_pad = 0x7ffc, .correlation = corr,
                                 .result = site == 1 ? ret : (void *)(uintptr_t)0x7ffc00000010ull,
                                 .name = name, .params = params, .context = &context_object,
                                 .cbid = cbid, .site = (uint32_t)site};
    ((rt_copy_slot)atomic_load(&tls)[2])((uint64_t)(uintptr_t)r, (uint64_t)site, 0, 0, 0, 0);
    ((rt_copy_slot)t[4])((uint64_t)(uintptr_t)r->context, (uint64_t)(uintptr_t)&r->context_uid, 0, 0,
                         site == 0 ? (uint64_t)(uintptr_t)name : 0, 0);
    ((rt_copy_slot)t[1])(cbid, (uint64_t)(uintptr_t)r, 0, 0, 0x64, 0);
    return 1;
}
/* cudaLaunchKernel's parameters as a runtime reports them
 * (cudaLaunchKernel_v7000_params of cupti_runtime_cbid.h's structs), with
 * the runtime's dim3 (passed by value). */
struct dim3 {
    unsigned x, y, z;
};
struct rt_launch_params {
    const void *func;
    struct dim3 gridDim, blockDim;
    void **args;
    size_t sharedMem;
    void *stream;   /* cudaStream_t */
};
#endif
