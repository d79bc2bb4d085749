"""Generates src/resolve/generated/nvtx_slots.h: for each NVTX callback module whose
function table cutap fills as the NVTX injection library (src/resolve/nvtx.c),
the map from a slot of that table to the id of cutap's wrapper of the
function it holds, as an initializer list ([slot] = CUTAP_ID_<function>).

The slots are the constants of the header's callback-id enums
(nvtx3/nvtxDetail/nvtxTypes.h: NVTX_CBID_CORE_MarkEx = 1, ...); the rule
naming the function of each (<cbid_prefix><Suffix> holds nvtx<Suffix>) is
"nvtx_injection" in gen/specs/nvtx.py."""
import cuda_model
import spec


def slots(model):
    """[(module spec, [(slot, constant, function)])] in spec order."""
    layer = next(l for l in model.layers if l.name == "nvtx")
    names = set(f.name for f in layer.functions)
    out = []
    for m in layer.spec["nvtx_injection"]:
        rows = []
        for const, v in layer.constants.items():
            if not const.startswith(m["cbid_prefix"]):
                continue
            suffix = const[len(m["cbid_prefix"]):]
            if suffix in m["skip"]:
                continue
            fn = "nvtx" + suffix
            if fn not in names:
                raise SystemExit("gen: gen/specs/nvtx.py: %s (slot %d of %s) would hold %s, which the NVTX layer "
                                 "does not have" % (const, v, m["module"], fn))
            rows.append((v, const, fn))
        if not rows:
            raise SystemExit("gen: gen/specs/nvtx.py: no constant %s* in the NVTX headers" % m["cbid_prefix"])
        out.append((m, sorted(rows)))
    return out


def generate(model):
    out = [cuda_model.banner("nvtx_slots_generator.py"),
           "#ifndef CUTAP_GENERATED_NVTX_SLOTS_H", "#define CUTAP_GENERATED_NVTX_SLOTS_H"]
    for m, rows in slots(model):
        out += ["", "/* NVTX callback module %s: slot of its function table -> id of cutap's" % m["module"],
                " * wrapper (nvtx3/nvtxDetail/nvtxTypes.h; gen/specs/nvtx.py). */",
                "#define %s \\" % m["macro"]]
        for v, const, fn in rows:
            out.append("    %-44s /* %s */ \\" % ("[%d] = CUTAP_ID_%s," % (v, fn), const))
        out[-1] = out[-1][:-2].rstrip()
    out.append("\n#endif")
    return "\n".join(out) + "\n"


OUTPUT = "src/resolve/generated/nvtx_slots.h"
