"""Layer 5, cuDNN (libcudnn.so.9): what cutap does with its functions beyond
what the headers say.

Data only (gen/specs/README.md; keys: gen/spec.py LAYER_KEYS and
FUNCTION_KEYS). `/usr/bin/python3 gen/spec.py show NAME` prints every rule
of a function. No function of this layer has rules of its own: the
generic capture rules apply (gen/gen_common.py capture_rule()), with
device_arrays below.
"""

LAYER = {
    "name": "cudnn",
    "number": 5,
    "parses": [(["cudnn.h"], [])],
    "exports": "libcudnn.so.9",
    "sonames": ["libcudnn.so.9", "libcudnn.so"],
    "versioned": True,
    "older": {"12": "libcudnn.so.8", "11": "libcudnn.so.8"},
    "prefixes": ["cudnn"],
    "unavailable": "CUDNN_STATUS_NOT_INITIALIZED",
    "status_types": ["cudnnStatus_t"],
    # non-const pointers to numbers and structs are mostly arrays in device
    # memory (float *C, int *devInfo): only strings and pointers to handles
    # or pointers are copied
    "device_arrays": True,
}
