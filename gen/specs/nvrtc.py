"""Layer 11, NVRTC (libnvrtc.so.13): what cutap does with its functions beyond
what the headers say.

Data only (gen/specs/README.md; keys: gen/spec.py LAYER_KEYS and
FUNCTION_KEYS). `/usr/bin/python3 gen/spec.py show NAME` prints every rule
of a function. No function of this layer has rules of its own: the
generic capture rules apply (gen/gen_common.py capture_rule()), with
device_arrays below.
"""

LAYER = {
    "name": "nvrtc",
    "number": 11,
    "parses": [(["nvrtc.h"], [])],
    "exports": "libnvrtc.so.13",
    "sonames": ["libnvrtc.so.13", "libnvrtc.so"],
    "versioned": True,
    "older": {"12": "libnvrtc.so.12", "11": "libnvrtc.so.11.2"},
    "prefixes": ["nvrtc"],
    "unavailable": "NVRTC_ERROR_INTERNAL_ERROR",
    "status_types": ["nvrtcResult"],
    # non-const pointers to numbers and structs are mostly arrays in device
    # memory (float *C, int *devInfo): only strings and pointers to handles
    # or pointers are copied
    "device_arrays": True,
}
