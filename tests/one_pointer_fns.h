/* Driver functions of one pointer argument that have a trace fast path,
 * harmless on the fake driver with a zeroed buffer (t_first_names,
 * t_sig_calls). */
#ifndef CUTAP_TESTS_ONE_POINTER_FNS_H
#define CUTAP_TESTS_ONE_POINTER_FNS_H
typedef int (*one_ptr_fn)(void *);
static const char *const one_ptr_names[] = {
    "cuArrayDestroy", "cuCtxDetach", "cuCtxDisablePeerAccess", "cuCtxGetCacheConfig", "cuCtxGetDevice",
    "cuCtxGetFlags", "cuCtxGetSharedMemConfig", "cuCtxPushCurrent", "cuCtxPushCurrent_v2", "cuCtxSetCurrent",
    "cuCtxSynchronize_v2", "cuDestroyExternalMemory", "cuDestroyExternalSemaphore", "cuEGLStreamConsumerDisconnect",
    "cuEGLStreamProducerDisconnect", "cuEventDestroy", "cuEventDestroy_v2", "cuEventQuery", "cuEventSynchronize",
    "cuFuncLoad", "cuGraphDestroy", "cuGraphDestroyNode", "cuGraphExecDestroy", "cuGraphicsUnregisterResource",
    "cuGreenCtxDestroy", "cuLaunch", "cuLibraryUnload", "cuLinkDestroy", "cuLogsUnregisterCallback",
    "cuMemFreeHost", "cuMemHostUnregister", "cuMemPoolDestroy", "cuMemcpy2D", "cuMemcpy2DUnaligned",
    "cuMemcpy2DUnaligned_v2", "cuMemcpy2D_v2", "cuMemcpy3D", "cuMemcpy3DPeer", "cuMemcpy3D_v2",
    "cuMipmappedArrayDestroy", "cuModuleGetLoadingMode", "cuModuleUnload", "cuStreamBeginCapture",
    "cuStreamDestroy", "cuStreamDestroy_v2", "cuStreamQuery", "cuStreamSynchronize", "cuTexRefCreate",
    "cuTexRefDestroy", "cuThreadExchangeStreamCaptureMode",
};
#define ONE_PTR_COUNT (sizeof one_ptr_names / sizeof one_ptr_names[0])
#endif
