"""Layer 14, NVML (libnvidia-ml.so.1): what cutap does with its functions
beyond what the header says.

Data only (gen/specs/README.md; keys: gen/spec.py LAYER_KEYS and
FUNCTION_KEYS). `/usr/bin/python3 gen/spec.py show NAME` prints every rule
of a function. The generic capture rules are those of gen/specs/driver.py
(gen/gen_common.py capture_rule()).
"""

LAYER = {
    "name": "nvml",
    "number": 14,
    # NVML comes with the driver; the toolkit here has no nvml.h, so the
    # layer is generated from gen/snapshots/nvml.json (gen/lib_model.py
    # --snapshot nvml DIR), the declarations libclang parsed from the
    # nvml.h of the CUDA 13.0 toolkit on the GPU machine, with the export
    # list of libnvidia-ml.so.1 of driver 580.159.04.
    "parses": [(["nvml.h"], [])],
    "snapshot": "nvml",
    "exports": "libnvidia-ml.so.1",
    "sonames": ["libnvidia-ml.so.1", "libnvidia-ml.so"],
    # libnvidia-ml.so.1 of driver 580.159.04 versions none of its exports
    # (gen/exports/ lists its names bare): neither does the tests' fake
    "versioned": False,
    "prefixes": ["nvml"],
    "unavailable": "NVML_ERROR_LIBRARY_NOT_FOUND",
    "status_types": ["nvmlReturn_t"],
    # NVML's pointers are host memory: outputs are copied after the call
    "device_arrays": False,
}

FUNCTIONS = {
    # Kept as the former parameter-name rule made it (an input copied before
    # the call). nvml.h documents attributes as an output: "out" would copy
    # the 40 bytes after a successful call instead. Not changed here: it
    # changes what is recorded, to be done on its own.
    "nvmlDeviceGetAttributes_v2": {"args": {"attributes": "in"}},
}
