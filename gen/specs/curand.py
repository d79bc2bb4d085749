"""Layer 8, cuRAND (libcurand.so.10): what cutap does with its functions beyond
what the headers say.

Data only (gen/specs/README.md; keys: gen/spec.py LAYER_KEYS and
FUNCTION_KEYS). `/usr/bin/python3 gen/spec.py show NAME` prints every rule
of a function. No function of this layer has rules of its own: the
generic capture rules apply (gen/gen_common.py capture_rule()), with
device_arrays below.
"""

LAYER = {
    "name": "curand",
    "number": 8,
    "parses": [(["curand.h"], [])],
    "exports": "libcurand.so.10",
    "sonames": ["libcurand.so.10", "libcurand.so"],
    "versioned": True,
    "prefixes": ["curand"],
    "unavailable": "CURAND_STATUS_INITIALIZATION_FAILED",
    "status_types": ["curandStatus_t"],
    # non-const pointers to numbers and structs are mostly arrays in device
    # memory (float *C, int *devInfo): only strings and pointers to handles
    # or pointers are copied
    "device_arrays": True,
}
