/* Entry points libcudart.so.13 exports for code nvcc generates, declared
 * in C++-only headers (crt/host_runtime.h, crt/device_functions.h). Their
 * C signatures, for the generator only; the parameter lists follow those
 * headers. __cudaGetProcAddress, __cudaRegisterHostVar and
 * __cudaRegisterUnifiedTable are declared nowhere: they stay untyped. */
#include <cuda_runtime_api.h>

extern void **__cudaRegisterFatBinary(void *fatCubin);
extern void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
extern void __cudaUnregisterFatBinary(void **fatCubinHandle);
extern void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant, int global);
extern void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress, char *deviceAddress,
                                     const char *deviceName, int ext, size_t size, int constant, int global);
extern char __cudaInitModule(void **fatCubinHandle);
extern void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                                   const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
                                   dim3 *bDim, dim3 *gDim, int *wSize);
extern unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                            struct CUstream_st *stream);
extern cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem, void *stream);
#if CUDART_VERSION >= 12000   /* cudaKernel_t: 12.0 on (gen/major_snapshot.py parses 11.8 too) */
extern cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun);
extern cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                                      size_t sharedMem, cudaStream_t stream);
extern cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                                           size_t sharedMem, cudaStream_t stream);
#endif
