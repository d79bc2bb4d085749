/* Where cutap reads CUPTI's activity records and callback data (issue
 * #31): byte offsets into the common prefix of each record family, the
 * same in every CUPTI from 11.8 (CUpti_ActivityKernel8, Memcpy5) to 13.0
 * (Kernel10, Memcpy6): later versions only append fields. record/gpu.c
 * and gpu_internal.h read through these (never a literal offset); the
 * test case gpu_cupti_layouts checks each against every CUPTI's own
 * headers it finds (tests/lib/cupti_layouts.py: a program built with them
 * prints each field's offsetof beside the macro). No other includes: that
 * program builds it alone. */
#ifndef CUTAP_CUPTI_OFFSETS_H
#define CUTAP_CUPTI_OFFSETS_H

#define CO_KIND 0   /* every record: its CUpti_ActivityKind */
/* kernels, copies, memsets: start and end (ns) */
#define CO_START 16
#define CO_END 24
/* kernels (CUpti_ActivityKernelN) */
#define CO_K_PLACE 40   /* deviceId; contextId + 4, streamId + 8 */
#define CO_K_GRID 52    /* gridX, Y, Z: int32 each */
#define CO_K_BLOCK 64   /* blockX, Y, Z */
#define CO_K_CORR 92    /* correlationId */
#define CO_K_NAME 104   /* name: const char * */
/* copies (CUpti_ActivityMemcpyN) and memsets (CUpti_ActivityMemsetN) */
#define CO_M_INFO 4     /* copies: copyKind, srcKind, dstKind, flags (a byte each); memsets: value (32 bits) */
#define CO_M_BYTES 8
#define CO_M_PLACE 32   /* deviceId; contextId + 4, streamId + 8 */
#define CO_M_CORR 44
#define CO_M_NODE 64    /* graphNodeId */
#define CO_M_GRAPH 72   /* graphId */
/* peer copies (CUpti_ActivityMemcpyPtoPN): bytes and place as copies */
#define CO_P_SRC 44     /* srcDeviceId */
#define CO_P_DST 52     /* dstDeviceId */
#define CO_P_CORR 60
#define CO_P_NODE 72
#define CO_P_GRAPH 80
/* external correlation (CUpti_ActivityExternalCorrelation) */
#define CO_X_KIND 4     /* externalKind */
#define CO_X_ID 8       /* externalId */
#define CO_X_CORR 16
/* API records (CUpti_ActivityAPI) */
#define CO_A_CBID 4
#define CO_A_START 8
#define CO_A_END 16
#define CO_A_THREAD 28
#define CO_A_CORR 32
/* a callback's data (CUpti_CallbackData) */
#define CO_CB_SITE 0
#define CO_CB_CORR 64

#endif
