"""Generates src/generated/older_same.c (issue #28): for each typed
function of a runtime or library layer, whether its signature in the
headers of an older CUDA major (gen/snapshots/cuda-11.8, cuda-12.4, written
by gen/major_snapshot.py) is the pinned 13.0 one: the same result and
parameters, by ABI and by spelling, so that the typed wrapper's arguments,
captures and decoding hold for that major too. Bit 0: CUDA 11 (11.8), bit
1: CUDA 12 (12.4); 0: declared otherwise there, or not at all (the
function is then recorded untyped in a library of that major). Compared
conservatively: a typedef renamed between majors counts as different."""
import gzip
import json
import os

import cuda_model
import lib_model

OUTPUT = "src/generated/older_same.c"
MAJORS = (("11", "11.8", 1), ("12", "12.4", 2))


def _sig(f):
    return (f.ret_abi, f.ret_spelled, [(p.abi, p.spelled) for p in f.params])


def _declared(version, layer):
    path = os.path.join(cuda_model.HERE, "snapshots", "cuda-" + version, layer + ".json.gz")
    if not os.path.exists(path):
        return {}
    with gzip.open(path) as f:
        return json.loads(f.read(), object_hook=lib_model._decode)["declared"]


def generate(model):
    bits, counts = {}, []
    for layer in model.layers:
        older = layer.spec.get("older", {})
        for major, version, bit in MAJORS:
            if major not in older:
                continue
            old = _declared(version, layer.name)
            if not old:
                counts.append("%s %s (%s): no snapshot" % (layer.name, version, older[major]))
                continue
            n = 0
            for f in layer.functions:
                if f.typed and f.name in old and _sig(old[f.name]) == _sig(f):
                    bits[f.name] = bits.get(f.name, 0) | bit
                    n += 1
            counts.append("%s %s (%s): %d of %d typed functions" % (
                layer.name, version, older[major], n, sum(fn.typed for fn in layer.functions)))
    out = [cuda_model.banner("older_major_generator.py"),
           "/* Per typed runtime or library function (its id less CUTAP_DRIVER_COUNT):\n"
           " * bit 0, its signature in CUDA 11.8 is 13.0's; bit 1, in CUDA 12.4.\n"
           " *   " + "\n *   ".join(counts) + " */",
           "#include <stdint.h>\n",
           '#include "generated/cutap_ids.h"\n',
           "const uint8_t cutap_older_same[CUTAP_STATIC_COUNT - CUTAP_DRIVER_COUNT] = {"]
    for name in sorted(bits):
        out.append("    [CUTAP_ID_%s - CUTAP_DRIVER_COUNT] = %d," % (name, bits[name]))
    out.append("};")
    return "\n".join(out) + "\n"
