"""The runtime and library layers cutap wraps above the driver.

One entry per layer, in layer-number order (driver = 0 and hidden = 1 come
before them; nvtx, which has no library of its own, comes last). For each:
  parses      what the generator parses (from the pinned CUDA include dir):
              (headers, -D options) pairs, each one translation unit
  exports     the pinned export list of the real library (gen/exports/);
              None: no library, the declared functions, not exported
  sonames     the loaded object cutap takes the real functions from
  prefixes    exported names that belong to the layer's API
  unavailable the status returned when no such library can be found
  alias       an undeclared export N is typed like the declared alias.format(N)
  device_arrays  (default True) non-const pointers to numbers/structs may be
              device memory: the recorder copies only strings and handles
  older       sonames of the library in older CUDA majors (CUDA major ->
              soname; the library's own soname where it changed with
              them): only for the tests' fakes of those majors
              (gen/old_major_generator.py). cutap itself vouches for the
              generated signatures only with sonames[0]; libnccl.so.2,
              libcurand.so.10 and libnvidia-ml.so.1 kept their sonames
"""

LAYERS = [
    dict(name="runtime", parses=[(["runtime_private.h", "cuda_gl_interop.h", "cuda_egl_interop.h",
                                    "vdpau/vdpau.h", "cuda_vdpau_interop.h", "cuda_profiler_api.h"], []),
                                  (["runtime_private.h"], ["-DCUDA_API_PER_THREAD_DEFAULT_STREAM"])],
         exports="libcudart.so.13", sonames=["libcudart.so.13", "libcudart.so"],
         older={"12": "libcudart.so.12", "11": "libcudart.so.11.0"},
         prefixes=["cuda", "__cuda"], unavailable="cudaErrorSharedObjectInitFailed",
         # the runtime's non-const number/struct pointers are host outputs
         # (cudaGetDevice(int *), cudaMemGetInfo(size_t *, size_t *))
         device_arrays=False),
    dict(name="cublas", parses=[(["cublas.h"], []), (["cublasXt.h"], [])],
         exports="libcublas.so.13", sonames=["libcublas.so.13", "libcublas.so"],
         older={"12": "libcublas.so.12", "11": "libcublas.so.11"},
         prefixes=["cublas"], exclude_prefixes=["cublasLt"], unavailable="CUBLAS_STATUS_NOT_INITIALIZED"),
    dict(name="cublasLt", parses=[(["cublasLt.h"], [])],
         exports="libcublasLt.so.13", sonames=["libcublasLt.so.13", "libcublasLt.so"],
         older={"12": "libcublasLt.so.12", "11": "libcublasLt.so.11"},
         prefixes=["cublasLt"], unavailable="CUBLAS_STATUS_NOT_INITIALIZED"),
    dict(name="cudnn", parses=[(["cudnn.h"], [])],
         exports="libcudnn.so.9", sonames=["libcudnn.so.9", "libcudnn.so"],
         older={"12": "libcudnn.so.8", "11": "libcudnn.so.8"},
         prefixes=["cudnn"], unavailable="CUDNN_STATUS_NOT_INITIALIZED"),
    dict(name="nccl", parses=[(["nccl.h"], [])],
         exports="libnccl.so.2", sonames=["libnccl.so.2", "libnccl.so"],
         prefixes=["nccl"], unavailable="ncclSystemError"),
    dict(name="cufft", parses=[(["cufft.h", "cufftXt.h"], [])],
         exports="libcufft.so.12", sonames=["libcufft.so.12", "libcufft.so"],
         older={"12": "libcufft.so.11", "11": "libcufft.so.10"},
         prefixes=["cufft"], unavailable="CUFFT_SETUP_FAILED"),
    dict(name="curand", parses=[(["curand.h"], [])],
         exports="libcurand.so.10", sonames=["libcurand.so.10", "libcurand.so"],
         prefixes=["curand"], unavailable="CURAND_STATUS_INITIALIZATION_FAILED"),
    dict(name="cusparse", parses=[(["cusparse.h"], [])],
         exports="libcusparse.so.12", sonames=["libcusparse.so.12", "libcusparse.so"],
         older={"11": "libcusparse.so.11"},
         prefixes=["cusparse"], unavailable="CUSPARSE_STATUS_NOT_INITIALIZED"),
    dict(name="cusolver", parses=[(["cusolverDn.h", "cusolverSp.h", "cusolverRf.h",
                                    "cusolverSp_LOWLEVEL_PREVIEW.h"], [])],
         exports="libcusolver.so.12", sonames=["libcusolver.so.12", "libcusolver.so"],
         older={"12": "libcusolver.so.11", "11": "libcusolver.so.11"},
         prefixes=["cusolver"], unavailable="CUSOLVER_STATUS_NOT_INITIALIZED"),
    dict(name="nvrtc", parses=[(["nvrtc.h"], [])],
         exports="libnvrtc.so.13", sonames=["libnvrtc.so.13", "libnvrtc.so"],
         older={"12": "libnvrtc.so.12", "11": "libnvrtc.so.11.2"},
         prefixes=["nvrtc"], unavailable="NVRTC_ERROR_INTERNAL_ERROR"),
    dict(name="nvJitLink", parses=[(["nvJitLink.h"], [])],
         exports="libnvJitLink.so.13", sonames=["libnvJitLink.so.13", "libnvJitLink.so"],
         older={"12": "libnvJitLink.so.12"},
         prefixes=["nvJitLink", "__nvJitLink"], unavailable="NVJITLINK_ERROR_INTERNAL",
         # The header declares __nvJitLinkCreate_13_0 and a static inline
         # nvJitLinkCreate calling it; the library exports both names.
         alias="__{}_13_0"),
    # NVTX has no library to wrap: cutap becomes the NVTX injection library
    # (NVTX_INJECTION64_PATH) and the functions it hands to NVTX run these
    # wrappers (src/resolve/nvtx.c). Nothing is exported.
    dict(name="nvtx", parses=[(["nvtx3/nvToolsExt.h"], [])], exports=None, sonames=[],
         prefixes=["nvtx"], unavailable=None, device_arrays=False),
    # NVML comes with the driver; the toolkit here has no nvml.h, so the
    # layer is generated from gen/snapshots/nvml.json (see lib_model.py),
    # taken from the nvml.h of the CUDA 13.0 toolkit on the GPU machine,
    # with the export list of libnvidia-ml.so.1 of driver 580.159.04.
    dict(name="nvml", parses=[(["nvml.h"], [])], snapshot="nvml", exports="libnvidia-ml.so.1",
         sonames=["libnvidia-ml.so.1", "libnvidia-ml.so"], prefixes=["nvml"],
         unavailable="NVML_ERROR_LIBRARY_NOT_FOUND", device_arrays=False),
]
FIRST_LAYER = 2          # 0 driver, 1 hidden
