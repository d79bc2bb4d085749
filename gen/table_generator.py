"""Generates src/generated/driver_table.c: names, parameter metadata, what the
recorder captures of each call (gen_common.captures), wrapper addresses, the
untyped-export contexts and the cuGetProcAddress version table."""
import cuda_model
from gen_common import c_str, captures

KIND = {"int": "CUTAP_ARG_INT", "uint": "CUTAP_ARG_UINT", "ptr": "CUTAP_ARG_PTR",
        "enum": "CUTAP_ARG_ENUM", "float": "CUTAP_ARG_FLOAT", "double": "CUTAP_ARG_DOUBLE",
        "struct": "CUTAP_ARG_STRUCT"}
FLAVOUR = {"": "CUTAP_FLAVOUR_PLAIN", "ptds": "CUTAP_FLAVOUR_PTDS", "ptsz": "CUTAP_FLAVOUR_PTSZ"}


def func_arg(f):
    """Launches: index of the parameter holding the kernel, whose name the
    recorder records ("kernel" in gen/specs/driver.py), else -1."""
    return getattr(f, "kernel_arg", -1)


def abi_size(p):
    """Bytes of a parameter as passed (a struct by value: its size)."""
    if p.kind == "struct":
        return p.type.size if p.type.size > 0 else 0
    return p.type.size if p.type.size in (1, 2, 4, 8) else 8


def metadata_arrays(functions):
    """args_<name> (parameter names, types, kinds) and caps_<name> (what the
    recorder copies) of each function, as C arrays."""
    out = []
    for f in functions:
        if f.typed and f.params:
            out.append("static const cutap_arg_info_t args_%s[] = {" % f.name)
            for p in f.params:
                out.append("    {%s, %s, %s}," % (c_str(p.name), c_str(p.spelled), KIND[p.kind]))
            out.append("};")
            out.append("static const uint16_t sizes_%s[] = {%s};"
                       % (f.name, ", ".join(str(abi_size(p)) for p in f.params)))
        if captures(f):
            out.append("static const struct cutap_capinfo caps_%s[] = {" % f.name)
            for arg, kind, size in captures(f):
                out.append("    {.arg = %d, .kind = %s, .size = %d}," % (arg, kind, size))
            out.append("};")
    return out


def slow_table(name, size, functions):
    """The typed slow path of each function (cutap_slow_<name>, in the
    *_wrappers.c files), 0 for an untyped one: where the core sends a
    call of an id that takes no fast path (cutap_hot, the front's)."""
    out = ["/* Typed slow paths, by id: where cutap_hot sends a call no fast path serves. */"]
    for f in functions:
        if f.typed:
            out.append("void cutap_slow_%s(void);" % f.name)
    out.append("void *const %s[%s] = {" % (name, size))
    for f in functions:
        out.append("    %s," % ("(void *)cutap_slow_" + f.name if f.typed else "0"))
    out.append("};\n")
    return out


def generate(model):
    out = [cuda_model.banner("table_generator.py"), '#include "cutap_format.h"',
           '#include "resolve_internal.h"\n']
    out += metadata_arrays(model.functions)
    out.append("\nconst struct cutap_fninfo cutap_driver_info[CUTAP_DRIVER_COUNT] = {")
    for f in model.functions:
        caps = captures(f)
        out.append("    {.name = %s, .typed = %d, .nargs = %d, .ncap = %d, .func_arg = %d,"
                   % (c_str(f.name), int(f.typed), len(f.params), len(caps), func_arg(f)))
        out.append("     .args = %s, .sizes = %s, .caps = %s},"
                   % ("args_" + f.name if f.typed and f.params else "0",
                      "sizes_" + f.name if f.typed and f.params else "0", "caps_" + f.name if caps else "0"))
    out.append("};\n")
    for f in model.functions:
        out.append("extern void %s(void);" % f.name)
    out.append("\nvoid *const cutap_driver_wrapper[CUTAP_DRIVER_COUNT] = {")
    for f in model.functions:
        out.append("    (void *)%s," % f.name)
    out.append("};\n")
    out += slow_table("cutap_driver_slow", "CUTAP_DRIVER_COUNT", model.functions)
    untyped = [f for f in model.functions if not f.typed]
    out.append("/* Exports no header declares: reached through the generic trampoline. */")
    out.append("struct cutap_tramp_ctx cutap_untyped_ctx[%d] = {" % max(1, len(untyped)))
    for f in untyped:
        out.append("    {.real = 0, .active = 1, .id = CUTAP_ID_%s}," % f.name)
    out.append("};")
    out.append("const uint16_t cutap_untyped_ids[%d] = {" % max(1, len(untyped)))
    for f in untyped:
        out.append("    CUTAP_ID_%s," % f.name)
    out.append("};")
    out.append("const unsigned cutap_untyped_count = %d;\n" % len(untyped))
    out.append("/* cuGetProcAddress: (base name, version, flavour) -> exported variant,")
    out.append(" * sorted by base name then version. */")
    out.append("const struct cutap_procaddr cutap_procaddr_table[] = {")
    for base, ver, fl, exp in model.versions:
        out.append("    {%s, %d, %s, CUTAP_ID_%s}," % (c_str(base), ver, FLAVOUR[fl], exp))
    out.append("};")
    out.append("const unsigned cutap_procaddr_count = %d;" % len(model.versions))
    return "\n".join(out) + "\n"


OUTPUT = "src/generated/driver_table.c"
