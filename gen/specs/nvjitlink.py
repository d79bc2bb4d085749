"""Layer 12, nvJitLink (libnvJitLink.so.13): what cutap does with its
functions beyond what the headers say.

Data only (gen/specs/README.md; keys: gen/spec.py LAYER_KEYS and
FUNCTION_KEYS). `/usr/bin/python3 gen/spec.py show NAME` prints every rule
of a function. No function of this layer has rules of its own: the
generic capture rules apply (gen/gen_common.py capture_rule()), with
device_arrays below.
"""

LAYER = {
    "name": "nvJitLink",
    "number": 12,
    "parses": [(["nvJitLink.h"], [])],
    "exports": "libnvJitLink.so.13",
    "sonames": ["libnvJitLink.so.13", "libnvJitLink.so"],
    "versioned": True,
    "older": {"12": "libnvJitLink.so.12"},
    "prefixes": ["nvJitLink", "__nvJitLink"],
    "unavailable": "NVJITLINK_ERROR_INTERNAL",
    "status_types": ["nvJitLinkResult"],
    # non-const pointers to numbers and structs are mostly arrays in device
    # memory: only strings and pointers to handles or pointers are copied
    "device_arrays": True,
    # The header declares __nvJitLinkCreate_13_0 and a static inline
    # nvJitLinkCreate calling it; the library exports both names.
    "alias": "__{}_13_0",
}
