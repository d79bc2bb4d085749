"""Generates src/generated/libcutap.map: the linker version script. It
exports exactly the intercepted names and the public API; everything else
is local. The node is anonymous on purpose: unversioned definitions satisfy
versioned references (dlsym@GLIBC_2.34) of preloaded-over objects. The names
besides the layers' are libcutap.so's own (gen/specs/libcutap.py EXPORTS)."""
import cuda_model
import spec


def generate(model):
    out = [cuda_model.banner("exports_generator.py", "#", ""), "{", "  global:"]
    for f in model.functions:
        out.append("    %s;" % f.name)
    for l in model.layers:
        if l.spec["exports"] is None:
            continue   # NVTX: reached through the injection table only
        for f in l.functions:
            out.append("    %s;" % f.name)
    out += ["    %s;" % e["name"] for e in spec.load("libcutap").data["EXPORTS"]]
    out += ["  local:", "    *;", "};"]
    return "\n".join(out) + "\n"


OUTPUT = "src/generated/libcutap.map"
