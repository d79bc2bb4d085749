"""Generates cli/generated/decode_tables.c (declared in cli/decode_tables.h):
for the cutap command, every driver entry point by name with its
parameters and result, and the enums and structs those reach, so recorded
arguments and captures can be printed by name. The runtime and library
layers get the same tables from decode_layers_generator.py, with the
functions here."""
import re

import cuda_model
import spec
from gen_common import c_str, capture

RESULT_ENUM = spec.load("driver").get("status_enum")     # CUresult's enum
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


def param_refs(p, by_value_max=None):
    """(enum name or None, struct name or None) a parameter refers to.
    by_value_max: structs passed by value larger than this are left out
    (their bytes are never recorded, only their address)."""
    t = p.type
    enum = t.name if t.kind == "enum" else None
    struct = t.name if t.kind == "record" and (by_value_max is None or t.size <= by_value_max) else None
    if t.kind == "ptr" and t.pointee is not None:
        if t.pointee.kind == "enum":
            enum = t.pointee.name
        if t.pointee.kind == "record" and capture(p):
            struct = t.pointee.name
    return enum, struct


def ident(name):
    return re.sub(r"\W", "_", name)


def fields(rec):
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


class Fn:
    """What the tables say of one function: its layer, and its result as
    (DEC_* kind, enum name or None); an enum result is a status code."""
    def __init__(self, f, layer, result_kind, result_enum):
        self.f, self.layer, self.result_kind, self.result_enum = f, layer, result_kind, result_enum


RESULT_KIND = {"enum": "DEC_ENUM", "int": "DEC_INT", "uint": "DEC_UINT", "ptr": "DEC_PTR", "void": "DEC_VOID"}
# Bytes and signedness of the ABI types a result can have (cuda_model.abi;
# x86-64 LP64): the range of values a caller can receive, which fault
# injection (cutap --inject retval=, error=) must stay within, since a
# value the type cannot hold reaches the caller truncated (4294967296 as
# CUresult is 0, CUDA_SUCCESS).
ABI_RANGE = {"_Bool": (1, 0), "char": (1, 1), "signed char": (1, 1), "unsigned char": (1, 0),
             "short": (2, 1), "unsigned short": (2, 0), "int": (4, 1), "unsigned int": (4, 0),
             "long": (8, 1), "unsigned long": (8, 0), "long long": (8, 1), "unsigned long long": (8, 0),
             "void *": (8, 0), "void": (0, 0)}


def result_type(f):
    """(C string of the result type as the header spells it, bytes,
    signed) of a function; ("0", 0, 0) when no header declares it."""
    if not f.typed:
        return "0", 0, 0
    size, signed = ABI_RANGE[f.ret_abi]
    return c_str(re.sub(r"^enum\s+", "", f.ret_spelled)), size, signed


def tables(generator, fns, enums_of, records_of, set_name, by_value_max=None):
    """The C text of one set of tables (struct dec_set set_name): fns is a
    list of Fn, enums_of and records_of map names to the model's Enum and
    Record of every enum and record the functions reach."""
    typed = [x.f for x in fns if x.f.typed]
    enums, structs = set(x.result_enum for x in fns), set()
    todo = []
    for f in typed:
        for p in f.params:
            e, s = param_refs(p, by_value_max)
            enums.add(e)
            todo.append(s)
    while todo:                         # structs, with the ones nested in them
        s = todo.pop()
        if s is None or s in structs:
            continue
        structs.add(s)
        for _, _, _, _, e, sub in fields(records_of[s]):
            enums.add(e)
            todo.append(sub)
    enums = sorted(enums - {None})
    structs = sorted(structs)
    eidx = {n: i for i, n in enumerate(enums)}
    sidx = {n: i for i, n in enumerate(structs)}
    assert len(set(map(ident, enums))) == len(enums) and len(set(map(ident, structs))) == len(structs)
    names = [x.f.name for x in fns]
    assert len(set(names)) == len(names), "function names must be unique in a set"

    def idx(table, name):
        return table[name] if name is not None else -1

    out = [cuda_model.banner(generator), '#include "decode_tables.h"\n']
    for n in enums:
        out.append("static const struct dec_enum_val vals_%s[] = {" % ident(n))
        for name, v in enums_of[n].values:
            if not sentinel(name, v):
                out.append("    {%d, %s}," % (v, c_str(name)))
        out.append("};")
    out.append("\n/* bitmask: %s */" % " ".join(bitmask.__doc__.split()))
    out.append("static const struct dec_enum enums[] = {")
    for i, n in enumerate(enums):
        vals = [(a, v) for a, v in enums_of[n].values if not sentinel(a, v)]
        out.append("    /* %d */ {%s, %d, %d, vals_%s}," % (i, c_str(n), len(vals), bitmask(n, vals), ident(n)))
    out.append("};\n")

    for n in structs:
        out.append("static const struct dec_field fields_%s[] = {" % ident(n))
        for name, off, size, kind, e, s in fields(records_of[n]):
            assert off < 65536 and size < 256, (n, name)
            out.append("    {%s, %d, %d, %s, %d, %d}," % (c_str(name), off, size, kind, idx(eidx, e), idx(sidx, s)))
        out.append("};")
    out.append("\nstatic const struct dec_struct structs[] = {")
    for i, n in enumerate(structs):
        out.append("    /* %d */ {%s, %d, %d, fields_%s}," % (i, c_str(n), records_of[n].size,
                                                           len(fields(records_of[n])), ident(n)))
    if not structs:
        out.append("    {\"\", 0, 0, 0},      /* none: C has no empty arrays */")
    out.append("};\n")

    for f in typed:
        if f.params:
            out.append("static const struct dec_arg args_%s[] = {" % f.name)
            for p in f.params:
                e, s = param_refs(p, by_value_max)
                out.append("    {%s, %s, %s, %d, %d}," % (c_str(p.name), c_str(p.spelled), KIND[p.kind],
                                                         idx(eidx, e), idx(sidx, s)))
            out.append("};")
    out.append("\n/* Sorted by name; functions no header declares have no arguments. */")
    out.append("static const struct dec_fn fns[] = {")
    for x in sorted(fns, key=lambda x: x.f.name):
        f = x.f
        out.append("    {%s, %d, %d, %s, %d, %s, %s, %d, %d}," % ((c_str(f.name), len(f.params), x.layer, x.result_kind,
                                                             idx(eidx, x.result_enum),
                                                             "args_" + f.name if f.params else "0") + result_type(f)))
    out.append("};\n")
    out.append("const struct dec_set %s = {fns, %d, enums, %d, structs, %d};"
               % (set_name, len(fns), len(enums), len(structs)))
    return "\n".join(out) + "\n"


def generate(model):
    fns = [Fn(f, 0, "DEC_ENUM" if f.typed else "DEC_UINT", RESULT_ENUM if f.typed else None)
           for f in model.functions]
    return tables("decode_generator.py", fns, model.enums, model.records, "dec_driver")


OUTPUT = "cli/generated/decode_tables.c"
