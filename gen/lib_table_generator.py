"""Generates src/generated/lib_table.c: for every function of the runtime
and library layers, its name, layer, parameter metadata and captures
(indexed by id - CUTAP_DRIVER_COUNT), the address of its wrapper, the
trampoline contexts of the untyped ones, and one descriptor per layer
(first id, count, sonames, the status of a call when the library is
missing)."""
import cuda_model
from gen_common import c_str, captures
from lib_untyped_generator import untyped
from table_generator import metadata_arrays, slow_table


def is_status(f):
    """Whether f's result is a status code (0 = success): its layer's
    "status_types" in its spec, or the function's own "status" rule. Other
    results (cusparseGetMatType's cusparseMatrixType_t, pointers, counts)
    are values: nostatus."""
    return f.status


def result_kind(f):
    """The plugin API's kind of f's result (cutap.h CUTAP_RESULT_*)."""
    if not f.typed:
        return "CUTAP_RESULT_UNKNOWN"
    if is_status(f):
        return "CUTAP_RESULT_STATUS"
    return {"ptr": "CUTAP_RESULT_POINTER", "void": "CUTAP_RESULT_VOID"}.get(f.ret_kind, "CUTAP_RESULT_VALUE")


def generate(model):
    out = [cuda_model.banner("lib_table_generator.py"), '#include "cutap_format.h"',
           '#include "core_internal.h"\n']
    tramp = {f.name: k for k, f in enumerate(untyped(model))}
    out += metadata_arrays([f for l in model.layers for f in l.functions])
    out.append("\nconst struct cutap_fninfo cutap_lib_info[CUTAP_STATIC_COUNT - CUTAP_DRIVER_COUNT] = {")
    for l in model.layers:
        for f in l.functions:
            caps = captures(f)
            status = is_status(f)
            out.append("    {.name = %s, .typed = %d, .nargs = %d, .ncap = %d, .func_arg = -1, .layer = %d,"
                       " .nostatus = %d, .rkind = %s, .tramp = %d,"
                       % (c_str(f.name), int(f.typed), len(f.params), len(caps), l.index, int(not status),
                          result_kind(f), tramp.get(f.name, -1)))
            out.append("     .args = %s, .sizes = %s, .caps = %s},"
                       % ("args_" + f.name if f.typed and f.params else "0",
                          "sizes_" + f.name if f.typed and f.params else "0", "caps_" + f.name if caps else "0"))
    out.append("};\n")
    for l in model.layers:
        for f in l.functions:
            out.append("extern void %s(void);" % f.name)
    out.append("\nvoid *const cutap_lib_wrapper[CUTAP_STATIC_COUNT - CUTAP_DRIVER_COUNT] = {")
    for l in model.layers:
        for f in l.functions:
            out.append("    (void *)%s," % f.name)
    out.append("};\n")
    out += slow_table("cutap_lib_slow", "CUTAP_STATIC_COUNT - CUTAP_DRIVER_COUNT",
                      [f for l in model.layers for f in l.functions])
    un = untyped(model)
    out.append("struct cutap_tramp_ctx cutap_lib_untyped_ctx[%d] = {" % max(1, len(un)))
    for f in un:
        out.append("    {.real = 0, .active = 1, .id = CUTAP_ID_%s}," % f.name)
    out.append("};")
    out.append("const unsigned cutap_lib_untyped_count = %d;\n" % len(un))
    for l in model.layers:
        out.append("static const char *const sonames_%s[] = {%s0};"
                   % (l.cname, "".join(c_str(s) + ", " for s in l.spec["sonames"])))
    out.append("\nconst struct cutap_layer_desc cutap_layers[CUTAP_LIB_LAYERS] = {")
    first = model.driver_count
    for l in model.layers:
        out.append("    {.name = %s, .layer = %d, .first = %d, .count = %d, .sonames = sonames_%s, .unavailable = %d},"
                   % (c_str(l.name), l.index, first, len(l.functions), l.cname, l.unavailable))
        first += len(l.functions)
    out.append("};")
    return "\n".join(out) + "\n"


OUTPUT = "src/generated/lib_table.c"
