"""Layer 10, cuSOLVER (libcusolver.so.12): what cutap does with its functions beyond
what the headers say.

Data only (gen/specs/README.md; keys: gen/spec.py LAYER_KEYS and
FUNCTION_KEYS). `/usr/bin/python3 gen/spec.py show NAME` prints every rule
of a function. No function of this layer has rules of its own: the
generic capture rules apply (gen/gen_common.py capture_rule()), with
device_arrays below.
"""

LAYER = {
    "name": "cusolver",
    "number": 10,
    "parses": [(["cusolverDn.h", "cusolverSp.h", "cusolverRf.h", "cusolverSp_LOWLEVEL_PREVIEW.h"], [])],
    "exports": "libcusolver.so.12",
    "sonames": ["libcusolver.so.12", "libcusolver.so"],
    "versioned": True,
    "older": {"12": "libcusolver.so.11", "11": "libcusolver.so.11"},
    "prefixes": ["cusolver"],
    "unavailable": "CUSOLVER_STATUS_NOT_INITIALIZED",
    "status_types": ["cusolverStatus_t"],
    # non-const pointers to numbers and structs are mostly arrays in device
    # memory (float *C, int *devInfo): only strings and pointers to handles
    # or pointers are copied
    "device_arrays": True,
}
