"""Layer 7, cuFFT (libcufft.so.12): what cutap does with its functions beyond
what the headers say.

Data only (gen/specs/README.md; keys: gen/spec.py LAYER_KEYS and
FUNCTION_KEYS). `/usr/bin/python3 gen/spec.py show NAME` prints every rule
of a function. No function of this layer has rules of its own: the
generic capture rules apply (gen/gen_common.py capture_rule()), with
device_arrays below.
"""

LAYER = {
    "name": "cufft",
    "number": 7,
    "parses": [(["cufft.h", "cufftXt.h"], [])],
    "exports": "libcufft.so.12",
    "sonames": ["libcufft.so.12", "libcufft.so"],
    "versioned": True,
    "older": {"12": "libcufft.so.11", "11": "libcufft.so.10"},
    "prefixes": ["cufft"],
    "unavailable": "CUFFT_SETUP_FAILED",
    "status_types": ["cufftResult"],
    # non-const pointers to numbers and structs are mostly arrays in device
    # memory (float *C, int *devInfo): only strings and pointers to handles
    # or pointers are copied
    "device_arrays": True,
}
