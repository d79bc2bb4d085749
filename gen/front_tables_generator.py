"""Generates src/generated/front_tables.c: what the front (libcutap.so,
src/front) needs of each id when the core cannot be loaded (the program
then runs untraced, its calls passed to the real functions by name): the
names, as one string and offsets into it, each id's layer (bit 7: its
result is no status, and a call without its library returns 0), and each
layer's status for a call whose library is missing. Offsets, not
pointers: the front carries no relocation, so that loading it into every
process costs no written page (issue #24)."""
import cuda_model
from fronts_generator import entries


def c_bytes(s):
    return '"%s"' % s.replace("\\", "\\\\").replace('"', '\\"')


def generate(model):
    es = entries(model)
    out = [cuda_model.banner("front_tables_generator.py"), "#include <stdint.h>", "",
           "#include \"front_internal.h\"", ""]
    offs, at = [], 0
    out.append("const char cutap_front_names[] =")
    for _, f, _ in es:
        out.append("    %s \"\\0\"" % c_bytes(f.name))
        offs.append(at)
        at += len(f.name) + 1
    out[-1] += ";"
    out.append("")
    out.append("const uint32_t cutap_front_name_at[%d] = {" % len(es))
    for i in range(0, len(offs), 12):
        out.append("    " + ", ".join(str(o) for o in offs[i:i + 12]) + ",")
    out.append("};")
    out.append("")
    layer = [0] * len(es)
    first = model.driver_count
    for l in model.layers:
        for i, f in enumerate(l.functions):
            layer[first + i] = l.index | (0 if getattr(f, "status", True) else 0x80)
        first += len(l.functions)
    out.append("const uint8_t cutap_front_layer[%d] = {" % len(es))
    for i in range(0, len(layer), 32):
        out.append("    " + ", ".join(str(x) for x in layer[i:i + 32]) + ",")
    out.append("};")
    out.append("")
    n = 1 + max([l.index for l in model.layers] + [0])
    unavailable = [500] + [0] * (n - 1)   # the driver: CUDA_ERROR_NOT_FOUND
    for l in model.layers:
        unavailable[l.index] = l.unavailable
    out.append("/* by layer: the driver's CUDA_ERROR_NOT_FOUND, each library layer's own */")
    out.append("const uint32_t cutap_front_unavailable[%d] = {%s};" % (n, ", ".join(str(u) for u in unavailable)))
    out.append("const uint32_t cutap_front_ids = %d;" % len(es))
    return "\n".join(out) + "\n"


OUTPUT = "src/generated/front_tables.c"
