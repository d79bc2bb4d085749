/* Pure CUDA driver-API workload (no cudart): module loading from embedded
 * PTX (the driver JIT-compiles it), launches, copies, streams, events and
 * stream-ordered allocation from the default memory pool.
 * "driverapi procaddr" instead resolves entry points via cuGetProcAddress
 * and calls them through the returned pointers, the path cudart itself uses.
 * Output is deterministic; exit status is non-zero on any CUDA error. */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(call) check((call), __LINE__, #call)
static void check(CUresult r, int line, const char *what) {
  const char *name = NULL;
  if (r == CUDA_SUCCESS) return;
  cuGetErrorName(r, &name);
  printf("CUDA error %d (%s) at line %d: %s\n", (int)r, name ? name : "?", line, what);
  exit(1);
}

/* y[i] = a*x[i] + b*y[i]; from `nvcc -ptx -arch=sm_90`, ISA lowered to 8.0
 * (it uses nothing newer) so older drivers can JIT it too. */
static const char *kPtx =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry axpby(.param .u64 p0, .param .u64 p1, .param .f32 p2,\n"
    "    .param .f32 p3, .param .u32 p4)\n{\n"
    "  .reg .pred %p<2>; .reg .f32 %f<7>; .reg .b32 %r<6>; .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [p0]; ld.param.u64 %rd2, [p1];\n"
    "  ld.param.f32 %f1, [p2]; ld.param.f32 %f2, [p3]; ld.param.u32 %r2, [p4];\n"
    "  mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x; mov.u32 %r5, %tid.x;\n"
    "  mad.lo.s32 %r1, %r3, %r4, %r5;\n"
    "  setp.ge.s32 %p1, %r1, %r2;\n"
    "  @%p1 bra DONE;\n"
    "  cvta.to.global.u64 %rd3, %rd1; cvta.to.global.u64 %rd4, %rd2;\n"
    "  mul.wide.s32 %rd5, %r1, 4;\n"
    "  add.s64 %rd6, %rd4, %rd5; ld.global.f32 %f3, [%rd6];\n"
    "  add.s64 %rd7, %rd3, %rd5; ld.global.f32 %f4, [%rd7];\n"
    "  mul.f32 %f5, %f4, %f2; fma.rn.f32 %f6, %f3, %f1, %f5;\n"
    "  st.global.f32 [%rd7], %f6;\n"
    "DONE:\n  ret;\n}\n";

enum { N = 1 << 16 };

/* Values are multiples of 1/4 below 2^10, so every result is exact and the
 * checksum does not depend on rounding. */
static double checksum(const float *v, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += v[i] * (double)((i % 7) + 1);
  return s;
}

static int run_procaddr(CUdevice dev) {
  typedef CUresult (*alloc_fn)(CUdeviceptr *, size_t);
  typedef CUresult (*htod_fn)(CUdeviceptr, const void *, size_t);
  typedef CUresult (*free_fn)(CUdeviceptr);
  typedef CUresult (*getctx_fn)(CUcontext *);
  const char *names[4] = {"cuMemAlloc", "cuMemcpyHtoD", "cuMemFree", "cuCtxGetCurrent"};
  void *fns[4];
  for (int i = 0; i < 4; i++) {
    CUdriverProcAddressQueryResult st;
    fns[i] = NULL;
    CK(cuGetProcAddress_v2(names[i], &fns[i], 13000, CU_GET_PROC_ADDRESS_DEFAULT, &st));
    printf("procaddr %s: status=%d found=%s\n", names[i], (int)st, fns[i] ? "yes" : "no");
    if (!fns[i]) return 1;
  }
  /* Use the primary context here to exercise a second context path. */
  CUcontext primary, cur = NULL;
  CK(cuDevicePrimaryCtxRetain(&primary, dev));
  CK(cuCtxSetCurrent(primary));
  CK(((getctx_fn)fns[3])(&cur));
  printf("procaddr ctx current is primary: %s\n", cur == primary ? "yes" : "no");
  float *h = (float *)malloc(N * sizeof(float)), *back = (float *)malloc(N * sizeof(float));
  for (int i = 0; i < N; i++) h[i] = (float)(i % 1000) * 0.25f;
  CUdeviceptr d;
  CK(((alloc_fn)fns[0])(&d, N * sizeof(float)));
  CK(((htod_fn)fns[1])(d, h, N * sizeof(float)));
  CK(cuMemcpyDtoH(back, d, N * sizeof(float)));
  printf("procaddr roundtrip equal: %s checksum=%.4f\n",
         memcmp(h, back, N * sizeof(float)) == 0 ? "yes" : "no", checksum(back, N));
  CK(((free_fn)fns[2])(d));
  CK(cuCtxSetCurrent(NULL));
  CK(cuDevicePrimaryCtxRelease(dev));
  free(h);
  free(back);
  printf("OK\n");
  return 0;
}

int main(int argc, char **argv) {
  CUdevice dev;
  int count = 0, major = 0;
  CK(cuInit(0));
  CK(cuDeviceGetCount(&count));
  CK(cuDeviceGet(&dev, 0));
  CK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
  printf("devices>=1: %s, cc major>=9: %s\n", count >= 1 ? "yes" : "no", major >= 9 ? "yes" : "no");
  if (argc > 1 && strcmp(argv[1], "procaddr") == 0) return run_procaddr(dev);

  /* CUDA 13 signature: cuCtxCreate(ctx, CUctxCreateParams*, flags, dev). */
  CUcontext ctx;
  CK(cuCtxCreate(&ctx, NULL, 0, dev));
  CUmodule mod;
  CUfunction fn;
  CK(cuModuleLoadData(&mod, kPtx));
  CK(cuModuleGetFunction(&fn, mod, "axpby"));

  size_t bytes = N * sizeof(float);
  float *hx = (float *)malloc(bytes), *hy = (float *)malloc(bytes);
  for (int i = 0; i < N; i++) { hx[i] = (float)(i % 100); hy[i] = (float)(i % 13) * 0.5f; }
  CUdeviceptr dx, dy;
  CK(cuMemAlloc(&dx, bytes));
  CK(cuMemAlloc(&dy, bytes));
  CK(cuMemcpyHtoD(dx, hx, bytes));
  CK(cuMemcpyHtoD(dy, hy, bytes));

  /* Synchronous launch on the NULL stream: y = 2*x + 0.5*y. */
  float a = 2.0f, b = 0.5f;
  int n = N;
  void *params[] = {&dy, &dx, &a, &b, &n};
  CK(cuLaunchKernel(fn, N / 256, 1, 1, 256, 1, 1, 0, NULL, params, NULL));
  CK(cuCtxSynchronize());
  CK(cuMemcpyDtoH(hy, dy, bytes));
  printf("launch1 checksum=%.4f\n", checksum(hy, N));

  /* Stream + events + stream-ordered allocation from the default pool. */
  CUstream s;
  CUevent e0, e1;
  CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  CK(cuEventCreate(&e0, CU_EVENT_DEFAULT));
  CK(cuEventCreate(&e1, CU_EVENT_DEFAULT));
  CUdeviceptr dz;
  CK(cuEventRecord(e0, s));
  CK(cuMemAllocAsync(&dz, bytes, s));
  CK(cuMemcpyHtoDAsync(dz, hx, bytes, s));
  float a2 = 1.0f, b2 = 3.0f;
  void *params2[] = {&dz, &dy, &a2, &b2, &n}; /* z = y + 3*x */
  CK(cuLaunchKernel(fn, N / 128, 1, 1, 128, 1, 1, 0, s, params2, NULL));
  CK(cuMemcpyDtoHAsync(hy, dz, bytes, s));
  CK(cuEventRecord(e1, s));

  CUmemoryPool pool;
  cuuint64_t thresh = 1, used = 0;
  CK(cuDeviceGetDefaultMemPool(&pool, dev));
  CK(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &thresh));
  CK(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used));
  CK(cuMemFreeAsync(dz, s));
  CK(cuEventSynchronize(e1));
  float ms = -1.0f;
  CK(cuEventElapsedTime(&ms, e0, e1));
  CK(cuStreamSynchronize(s));
  /* Print only properties of the values, never the values themselves. */
  printf("pool release_threshold=%llu used>=alloc: %s\n", (unsigned long long)thresh,
         used >= bytes ? "yes" : "no");
  printf("event elapsed>=0: %s\n", ms >= 0.0f ? "yes" : "no");
  printf("stream checksum=%.4f\n", checksum(hy, N));

  CK(cuEventDestroy(e0));
  CK(cuEventDestroy(e1));
  CK(cuStreamDestroy(s));
  CK(cuMemFree(dx));
  CK(cuMemFree(dy));
  CK(cuModuleUnload(mod));
  CK(cuCtxDestroy(ctx));
  free(hx);
  free(hy);
  printf("OK\n");
  return 0;
}
