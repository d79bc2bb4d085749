// Multi-threaded workload for the per-thread default stream: built with
// `--default-stream per-thread`, so stream 0 in each host thread is that
// thread's own stream and cudart calls the driver's *_ptsz / *_ptds entry
// points. Four threads launch kernels and async copies concurrently; results
// are printed from the main thread in thread order so output is deterministic.
// Exit status is non-zero on any CUDA error.
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <thread>
#include <vector>
#include <cuda_runtime.h>

constexpr int NTHREADS = 4;
constexpr int N = 1 << 18;
constexpr int ITERS = 8;

// Record the first error seen in a worker; main reports it after join so two
// threads never interleave their output.
#define CK(call)                                                              \
  do {                                                                        \
    cudaError_t e_ = (call);                                                  \
    if (e_ != cudaSuccess) {                                                  \
      snprintf(r.err, sizeof r.err, "CUDA error %d (%s) at line %d: %s",      \
               (int)e_, cudaGetErrorString(e_), __LINE__, #call);             \
      return;                                                                 \
    }                                                                         \
  } while (0)

struct Result {
  double checksum = 0;
  char err[256] = "";
};

// v[i] = v[i] * 2 + k (mod 1024 keeps values exact integers in float).
__global__ void step(float *v, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = fmodf(v[i] * 2.0f + (float)k, 1024.0f);
}

static void worker(int t, Result &r) {
  CK(cudaSetDevice(0));
  std::vector<float> h(N);
  for (int i = 0; i < N; i++) h[i] = (float)((i * (t + 3)) % 97);
  float *pin, *d;
  CK(cudaMallocHost(&pin, N * sizeof(float)));
  CK(cudaMalloc(&d, N * sizeof(float)));
  for (int it = 0; it < ITERS; it++) {
    for (int i = 0; i < N; i++) pin[i] = h[i];
    // Stream 0 == cudaStreamPerThread here; everything is ordered within it.
    CK(cudaMemcpyAsync(d, pin, N * sizeof(float), cudaMemcpyHostToDevice, 0));
    step<<<N / 256, 256>>>(d, N, t + it);
    CK(cudaGetLastError());
    step<<<N / 256, 256, 0, cudaStreamPerThread>>>(d, N, 1);
    CK(cudaGetLastError());
    CK(cudaMemcpyAsync(pin, d, N * sizeof(float), cudaMemcpyDeviceToHost, 0));
    CK(cudaStreamSynchronize(0));
    for (int i = 0; i < N; i++) h[i] = pin[i];
  }
  // Synchronous memcpy on the per-thread stream too (cudaMemcpy_ptds).
  CK(cudaMemcpy(h.data(), d, N * sizeof(float), cudaMemcpyDeviceToHost));
  double s = 0;
  for (int i = 0; i < N; i++) s += h[i] * (double)(i % 5 + 1);
  r.checksum = s;
  CK(cudaFree(d));
  CK(cudaFreeHost(pin));
}

int main() {
  std::vector<Result> res(NTHREADS);
  std::vector<std::thread> th;
  for (int t = 0; t < NTHREADS; t++) th.emplace_back(worker, t, std::ref(res[t]));
  for (auto &x : th) x.join();
  int rc = 0;
  for (int t = 0; t < NTHREADS; t++) {
    if (res[t].err[0]) {
      printf("thread %d: %s\n", t, res[t].err);
      rc = 1;
    } else {
      printf("thread %d checksum=%.4f\n", t, res[t].checksum);
    }
  }
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    printf("CUDA error %d (%s) at cudaDeviceSynchronize\n", (int)e, cudaGetErrorString(e));
    rc = 1;
  }
  if (rc == 0) printf("OK\n");
  return rc;
}
