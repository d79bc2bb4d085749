/* The few CUPTI and runtime layouts the tests' fakes share, pinned to CUDA
 * 13.0 (no toolkit needed to build the tests):
 *   struct cupti_min_cbdata   CUpti_CallbackData (cupti_callbacks.h)
 *   struct rt_copy_record     the record a runtime copy fills for each
 *                             report and hands the driver's
 *                             TOOLS_RUNTIME_CALLBACK_HOOKS #4 and #1
 *                             (0x78 bytes, measured: docs/HIDDEN_API.md) */
#ifndef CUTAP_TESTS_CUPTI_MIN_H
#define CUTAP_TESTS_CUPTI_MIN_H
#include <stddef.h>
#include <stdint.h>

struct cupti_min_cbdata {
    int callbackSite;
    const char *functionName;
    const void *functionParams;
    void *functionReturnValue;
    const char *symbolName;
    void *context;
    uint32_t contextUid;
    uint64_t *correlationData;
    uint32_t correlationId;
};
_Static_assert(offsetof(struct cupti_min_cbdata, correlationData) == 56 && sizeof(struct cupti_min_cbdata) == 72,
               "CUpti_CallbackData layout of cupti_callbacks.h (CUDA 13.0)");

struct rt_copy_record {
    uint32_t size, size_pad;   /* size_pad: never written by the runtime (stack contents) */
    uint64_t context_uid, unknown10, unknown18;
    uint64_t *correlation;
    void *result;
    const char *name;
    const void *params;
    void *context;
    const char *symbol;
    uint32_t cbid, site;
    uint64_t tail[4];
};
_Static_assert(sizeof(struct rt_copy_record) == 0x78, "the runtime's record");
#endif
