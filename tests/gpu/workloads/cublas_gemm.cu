// cuBLAS workload: cublasSgemm and cublasGemmEx (FP16 inputs, FP32 compute)
// on a user stream. cuBLAS loads its own kernels through the driver (and
// cuBLASLt), which is a different path from cudart's fat-binary registration.
// Inputs are small integers, so every product and sum is exact in FP32 (and in
// TF32/FP16 tensor-core paths): checksums do not depend on which algorithm
// cuBLAS picks. Exit status is non-zero on any CUDA or cuBLAS error.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define CK(call)                                                          \
  do {                                                                    \
    cudaError_t e_ = (call);                                              \
    if (e_ != cudaSuccess) {                                              \
      printf("CUDA error %d (%s) at %s:%d: %s\n", (int)e_,                \
             cudaGetErrorString(e_), __FILE__, __LINE__, #call);          \
      exit(1);                                                            \
    }                                                                     \
  } while (0)
#define CB(call)                                                          \
  do {                                                                    \
    cublasStatus_t s_ = (call);                                           \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                    \
      printf("cuBLAS error %d (%s) at %s:%d: %s\n", (int)s_,              \
             cublasGetStatusName(s_), __FILE__, __LINE__, #call);         \
      exit(1);                                                            \
    }                                                                     \
  } while (0)

constexpr int M = 256, K = 384, NN = 192;  // C[MxNN] = A[MxK] * B[KxNN], column-major

static double checksum(const std::vector<float> &c) {
  double s = 0;
  for (size_t i = 0; i < c.size(); i++) s += c[i] * (double)(i % 11 + 1);
  return s;
}

int main() {
  std::vector<float> hA(M * K), hB(K * NN), hC(M * NN);
  // Asymmetric ranges so the checksum does not cancel to a small number.
  for (int i = 0; i < M * K; i++) hA[i] = (float)((i * 7) % 5 - 1);   // in [-1, 3]
  for (int i = 0; i < K * NN; i++) hB[i] = (float)((i * 3) % 7 - 2);  // in [-2, 4]
  std::vector<__half> hA16(M * K), hB16(K * NN);
  for (int i = 0; i < M * K; i++) hA16[i] = __float2half(hA[i]);
  for (int i = 0; i < K * NN; i++) hB16[i] = __float2half(hB[i]);

  float *dA, *dB, *dC;
  __half *dA16, *dB16;
  CK(cudaMalloc(&dA, hA.size() * sizeof(float)));
  CK(cudaMalloc(&dB, hB.size() * sizeof(float)));
  CK(cudaMalloc(&dC, hC.size() * sizeof(float)));
  CK(cudaMalloc(&dA16, hA16.size() * sizeof(__half)));
  CK(cudaMalloc(&dB16, hB16.size() * sizeof(__half)));
  CK(cudaMemcpy(dA, hA.data(), hA.size() * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dB, hB.data(), hB.size() * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dA16, hA16.data(), hA16.size() * sizeof(__half), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dB16, hB16.data(), hB16.size() * sizeof(__half), cudaMemcpyHostToDevice));

  cublasHandle_t h;
  cudaStream_t s;
  CB(cublasCreate(&h));
  CK(cudaStreamCreate(&s));
  CB(cublasSetStream(h, s));

  // FP32 SGEMM: C = 1*A*B + 0*C.
  const float one = 1.0f, zero = 0.0f, half_ = 0.5f;
  CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, M, NN, K, &one, dA, M, dB, K, &zero, dC, M));
  CK(cudaMemcpyAsync(hC.data(), dC, hC.size() * sizeof(float), cudaMemcpyDeviceToHost, s));
  CK(cudaStreamSynchronize(s));
  printf("sgemm: C[0]=%.4f C[last]=%.4f checksum=%.4f\n", hC[0], hC.back(), checksum(hC));
  const double ref = checksum(hC);
  // Exact CPU reference (integer data, so equality is the right test).
  bool match = true;
  for (int j = 0; j < NN; j++)
    for (int i = 0; i < M; i++) {
      float acc = 0.0f;
      for (int k = 0; k < K; k++) acc += hA[k * M + i] * hB[j * K + k];
      match = match && acc == hC[j * M + i];
    }
  printf("sgemm matches cpu: %s\n", match ? "yes" : "no");

  // GemmEx, FP16 in / FP32 out / FP32 compute: C = 1*A*B + 0.5*C, so C = 1.5*A*B.
  CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, M, NN, K, &one, dA16, CUDA_R_16F, M, dB16,
                  CUDA_R_16F, K, &half_, dC, CUDA_R_32F, M, CUBLAS_COMPUTE_32F,
                  CUBLAS_GEMM_DEFAULT));
  CK(cudaMemcpyAsync(hC.data(), dC, hC.size() * sizeof(float), cudaMemcpyDeviceToHost, s));
  CK(cudaStreamSynchronize(s));
  printf("gemmex: checksum=%.4f equals 1.5*sgemm: %s\n", checksum(hC),
         checksum(hC) == 1.5 * ref ? "yes" : "no");

  CB(cublasDestroy(h));
  CK(cudaStreamDestroy(s));
  CK(cudaFree(dA));
  CK(cudaFree(dB));
  CK(cudaFree(dC));
  CK(cudaFree(dA16));
  CK(cudaFree(dB16));
  if (!match) return 1;
  printf("OK\n");
  return 0;
}
