// The NCCL declarations the GPU workloads use: <nccl.h> when the toolkit
// has it; PyTorch's NCCL wheel ships the library without its header, so
// otherwise the few declarations used (NCCL 2.x ABI: ncclSum = 0,
// ncclFloat = 7).
#ifndef CUTAP_GPU_NCCL_MIN_H
#define CUTAP_GPU_NCCL_MIN_H
#include <cuda_runtime.h>
#if __has_include(<nccl.h>)
#include <nccl.h>
#else
extern "C" {
typedef struct ncclComm *ncclComm_t;
typedef int ncclResult_t;
enum { ncclSuccess = 0 };
typedef enum { ncclSum = 0 } ncclRedOp_t;
typedef enum { ncclFloat = 7 } ncclDataType_t;
ncclResult_t ncclCommInitAll(ncclComm_t *comm, int ndev, const int *devlist);
ncclResult_t ncclCommDestroy(ncclComm_t comm);
ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                           ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclGroupStart(void);
ncclResult_t ncclGroupEnd(void);
const char *ncclGetErrorString(ncclResult_t result);
}
#endif
#endif
