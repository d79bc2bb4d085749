"""Layer 2, the CUDA runtime API (libcudart.so.13): what cutap does with
each runtime function that the headers alone do not say.

Data only (gen/specs/README.md; keys: gen/spec.py LAYER_KEYS and
FUNCTION_KEYS). `/usr/bin/python3 gen/spec.py show NAME` prints every rule
of a function. The generic capture rules are those of gen/specs/driver.py
(gen/gen_common.py capture_rule()).
"""

LAYER = {
    "name": "runtime",
    "number": 2,
    # runtime_private.h: cuda_runtime_api.h plus the C signatures of the
    # entry points nvcc's generated code calls (__cudaRegisterFatBinary,
    # __cudaLaunchKernel, ...), declared only in C++ headers
    "parses": [(["runtime_private.h", "cuda_gl_interop.h", "cuda_egl_interop.h",
                 "vdpau/vdpau.h", "cuda_vdpau_interop.h", "cuda_profiler_api.h"], []),
               (["runtime_private.h"], ["-DCUDA_API_PER_THREAD_DEFAULT_STREAM"])],
    "exports": "libcudart.so.13",
    "sonames": ["libcudart.so.13", "libcudart.so"],
    "versioned": True,
    "older": {"12": "libcudart.so.12", "11": "libcudart.so.11.0"},
    "prefixes": ["cuda", "__cuda"],
    "unavailable": "cudaErrorSharedObjectInitFailed",
    "status_types": ["cudaError_t"],
    # the runtime's non-const number/struct pointers are host outputs
    # (cudaGetDevice(int *), cudaMemGetInfo(size_t *, size_t *))
    "device_arrays": False,
    "handled_in": [
        ("src/resolve/rt_calls.c", "CUTAP_LAYER_RUNTIME",
         "calls of every runtime copy, from its own reports (the default) or CUPTI's runtime callbacks (--runtime=cupti) "
         "(src/generated/cupti_rt_cbid.c says which callback ids carry the pinned signature)"),
        ("src/resolve/rt_calls.c", "strstr(t, \"cudaMemLocation\")",
         "CUPTI's parameter structs: cudaMemLocation and the IPC handles passed by value have another "
         "alignment than their size suggests"),
        ("cli/cmd_report.c", "no runtime (cudart) call was recorded",
         "report notes processes with driver calls and no runtime calls (driver only, or a static cudart under --runtime=symbols)"),
    ],
}

FUNCTIONS = {
    # args: arrays the callee reads (void **), not outputs
    "cudaLaunchKernel": {"args": {"args": "in"}},
    "cudaLaunchKernel_ptsz": {"args": {"args": "in"}},
    "cudaLaunchKernelExC": {"args": {"args": "in"}},
    "cudaLaunchKernelExC_ptsz": {"args": {"args": "in"}},
    "cudaLaunchCooperativeKernel": {"args": {"args": "in"}},
    "cudaLaunchCooperativeKernel_ptsz": {"args": {"args": "in"}},
    "__cudaLaunchKernel": {"args": {"args": "in"}},
    "__cudaLaunchKernel_ptsz": {"args": {"args": "in"}},

    # non-const pointers the callee only reads (input arrays and structs
    # declared without const): the generic rule would copy them as outputs
    "cudaGraphicsMapResources": {"args": {"resources": "in"}},
    "cudaGraphicsUnmapResources": {"args": {"resources": "in"}},
    "cudaLibraryLoadData": {"args": {"jitOptions": "in", "jitOptionsValues": "in",
                                     "libraryOptions": "in", "libraryOptionValues": "in"}},
    "cudaLibraryLoadFromFile": {"args": {"jitOptions": "in", "jitOptionsValues": "in",
                                         "libraryOptions": "in", "libraryOptionValues": "in"}},
    "cudaMemDiscardAndPrefetchBatchAsync": {"args": {"sizes": "in", "prefetchLocs": "in"}},
    "cudaMemDiscardAndPrefetchBatchAsync_ptsz": {"args": {"sizes": "in", "prefetchLocs": "in"}},
    "cudaMemDiscardBatchAsync": {"args": {"sizes": "in"}},
    "cudaMemDiscardBatchAsync_ptsz": {"args": {"sizes": "in"}},
    "cudaMemPrefetchBatchAsync": {"args": {"sizes": "in", "prefetchLocs": "in"}},
    "cudaMemPrefetchBatchAsync_ptsz": {"args": {"sizes": "in", "prefetchLocs": "in"}},
    "cudaMemcpyBatchAsync": {"args": {"attrs": "in", "attrsIdxs": "in"}},
    "cudaMemcpyBatchAsync_ptsz": {"args": {"attrs": "in", "attrsIdxs": "in"}},
    "cudaMemGetDefaultMemPool": {"args": {"location": "in"}},
    "cudaMemGetMemPool": {"args": {"location": "in"}},
    "cudaMemPoolGetAccess": {"args": {"location": "in"}},
    "cudaMemSetMemPool": {"args": {"location": "in"}},
    "cudaMemRangeGetAttributes": {"args": {"attributes": "in"}},
    "cudaStreamUpdateCaptureDependencies": {"args": {"dependencies": "in"}},
    "cudaStreamUpdateCaptureDependencies_ptsz": {"args": {"dependencies": "in"}},
}
