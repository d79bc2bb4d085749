"""Layer 0, the CUDA driver API (libcuda.so.1): what cutap does with each
driver function that the headers alone do not say.

Data only (gen/specs/README.md): NAME = <literal> statements, read by
gen/spec.py with ast.literal_eval; nothing here is executed. Every key is
described in gen/spec.py (LAYER_KEYS, FUNCTION_KEYS).
`/usr/bin/python3 gen/spec.py show NAME` prints every rule of a function.

Generic rules (every function gets them unless FUNCTIONS says otherwise),
in gen/gen_common.py capture_rule(): a `const char *` is a string copied
before the call; `char *` a string buffer and `const char **` a string
output copied after a successful call; a `const T *` to a struct of at
most 64 bytes is copied before the call; a non-const pointer to a number,
handle, pointer or struct of at most 64 bytes is an output, copied after a
successful call. Functions with no declaration in the parsed headers go
through the generic trampoline (untyped).
"""

LAYER = {
    "name": "driver",
    "number": 0,
    # gen/cuda_api.h includes the driver headers; parsed as a client sees
    # them, with __CUDA_API_VERSION_INTERNAL (cuda.h then declares the
    # legacy, _v2.. and _ptds/_ptsz variants under their exported names)
    # and with the per-thread default stream. The export list of the real
    # driver is pinned in gen/known_good.json ("driver_exports").
    "parses": [(["cuda_api.h"], []),
               (["cuda_api.h"], ["-D__CUDA_API_VERSION_INTERNAL"]),
               (["cuda_api.h"], ["-DCUDA_API_PER_THREAD_DEFAULT_STREAM"])],
    "prefixes": ["cu"],
    # debugger rendezvous points libcuda exports: no API, not wrapped
    "not_api_prefixes": ["cudbg"],
    "status_types": ["CUresult"],
    "status_enum": "cudaError_enum",
    # driver pointers to numbers and structs are host memory (outputs such
    # as CUdeviceptr *dptr, size_t *free): copied after a successful call
    "device_arrays": False,
    "handled_in": [
        ("src/resolve/driver.c", "cu?unknown",
         "a driver entry point the tables do not know (newer driver) gets a dynamic id and the generic "
         "trampoline"),
        ("src/resolve/dl.c", "if (name[0] != 'c' || name[1] != 'u')",
         "dlsym of any other \"cu\" name on the driver's own handle is diverted too (entry points newer than "
         "the tables)"),
        ("cli/dump/decode.c", "is_kernel_type",
         "arguments of type CUfunction, CUkernel, cudaFunction_t and cudaKernel_t (any layer) are printed "
         "with the kernel's name, when the trace holds it"),
    ],
}

FUNCTIONS = {
    # --- how calls reach cutap ---------------------------------------------
    "cuGetProcAddress": {
        "handled_in": [("src/resolve/getprocaddress.c", "cutap_fixup[CUTAP_ID_cuGetProcAddress] = fix;",
                        "after a successful call, the pointer the driver returned is replaced by cutap's wrapper "
                        "of that exported variant (asking for cuGetProcAddress itself returns cutap's)")],
    },
    "cuGetProcAddress_v2": {
        "handled_in": [("src/resolve/getprocaddress.c", "cutap_fixup[CUTAP_ID_cuGetProcAddress_v2] = fix;",
                        "as cuGetProcAddress")],
    },
    "cuGetExportTable": {
        "note": "the tables and which are wrapped: gen/specs/hidden.py",
        "handled_in": [
            ("src/resolve/exporttable.c", "cutap_fixup[CUTAP_ID_cuGetExportTable] = fix;",
             "after a successful call, a table the policy wraps is replaced by a copy whose function slots are "
             "generic trampolines (layer hidden, \"<TABLE>#<slot>\")"),
            ("src/core/log.c", "call->id == CUTAP_ID_cuGetExportTable",
             "CUTAP_LOG lines add the UUID and the table's name"),
            ("cli/dump/decode.c", "!strcmp(a->type, \"const CUuuid *\")",
             "dump prints the table's name after a captured CUuuid (any function with a const CUuuid * argument)"),
        ],
    },
    "cuInit": {
        "handled_in": [
            ("src/resolve/driver.c", "cutap_libc_dlsym(h, \"cuInit\")",
             "the first object met through a lookup that defines cuInit is the driver"),
            ("src/resolve/dl.c", "cutap_libc_dlsym(handle, \"cuInit\")",
             "a dlsym on a handle that defines cuInit adopts that object as the driver"),
            ("src/resolve/cupti_rt.c", "cutap_fixup[CUTAP_ID_cuInit] = after_cuinit;",
             "--runtime=cupti: CUPTI's runtime callbacks are subscribed after the first successful cuInit"),
        ],
    },
    # --- kernel names: the recorder names the kernel a launch runs (once per
    # handle, through cuFuncGetName, else cuKernelGetName) -----------------
    "cuFuncGetName": {
        "handled_in": [("src/record/meta.c", "cutap_driver_real(CUTAP_ID_cuFuncGetName)",
                        "called (the real function, unrecorded) to name the kernel of a launch")],
    },
    "cuKernelGetName": {
        "handled_in": [("src/record/meta.c", "cutap_driver_real(CUTAP_ID_cuKernelGetName)",
                        "called when cuFuncGetName cannot name the handle (a CUkernel)")],
    },
    "cuLaunch": {"kernel": "f"},
    "cuLaunchGrid": {"kernel": "f"},
    "cuLaunchGridAsync": {"kernel": "f"},
    # kernelParams and extra: arrays the callee reads (void **), not outputs
    "cuLaunchKernel": {"kernel": "f", "args": {"kernelParams": "in", "extra": "in"}},
    "cuLaunchKernel_ptsz": {"kernel": "f", "args": {"kernelParams": "in", "extra": "in"}},
    "cuLaunchKernelEx": {"kernel": "f", "args": {"kernelParams": "in", "extra": "in"}},
    "cuLaunchKernelEx_ptsz": {"kernel": "f", "args": {"kernelParams": "in", "extra": "in"}},
    "cuLaunchCooperativeKernel": {"kernel": "f", "args": {"kernelParams": "in"}},
    "cuLaunchCooperativeKernel_ptsz": {"kernel": "f", "args": {"kernelParams": "in"}},
    "cuLaunchCooperativeKernelMultiDevice": {"args": {"launchParamsList": "in"}},

    # --- non-const pointers the callee only reads (input arrays and structs
    # the headers declare without const): the generic rule would copy them
    # as outputs after the call. A struct among them is copied before. -----
    "cuCheckpointProcessCheckpoint": {"args": {"args": "in"}},
    "cuCheckpointProcessLock": {"args": {"args": "in"}},
    "cuCheckpointProcessRestore": {"args": {"args": "in"}},
    "cuCheckpointProcessUnlock": {"args": {"args": "in"}},
    "cuCtxCreate_v3": {"args": {"paramsArray": "in"}},
    "cuCtxCreate_v4": {"args": {"ctxCreateParams": "in"}},
    "cuGraphicsMapResources": {"args": {"resources": "in"}},
    "cuGraphicsMapResources_ptsz": {"args": {"resources": "in"}},
    "cuGraphicsUnmapResources": {"args": {"resources": "in"}},
    "cuGraphicsUnmapResources_ptsz": {"args": {"resources": "in"}},
    "cuLibraryLoadData": {"args": {"jitOptions": "in", "jitOptionsValues": "in",
                                   "libraryOptions": "in", "libraryOptionValues": "in"}},
    "cuLibraryLoadFromFile": {"args": {"jitOptions": "in", "jitOptionsValues": "in",
                                       "libraryOptions": "in", "libraryOptionValues": "in"}},
    "cuLinkAddData": {"args": {"options": "in", "optionValues": "in"}},
    "cuLinkAddData_v2": {"args": {"options": "in", "optionValues": "in"}},
    "cuLinkAddFile": {"args": {"options": "in", "optionValues": "in"}},
    "cuLinkAddFile_v2": {"args": {"options": "in", "optionValues": "in"}},
    "cuLinkCreate": {"args": {"options": "in", "optionValues": "in"}},
    "cuLinkCreate_v2": {"args": {"options": "in", "optionValues": "in"}},
    "cuModuleLoadDataEx": {"args": {"options": "in", "optionValues": "in"}},
    "cuMemBatchDecompressAsync": {"args": {"paramsArray": "in"}},
    "cuMemBatchDecompressAsync_ptsz": {"args": {"paramsArray": "in"}},
    "cuMemDiscardAndPrefetchBatchAsync": {"args": {"sizes": "in", "prefetchLocs": "in"}},
    "cuMemDiscardAndPrefetchBatchAsync_ptsz": {"args": {"sizes": "in", "prefetchLocs": "in"}},
    "cuMemDiscardBatchAsync": {"args": {"sizes": "in"}},
    "cuMemDiscardBatchAsync_ptsz": {"args": {"sizes": "in"}},
    "cuMemPrefetchBatchAsync": {"args": {"sizes": "in", "prefetchLocs": "in"}},
    "cuMemPrefetchBatchAsync_ptsz": {"args": {"sizes": "in", "prefetchLocs": "in"}},
    "cuMemcpyBatchAsync": {"args": {"dsts": "in", "srcs": "in", "sizes": "in", "attrs": "in", "attrsIdxs": "in"}},
    "cuMemcpyBatchAsync_ptsz": {"args": {"dsts": "in", "srcs": "in", "sizes": "in", "attrs": "in",
                                         "attrsIdxs": "in"}},
    "cuMemcpyBatchAsync_v2": {"args": {"dsts": "in", "srcs": "in", "sizes": "in", "attrs": "in",
                                       "attrsIdxs": "in"}},
    "cuMemcpyBatchAsync_v2_ptsz": {"args": {"dsts": "in", "srcs": "in", "sizes": "in", "attrs": "in",
                                            "attrsIdxs": "in"}},
    "cuMemGetDefaultMemPool": {"args": {"location": "in"}},
    "cuMemGetMemPool": {"args": {"location": "in"}},
    "cuMemPoolGetAccess": {"args": {"location": "in"}},
    "cuMemSetMemPool": {"args": {"location": "in"}},
    "cuMemRangeGetAttributes": {"args": {"attributes": "in"}},
    "cuPointerGetAttributes": {"args": {"attributes": "in"}},
    "cuStreamBatchMemOp": {"args": {"paramArray": "in"}},
    "cuStreamBatchMemOp_ptsz": {"args": {"paramArray": "in"}},
    "cuStreamBatchMemOp_v2": {"args": {"paramArray": "in"}},
    "cuStreamBatchMemOp_v2_ptsz": {"args": {"paramArray": "in"}},
    "cuStreamUpdateCaptureDependencies": {"args": {"dependencies": "in"}},
    "cuStreamUpdateCaptureDependencies_ptsz": {"args": {"dependencies": "in"}},
    "cuStreamUpdateCaptureDependencies_v2": {"args": {"dependencies": "in"}},
    "cuStreamUpdateCaptureDependencies_v2_ptsz": {"args": {"dependencies": "in"}},
    "cuTexRefSetBorderColor": {"args": {"pBorderColor": "in"}},
    # output arrays: their first element alone would mislead, so nothing
    # is copied (the caller's count is in another argument)
    "cuGraphNodeGetDependencies": {"args": {"dependencies": "none"}},
    "cuGraphNodeGetDependencies_v2": {"args": {"dependencies": "none"}},
    "cuTexRefGetBorderColor": {"args": {"pBorderColor": "none"}},

    # --- the cuGetProcAddress version table: derived from cudaTypedefs.h and
    # the export list (gen/cuda_model.py _version_table); where that rule is
    # wrong, corrected here, each checked against a real driver by
    # tests/gpu/procaddr_check.c -------------------------------------------
    "cuEventCreateFromEGLSync": {
        "procaddr": [{"version": 9000, "export": None,
                      "why": "declared in cudaEGL.h (CUDA 13.0) but not exported by driver 580.159.04: "
                             "cuGetProcAddress answers SYMBOL_NOT_FOUND (tests/gpu/procaddr_check, H100, "
                             "2026-11-21)"}],
    },
}
