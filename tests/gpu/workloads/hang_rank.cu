// One "rank" of a job that hangs (issue #16, cutap ps on the GPU with one
// GPU: ranks simulated by processes). Each process makes its own
// one-rank NCCL communicator (ncclCommInitAll on device 0) and issues
// ISSUE sum all-reduces on it; then
//   spin:  launches a kernel that waits on a flag in mapped host memory
//          that nothing ever sets (a collective whose peer never
//          arrives) and calls cudaDeviceSynchronize: the process hangs
//          inside it, on the GPU;
//   sleep: synchronizes and sleeps 600 s outside any CUDA call (a rank
//          stuck in its own code, never reaching the next collective).
// Prints "issued N" once the all-reduces are issued.
//   hang_rank ISSUE spin|sleep
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <cuda_runtime.h>
#include "nccl_min.h"

__global__ void wait_flag(volatile int *flag)
{
  while (!*flag) {
  }
}

int main(int argc, char **argv)
{
  int issue = argc > 1 ? atoi(argv[1]) : 3;
  int spin = argc > 2 && !strcmp(argv[2], "spin");
  ncclComm_t comm;
  int dev = 0;
  float *buf;
  cudaStream_t st;
  if (ncclCommInitAll(&comm, 1, &dev) != ncclSuccess || cudaStreamCreate(&st) != cudaSuccess ||
      cudaMalloc(&buf, 1 << 20) != cudaSuccess) {
    printf("setup failed\n");
    return 1;
  }
  for (int i = 0; i < issue; i++)
    if (ncclAllReduce(buf, buf, 1 << 18, ncclFloat, ncclSum, comm, st) != ncclSuccess) {
      printf("all-reduce failed\n");
      return 1;
    }
  printf("issued %d\n", issue);
  fflush(stdout);
  if (spin) {
    int *flag, *dflag;
    if (cudaHostAlloc(&flag, sizeof *flag, cudaHostAllocMapped) != cudaSuccess ||
        cudaHostGetDevicePointer(&dflag, flag, 0) != cudaSuccess)
      return 1;
    *flag = 0;
    wait_flag<<<1, 1, 0, st>>>(dflag);
    cudaDeviceSynchronize();   // never returns: nothing sets the flag
    return 1;
  }
  cudaStreamSynchronize(st);
  sleep(600);
  return 0;
}
