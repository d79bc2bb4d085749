"""Layer 3, cuBLAS (libcublas.so.13): what cutap does with its functions beyond
what the headers say.

Data only (gen/specs/README.md; keys: gen/spec.py LAYER_KEYS and
FUNCTION_KEYS). `/usr/bin/python3 gen/spec.py show NAME` prints every rule
of a function. No function of this layer has rules of its own: the
generic capture rules apply (gen/gen_common.py capture_rule()), with
device_arrays below.
"""

LAYER = {
    "name": "cublas",
    "number": 3,
    "parses": [(["cublas.h"], []),
               (["cublasXt.h"], [])],
    "exports": "libcublas.so.13",
    "sonames": ["libcublas.so.13", "libcublas.so"],
    "versioned": True,
    "older": {"12": "libcublas.so.12", "11": "libcublas.so.11"},
    "prefixes": ["cublas"],
    "exclude_prefixes": ["cublasLt"],
    "unavailable": "CUBLAS_STATUS_NOT_INITIALIZED",
    "status_types": ["cublasStatus_t"],
    # non-const pointers to numbers and structs are mostly arrays in device
    # memory (float *C, int *devInfo): only strings and pointers to handles
    # or pointers are copied
    "device_arrays": True,
}
