// NCCL in one process: one communicator per visible GPU (ncclCommInitAll),
// a sum all-reduce of float buffers, checked exactly against the host.
// Prints the device count, whether every element is right and a checksum;
// exits non-zero on any CUDA or NCCL error.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include "nccl_min.h"

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("CUDA error %d (%s) at line %d: %s\n", (int)e_, cudaGetErrorString(e_), __LINE__, #call); exit(1); } } while (0)
#define NK(call) do { ncclResult_t r_ = (call); if (r_ != ncclSuccess) { \
  printf("NCCL error %d (%s) at line %d: %s\n", (int)r_, ncclGetErrorString(r_), __LINE__, #call); exit(1); } } while (0)

int main() {
  int ndev = 0;
  CK(cudaGetDeviceCount(&ndev));
  if (ndev < 1) { printf("no device\n"); return 1; }
  if (ndev > 8) ndev = 8;
  const size_t n = 1 << 20;
  std::vector<int> devs(ndev);
  std::vector<ncclComm_t> comms(ndev);
  std::vector<float *> buf(ndev);
  std::vector<cudaStream_t> st(ndev);
  std::vector<float> host(n);
  for (int d = 0; d < ndev; d++) devs[d] = d;
  NK(ncclCommInitAll(comms.data(), ndev, devs.data()));
  for (int d = 0; d < ndev; d++) {
    for (size_t i = 0; i < n; i++) host[i] = (float)((i % 1000) * (d + 1));
    CK(cudaSetDevice(d));
    CK(cudaStreamCreate(&st[d]));
    CK(cudaMalloc(&buf[d], n * sizeof(float)));
    CK(cudaMemcpy(buf[d], host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  }
  for (int round = 0; round < 3; round++) {
    NK(ncclGroupStart());
    for (int d = 0; d < ndev; d++) NK(ncclAllReduce(buf[d], buf[d], n, ncclFloat, ncclSum, comms[d], st[d]));
    NK(ncclGroupEnd());
  }
  for (int d = 0; d < ndev; d++) { CK(cudaSetDevice(d)); CK(cudaStreamSynchronize(st[d])); }
  // After 3 rounds each element is (i%1000) * S * ndev^2 with S = ndev(ndev+1)/2.
  double s = ndev * (ndev + 1) / 2.0, mul = s * ndev * ndev, checksum = 0;
  bool ok = true;
  for (int d = 0; d < ndev; d++) {
    CK(cudaSetDevice(d));
    CK(cudaMemcpy(host.data(), buf[d], n * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++) {
      if (host[i] != (float)((i % 1000) * mul)) ok = false;
      checksum += host[i];
    }
  }
  for (int d = 0; d < ndev; d++) { NK(ncclCommDestroy(comms[d])); CK(cudaFree(buf[d])); CK(cudaStreamDestroy(st[d])); }
  printf("ndev=%d allreduce correct: %s checksum=%.1f\n", ndev, ok ? "yes" : "no", checksum);
  printf(ok ? "OK\n" : "FAILED\n");
  return ok ? 0 : 1;
}
