"""Layer 6, NCCL (libnccl.so.2): what cutap does with its functions beyond
what the headers say.

Data only (gen/specs/README.md; keys: gen/spec.py LAYER_KEYS and
FUNCTION_KEYS). `/usr/bin/python3 gen/spec.py show NAME` prints every rule
of a function. No function of this layer has rules of its own: the
generic capture rules apply (gen/gen_common.py capture_rule()), with
device_arrays below.
"""

LAYER = {
    "name": "nccl",
    "number": 6,
    "parses": [(["nccl.h"], [])],
    "exports": "libnccl.so.2",
    "sonames": ["libnccl.so.2", "libnccl.so"],
    # the real library versions none of its exports (nm -D on the CUDA 13.0
    # toolkit's libnccl.so.2): neither does the tests' fake
    "versioned": False,
    "prefixes": ["nccl"],
    "unavailable": "ncclSystemError",
    "status_types": ["ncclResult_t"],
    # non-const pointers to numbers and structs are mostly arrays in device
    # memory (float *C, int *devInfo): only strings and pointers to handles
    # or pointers are copied
    "device_arrays": True,
}
