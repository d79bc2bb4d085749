/* A program of an older major's runtime that calls the functions whose
 * signature changed between that major and 13.0 (issue #28): stream
 * capture with cudaStreamGetCaptureInfo (11.8: 3 arguments; 12.4's header
 * makes it cudaStreamGetCaptureInfo_v2, 6), cudaGraphInstantiate (11.8: 5
 * arguments, 12.4: 3), cudaMemAdvise and cudaMemPrefetchAsync (an int
 * device; 13.0 passes a cudaMemLocation by value), cudaGetDeviceProperties
 * (12.4's header makes it cudaGetDeviceProperties_v2, which 13.0 no longer
 * exports), and unchanged ones. Built by tests/gpu/workloads/build_rtold.sh
 * against CUDA 11.8's and 12.4's headers, each with its shared libcudart
 * and statically; run by tests/gpu/older_typed.sh. Prints the runtime's
 * version, the device's name, the graph's node count and a checksum, then
 * OK; NOGPU without a GPU. */
#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>

#define CK(x)                                                                \
    do {                                                                     \
        cudaError_t e_ = (x);                                                \
        if (e_ != cudaSuccess) {                                             \
            printf("%s: %s\n", #x, cudaGetErrorString(e_));                  \
            return 1;                                                        \
        }                                                                    \
    } while (0)

int main(void)
{
    int n = 0, v = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) {
        printf("NOGPU\n");
        return 0;
    }
    CK(cudaRuntimeGetVersion(&v));
    struct cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    CK(cudaSetDevice(0));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    unsigned char *d;
    CK(cudaMalloc((void **)&d, 1 << 20));
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CK(cudaMemsetAsync(d, 7, 1 << 20, s));
    enum cudaStreamCaptureStatus st;
    unsigned long long id = 0;
#if CUDART_VERSION >= 12000
    CK(cudaStreamGetCaptureInfo(s, &st, &id, NULL, NULL, NULL));
#else
    CK(cudaStreamGetCaptureInfo(s, &st, &id));
#endif
    cudaGraph_t g;
    CK(cudaStreamEndCapture(s, &g));
    cudaGraphExec_t ge;
#if CUDART_VERSION >= 12000
    CK(cudaGraphInstantiate(&ge, g, 0));
#else
    char log[256];
    cudaGraphNode_t bad = NULL;
    CK(cudaGraphInstantiate(&ge, g, &bad, log, sizeof log));
#endif
    CK(cudaGraphLaunch(ge, s));
    CK(cudaStreamSynchronize(s));
    size_t nodes = 0;
    CK(cudaGraphGetNodes(g, NULL, &nodes));
    unsigned char *m;
    CK(cudaMallocManaged((void **)&m, 1 << 20, cudaMemAttachGlobal));
    CK(cudaMemAdvise(m, 1 << 20, cudaMemAdviseSetPreferredLocation, 0));
    CK(cudaMemcpyAsync(m, d, 1 << 20, cudaMemcpyDeviceToDevice, s));
    CK(cudaMemPrefetchAsync(m, 1 << 20, cudaCpuDeviceId, s));
    CK(cudaStreamSynchronize(s));
    unsigned long sum = 0;
    for (int i = 0; i < 1 << 20; i += 4096)
        sum += m[i];
    CK(cudaGraphExecDestroy(ge));
    CK(cudaGraphDestroy(g));
    CK(cudaFree(m));
    CK(cudaFree(d));
    CK(cudaStreamDestroy(s));
    printf("runtime %d device %s capture %d nodes %zu sum %lu OK\n", v, prop.name, (int)st, nodes, sum);
    return 0;
}
