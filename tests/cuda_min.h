/* The few driver declarations the tests use, with exported names and ABI
 * types, so the tests build without the CUDA toolkit. */
#ifndef CUDA_MIN_H
#define CUDA_MIN_H
#include <stddef.h>
#include <stdint.h>
typedef int CUresult;
typedef uint64_t CUdeviceptr;
typedef void *CUcontext;
CUresult cuInit(unsigned int flags);
CUresult cuDriverGetVersion(int *v);
CUresult cuDeviceGetCount(int *n);
CUresult cuDeviceGetUuid(void *uuid16, int dev);
CUresult cuDeviceGetAttribute(int *v, int attr, int dev);
CUresult cuCtxGetCurrent(CUcontext *ctx);
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n);
CUresult cuMemFree_v2(CUdeviceptr p);
CUresult cuGetErrorName(CUresult e, const char **s);
CUresult cuProfilerStart(void);
CUresult cuGetProcAddress_v2(const char *sym, void **pfn, int version, uint64_t flags, int *status);
CUresult cuGetProcAddress(const char *sym, void **pfn, int version, uint64_t flags);
CUresult cuGetExportTable(const void **table, const void *uuid);
#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_OUT_OF_MEMORY 2
#define CUDA_ERROR_NOT_FOUND 500
#define CU_GET_PROC_ADDRESS_DEFAULT 0
#define CU_GET_PROC_ADDRESS_LEGACY_STREAM 1
#define CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM 2
#endif
