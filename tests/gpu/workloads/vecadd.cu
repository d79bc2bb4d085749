// Runtime-API workload: allocations, copies, two kernels (vector add and a
// shared-memory block reduction), streams + events + async copies, the
// stream-ordered allocator (cudaMallocAsync / memory pool) and a CUDA graph.
// Built with static and with shared cudart so both loading paths get covered.
// Output is deterministic; exit status is non-zero on any CUDA error.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CK(call)                                                        \
  do {                                                                  \
    cudaError_t e_ = (call);                                            \
    if (e_ != cudaSuccess) {                                            \
      printf("CUDA error %d (%s) at %s:%d: %s\n", (int)e_,              \
             cudaGetErrorString(e_), __FILE__, __LINE__, #call);        \
      exit(1);                                                          \
    }                                                                   \
  } while (0)

constexpr int N = 1 << 20;
constexpr int BLOCK = 256;
constexpr int NBLK = N / BLOCK;

__global__ void vecadd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// One partial sum per block in a fixed tree order (no atomics), so the result
// is bitwise reproducible; the host adds the partials in a fixed order too.
__global__ void block_sum(const float *in, float *partial, int n) {
  __shared__ float sh[BLOCK];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sh[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = sh[0];
}

static double host_sum(const std::vector<float> &p) {
  double s = 0;
  for (float v : p) s += v;
  return s;
}

int main() {
  int count = 0, drv = 0;
  CK(cudaGetDeviceCount(&count));
  CK(cudaDriverGetVersion(&drv));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  // Only machine-independent facts: no name, clocks or memory sizes.
  printf("devices>=1: %s driver>=13000: %s major>=9: %s warp=%d\n", count >= 1 ? "yes" : "no",
         drv >= 13000 ? "yes" : "no", prop.major >= 9 ? "yes" : "no", prop.warpSize);
  CK(cudaSetDevice(0));

  // Inputs are small multiples of 1/4, so all sums below are exact.
  std::vector<float> ha(N), hb(N), hc(N), hp(NBLK);
  for (int i = 0; i < N; i++) { ha[i] = (i % 100) * 0.5f; hb[i] = (i % 37) * 0.25f; }
  size_t bytes = N * sizeof(float);

  // 1) Synchronous path: cudaMalloc + cudaMemcpy + launches on the legacy stream.
  float *da, *db, *dc, *dp;
  CK(cudaMalloc(&da, bytes));
  CK(cudaMalloc(&db, bytes));
  CK(cudaMalloc(&dc, bytes));
  CK(cudaMalloc(&dp, NBLK * sizeof(float)));
  CK(cudaMemcpy(da, ha.data(), bytes, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(db, hb.data(), bytes, cudaMemcpyHostToDevice));
  vecadd<<<NBLK, BLOCK>>>(da, db, dc, N);
  CK(cudaGetLastError());
  block_sum<<<NBLK, BLOCK>>>(dc, dp, N);
  CK(cudaGetLastError());
  CK(cudaMemcpy(hc.data(), dc, bytes, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hp.data(), dp, NBLK * sizeof(float), cudaMemcpyDeviceToHost));
  printf("sync: c[12345]=%.4f sum=%.4f\n", hc[12345], host_sum(hp));

  // 2) Two streams ordered by an event; pinned host memory for real async copies;
  //    scratch buffer from the stream-ordered allocator.
  cudaStream_t s1, s2;
  cudaEvent_t e0, e1, done;
  CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CK(cudaStreamCreate(&s2));
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  CK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  float *pin;
  CK(cudaMallocHost(&pin, bytes));
  for (int i = 0; i < N; i++) pin[i] = hb[i] * 2.0f;
  CK(cudaEventRecord(e0, s1));
  float *tmp;
  CK(cudaMallocAsync(&tmp, bytes, s1));
  CK(cudaMemcpyAsync(tmp, pin, bytes, cudaMemcpyHostToDevice, s1));
  vecadd<<<NBLK, BLOCK, 0, s1>>>(da, tmp, dc, N);
  CK(cudaGetLastError());
  CK(cudaFreeAsync(tmp, s1));
  CK(cudaEventRecord(done, s1));
  CK(cudaStreamWaitEvent(s2, done, 0));  // s2 consumes what s1 produced
  block_sum<<<NBLK, BLOCK, 0, s2>>>(dc, dp, N);
  CK(cudaGetLastError());
  CK(cudaMemcpyAsync(hp.data(), dp, NBLK * sizeof(float), cudaMemcpyDeviceToHost, s2));
  CK(cudaEventRecord(e1, s2));
  CK(cudaEventSynchronize(e1));
  float ms = -1.0f;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  printf("streams: sum=%.4f elapsed>=0: %s\n", host_sum(hp), ms >= 0.0f ? "yes" : "no");

  cudaMemPool_t pool;
  uint64_t thresh = 1;
  CK(cudaDeviceGetDefaultMemPool(&pool, 0));
  CK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thresh));
  printf("mempool release_threshold=%llu\n", (unsigned long long)thresh);

  // 3) Capture vecadd + block_sum into a graph and replay it three times,
  //    feeding c back as the input a (a <- a + b each replay).
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeThreadLocal));
  vecadd<<<NBLK, BLOCK, 0, s1>>>(da, db, dc, N);
  CK(cudaMemcpyAsync(da, dc, bytes, cudaMemcpyDeviceToDevice, s1));
  block_sum<<<NBLK, BLOCK, 0, s1>>>(dc, dp, N);
  CK(cudaStreamEndCapture(s1, &graph));
  CK(cudaGraphInstantiate(&exec, graph, 0));
  for (int r = 0; r < 3; r++) CK(cudaGraphLaunch(exec, s1));
  CK(cudaStreamSynchronize(s1));
  CK(cudaMemcpy(hp.data(), dp, NBLK * sizeof(float), cudaMemcpyDeviceToHost));
  printf("graph: sum=%.4f\n", host_sum(hp));

  CK(cudaGraphExecDestroy(exec));
  CK(cudaGraphDestroy(graph));
  CK(cudaFreeHost(pin));
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  CK(cudaEventDestroy(done));
  CK(cudaStreamDestroy(s1));
  CK(cudaStreamDestroy(s2));
  CK(cudaFree(da));
  CK(cudaFree(db));
  CK(cudaFree(dc));
  CK(cudaFree(dp));
  CK(cudaDeviceSynchronize());
  printf("OK\n");
  return 0;
}
