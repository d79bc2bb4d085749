"""Generates src/generated/status_names.c (declared in src/core/core_internal.h):
for the driver and every runtime and library layer whose functions return a
status enum, that enum's constants by value, for cutap_status_name() of the
plugin API (the command's decoders have their own, richer tables). A
layer's status enum is the one most of its status-returning functions
return (cudaError_t, cublasStatus_t, ncclResult_t, ...); where two
constants share a value, the first declared names it."""
import collections

import cuda_model
import spec
from gen_common import c_str

OUTPUT = "src/generated/status_names.c"


def _table(values):
    """(value, name) sorted by value, the first name of each value."""
    seen = {}
    for name, v in values:
        seen.setdefault(v, name)
    return sorted(seen.items())


def generate(model):
    tables = []   # (layer number, enum name, [(value, name)])
    denum = spec.load("driver").get("status_enum")
    if denum in model.enums:
        tables.append((0, denum, _table(model.enums[denum].values)))
    for l in model.layers:
        votes = collections.Counter(f.ret_enum for f in l.functions
                                    if f.typed and f.status and f.ret_kind == "enum" and getattr(f, "ret_enum", None))
        if not votes:
            continue
        name = votes.most_common(1)[0][0]
        if name in l.model.enums:
            tables.append((l.index, name, _table(l.model.enums[name].values)))
    out = [cuda_model.banner("status_names_generator.py"), '#include "core_internal.h"\n']
    done = set()   # an enum two layers share (cublasStatus_t: cuBLAS and cuBLASLt) is written once
    for layer, name, vals in tables:
        if name in done:
            continue
        done.add(name)
        out.append("static const struct cutap_status_name st_%s[] = {" % name)
        for v, n in vals:
            out.append("    {%d, %s}," % (v, c_str(n)))
        out.append("};")
    out.append("\nconst struct cutap_status_table cutap_status_tables[] = {")
    for layer, name, vals in tables:
        out.append("    {%d, %d, st_%s},   /* %s */" % (layer, len(vals), name, name))
    out.append("    {-1, 0, 0},")
    out.append("};")
    return "\n".join(out) + "\n"
