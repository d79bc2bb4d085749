// The runtime's cudaGetDriverEntryPointByVersion hands out driver entry
// points; cutap sees those through cuGetProcAddress. This program calls
// cuDeviceGetPCIBusId exactly 3 times through such a pointer (the runtime
// itself never calls it here), so tests/gpu/run.sh can check that cutap
// recorded exactly 3 calls. Output: deterministic lines, then OK.
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>

typedef CUresult (*busid_fn)(char *, int, CUdevice);

int main()
{
    void *fn = nullptr;
    cudaDriverEntryPointQueryResult q;
    cudaError_t e = cudaGetDriverEntryPointByVersion("cuDeviceGetPCIBusId", &fn, 12000, cudaEnableDefault, &q);
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !fn) {
        printf("cudaGetDriverEntryPointByVersion failed: %s (%d)\n", cudaGetErrorString(e), (int)q);
        return 1;
    }
    char a[64] = {0}, b[64] = {0};
    int ok = 1;
    for (int i = 0; i < 3; i++) {
        char *dst = i ? b : a;
        ok &= ((busid_fn)fn)(dst, (int)sizeof a, 0) == CUDA_SUCCESS;
    }
    void *missing = (void *)1;
    e = cudaGetDriverEntryPointByVersion("cuNoSuchFunction", &missing, 12000, cudaEnableDefault, &q);
    printf("busid calls ok: %s, stable: %s\n", ok ? "yes" : "no", ok && a[0] && !__builtin_strcmp(a, b) ? "yes" : "no");
    printf("unknown symbol: null=%s status=%d\n", missing ? "no" : "yes", (int)q);
    printf("OK\n");
    return ok ? 0 : 1;
}
