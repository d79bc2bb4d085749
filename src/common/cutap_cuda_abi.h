/* Small pieces of CUDA's ABI that more than one part of cutap needs, each
 * naming the header of CUDA 13.0 it comes from (the build needs no CUDA
 * toolkit). */
#ifndef CUTAP_CUDA_ABI_H
#define CUTAP_CUDA_ABI_H
#include <stddef.h>
#include <stdint.h>

/* --- nvtx3/nvToolsExt.h ---------------------------------------------------- */
#define CUTAP_NVTX_VERSION 3                 /* NVTX_VERSION */
enum { CUTAP_NVTX_MESSAGE_TYPE_ASCII = 1, CUTAP_NVTX_MESSAGE_TYPE_REGISTERED = 3 };   /* nvtxMessageType_t */
struct cutap_nvtx_attr {                     /* nvtxEventAttributes_t (v2), 48 bytes */
    uint16_t version;
    uint16_t size;
    uint32_t category;
    int32_t colorType;
    uint32_t color;
    int32_t payloadType;
    int32_t reserved0;
    uint64_t payload;
    int32_t messageType;
    const void *message;                     /* nvtxMessageValue_t: ascii, unicode or registered */
};
_Static_assert(sizeof(struct cutap_nvtx_attr) == 48, "nvtxEventAttributes_t is 48 bytes");
_Static_assert(offsetof(struct cutap_nvtx_attr, messageType) == 32, "nvtxEventAttributes_t.messageType");

/* --- cuda.h / driver_types.h ------------------------------------------------- */
/* The statuses after which a CUDA context is unusable (every later call
 * fails with them): illegal address (700), launch timeout (702), assert
 * (710), hardware stack error (714), illegal instruction (715), misaligned
 * address (716), invalid address space (717), invalid pc (718), launch
 * failed (719). CUresult and cudaError_t give them the same numbers. */
static inline int cutap_status_is_sticky(uint64_t r)
{
    return r == 700 || r == 702 || r == 710 || (r >= 714 && r <= 719);
}
#endif
