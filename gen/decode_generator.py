"""Generates cli/generated/decode_tables.c (declared in cli/decode_tables.h):
for the cutap command, every entry point by name with its parameters, and
the enums and structs those reach, so recorded arguments and captures can
be printed by name."""
import re

import cuda_model
from gen_common import c_str, capture

RESULT_ENUM = "cudaError_enum"      # CUresult
KIND = {"int": "DEC_INT", "uint": "DEC_UINT", "ptr": "DEC_PTR", "enum": "DEC_ENUM",
        "float": "DEC_FLOAT", "double": "DEC_DOUBLE", "struct": "DEC_STRUCT", "record": "DEC_STRUCT"}
SHORT_ARRAY = 4                     # arrays up to this many elements: a field per element


def sentinel(name, value):
    """The 0x7fffffff *_MAX / *_FORCE_INT values that only widen an enum."""
    return value == 0x7fffffff and name.upper().endswith(("_MAX", "_FORCE_INT"))


def bitmask(name, values):
    """An enum is a flag set when its name says so ("flag", any case), or
    when it has at least 3 distinct non-zero values, all powers of two."""
    nonzero = set(v for _, v in values if v)
    return "flag" in name.lower() or (len(nonzero) >= 3 and all(v > 0 and v & (v - 1) == 0 for v in nonzero))


def param_refs(p):
    """(enum name or None, struct name or None) a parameter refers to."""
    t = p.type
    enum = t.name if t.kind == "enum" else None
    struct = t.name if t.kind == "record" else None
    if t.kind == "ptr" and t.pointee is not None:
        if t.pointee.kind == "enum":
            enum = t.pointee.name
        if t.pointee.kind == "record" and capture(p):
            struct = t.pointee.name
    return enum, struct


def ident(name):
    return re.sub(r"\W", "_", name)


def fields(model, rec):
    """[(name, offset, size, kind, enum name, struct name)] of a record."""
    out = []
    for f in rec.fields:
        t = f.type
        if f.bitfield or t.kind not in KIND:
            continue
        if f.count is not None and f.count > SHORT_ARRAY:
            out.append((f.name, f.offset, f.count * t.size, "DEC_BYTES", None, None))
            continue
        for i in range(f.count or 1):
            name = f.name if f.count is None else "%s[%d]" % (f.name, i)
            out.append((name, f.offset + i * t.size, t.size, KIND[t.kind],
                        t.name if t.kind == "enum" else None, t.name if t.kind == "record" else None))
    return out


def generate(model):
    typed = [f for f in model.functions if f.typed]
    enums, structs = {RESULT_ENUM}, set()
    todo = []
    for f in typed:
        for p in f.params:
            e, s = param_refs(p)
            enums.add(e)
            todo.append(s)
    while todo:                         # structs, with the ones nested in them
        s = todo.pop()
        if s is None or s in structs:
            continue
        structs.add(s)
        for _, _, _, _, e, sub in fields(model, model.records[s]):
            enums.add(e)
            todo.append(sub)
    enums = sorted(enums - {None})
    structs = sorted(structs)
    eidx = {n: i for i, n in enumerate(enums)}
    sidx = {n: i for i, n in enumerate(structs)}
    assert len(set(map(ident, enums))) == len(enums) and len(set(map(ident, structs))) == len(structs)

    def idx(table, name):
        return table[name] if name is not None else -1

    out = [cuda_model.banner("decode_generator.py"),
           "#include <stdlib.h>\n#include <string.h>\n",
           '#include "decode_tables.h"\n']
    for n in enums:
        out.append("static const struct dec_enum_val vals_%s[] = {" % ident(n))
        for name, v in model.enums[n].values:
            if not sentinel(name, v):
                out.append("    {%d, %s}," % (v, c_str(name)))
        out.append("};")
    out.append("\n/* bitmask: %s */" % " ".join(bitmask.__doc__.split()))
    out.append("const struct dec_enum dec_enums[] = {")
    for i, n in enumerate(enums):
        vals = [(a, v) for a, v in model.enums[n].values if not sentinel(a, v)]
        out.append("    /* %d */ {%s, %d, %d, vals_%s}," % (i, c_str(n), len(vals), bitmask(n, vals), ident(n)))
    out.append("};")
    out.append("const unsigned dec_nenums = %d;" % len(enums))
    out.append("const int16_t dec_result_enum = %d;\n" % eidx[RESULT_ENUM])

    for n in structs:
        out.append("static const struct dec_field fields_%s[] = {" % ident(n))
        for name, off, size, kind, e, s in fields(model, model.records[n]):
            assert off < 65536 and size < 256, (n, name)
            out.append("    {%s, %d, %d, %s, %d, %d}," % (c_str(name), off, size, kind, idx(eidx, e), idx(sidx, s)))
        out.append("};")
    out.append("\nconst struct dec_struct dec_structs[] = {")
    for i, n in enumerate(structs):
        out.append("    /* %d */ {%s, %d, %d, fields_%s}," % (i, c_str(n), model.records[n].size,
                                                           len(fields(model, model.records[n])), ident(n)))
    out.append("};")
    out.append("const unsigned dec_nstructs = %d;\n" % len(structs))

    for f in typed:
        if f.params:
            out.append("static const struct dec_arg args_%s[] = {" % f.name)
            for p in f.params:
                e, s = param_refs(p)
                out.append("    {%s, %s, %s, %d, %d}," % (c_str(p.name), c_str(p.spelled), KIND[p.kind],
                                                         idx(eidx, e), idx(sidx, s)))
            out.append("};")
    out.append("\n/* Sorted by name; exports no header declares have no arguments. */")
    out.append("const struct dec_fn dec_fns[] = {")
    for f in sorted(model.functions, key=lambda f: f.name):
        out.append("    {%s, %d, %s}," % (c_str(f.name), len(f.params), "args_" + f.name if f.params else "0"))
    out.append("};")
    out.append("const unsigned dec_nfns = %d;\n" % len(model.functions))
    out.append("static int cmp_fn(const void *key, const void *elem)\n{")
    out.append("    return strcmp(key, ((const struct dec_fn *)elem)->name);\n}\n")
    out.append("const struct dec_fn *dec_find_fn(const char *name)\n{")
    out.append("    return bsearch(name, dec_fns, dec_nfns, sizeof dec_fns[0], cmp_fn);\n}")
    return "\n".join(out) + "\n"


OUTPUT = "cli/generated/decode_tables.c"
