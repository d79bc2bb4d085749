"""Generates what the library needs to type the calls of a runtime or
library layer bound to an older CUDA major (issue #28; gen/older_model.py
reads the snapshots of those majors' headers):

  src/generated/older_modes.c     per layer, its older sonames (one per
      group of majors: libcudart.so.12, libcudart.so.11.0); per typed
      function, its mode under each (2 bits a group: 0 untyped, 1 the
      pinned signature, 2 a variant). Data only (the unit tests link it).
  src/generated/lib_older_variants.c    each variant: its metadata (as
      lib_table.c's), the typed slow path that takes its signature
      (recording under the id of the function it is a variant of), and
      the table src/resolve/libs.c installs from when a layer binds to
      that soname; and the runtime callback ids an older static runtime
      reports those functions by (src/resolve/rt_calls.c).
  cli/generated/decode_older_<layer>_<group>.c    the decoding tables of a
      group's variants (decode_generator.py's, one set each), and
  cli/generated/decode_older.c    which set decodes the calls of a layer
      bound to which soname (cutap dump and the exports).

A function typed with the pinned signature in an older major is decoded
with the pinned tables, as the recorder wrote it.
"""
import cuda_model
from gen_common import c_str, captures, struct_def
from wrappers_generator import wrapper
from lib_table_generator import is_status, result_kind
from table_generator import metadata_arrays
from older_model import VARIANT

MAX_GROUPS = 2


def _renamed(v):
    """v under its C name (cname), for the generated identifiers"""
    class R:
        pass
    r = R()
    r.__dict__.update(v.__dict__)
    r.name = v.cname
    return r


def modes_c(model):
    out = [cuda_model.banner("lib_older_generator.py"),
           "/* Per runtime or library layer (index: layer - CUTAP_LAYER_RUNTIME), its",
           " * older sonames; per function of those layers (id - CUTAP_DRIVER_COUNT),",
           " * bits 2k..2k+1: its mode under soname k: 0 recorded untyped, 1 typed",
           " * with the pinned signature, 2 typed by a variant (lib_older_variants.c).",
           " *   " + "\n *   ".join(_counts(model)) + " */",
           "#include <stdint.h>\n",
           '#include "generated/cutap_ids.h"\n',
           "const char *const cutap_older_sonames[][%d] = {" % (MAX_GROUPS + 1)]
    for l in model.layers:
        assert len(l.groups) <= MAX_GROUPS, l.name
        out.append("    {%s0}, /* %s */" % ("".join(c_str(g.soname) + ", " for g in l.groups), l.name))
    out.append("};\n")
    out.append("const uint8_t cutap_older_mode[CUTAP_STATIC_COUNT - CUTAP_DRIVER_COUNT] = {")
    for l in model.layers:
        for f in l.functions:
            m = sum(mode << (2 * k) for k, mode in enumerate(getattr(f, "older_modes", [])))
            if m:
                out.append("    [CUTAP_ID_%s - CUTAP_DRIVER_COUNT] = %d," % (f.name, m))
    out.append("};")
    return "\n".join(out) + "\n"


def _counts(model):
    out = []
    for l in model.layers:
        for k, g in enumerate(l.groups):
            if not g.majors:
                out.append("%s %s: no snapshot of CUDA %s" % (l.name, g.soname, " or ".join(g.missing)))
                continue
            typed = [f for f in l.functions if f.typed]
            n = [sum(f.older_modes[k] == m for f in typed) for m in range(3)]
            out.append("%s %s (CUDA %s): %d pinned signatures, %d variants, %d untyped; %d of its own"
                       % (l.name, g.soname, " and ".join(g.majors), n[1], n[2], n[0],
                          sum(getattr(f, "older_only", None) == g.soname for f in l.functions)))
    return out


def variant_struct_defs(variants):
    """The by-value structs the variants take: one definition per name."""
    seen, out = {}, []
    for g, v in variants:
        for p in v.params:
            if p.kind != "struct":
                continue
            d = g.structs[p.struct]
            if p.struct in seen:
                assert seen[p.struct] == d, "struct %s differs between older majors" % p.struct
                continue
            seen[p.struct] = d
            out += struct_def(p.struct, d)
    return out


def variants_c(model):
    variants = [(l, g, v) for l in model.layers for g, v in l.variants]
    out = [cuda_model.banner("lib_older_generator.py"),
           "/* Variants: functions an older major's headers declare with another",
           " * signature than the pinned ones (%d). Each is recorded under the id of" % len(variants),
           " * its function, with its own parameters. */",
           '#include "cutap_format.h"', '#include "core_internal.h"\n',
           "#pragma GCC diagnostic ignored \"-Wmissing-prototypes\"\n"]
    out += variant_struct_defs([(g, v) for _, g, v in variants])
    out += metadata_arrays([_renamed(v) for _, _, v in variants])
    for l, g, v in variants:
        out += wrapper(v, v.cname, v.variant_of.name)
    out.append("\nconst struct cutap_older_variant cutap_older_variants[%d] = {" % max(1, len(variants)))
    for l, g, v in variants:
        caps = captures(v)
        assert v.variant_of.older_modes[g.index] == VARIANT
        out.append("    {.id = CUTAP_ID_%s, .group = %d, .slow = (void *)cutap_slow_%s, .thunk = thunk_%s,"
                   % (v.variant_of.name, g.index, v.cname, v.cname))
        out.append("     .info = {.name = %s, .typed = 1, .nargs = %d, .ncap = %d, .func_arg = -1, .layer = %d,"
                   " .nostatus = %d, .rkind = %s, .tramp = -1," % (c_str(v.name), len(v.params), len(caps), l.index,
                                                                   int(not is_status(v)), result_kind(v)))
        out.append("              .args = %s, .sizes = %s, .caps = %s}},"
                   % ("args_" + v.cname if v.params else "0", "sizes_" + v.cname if v.params else "0",
                      "caps_" + v.cname if caps else "0"))
    if not variants:
        out.append("    {0},")
    out.append("};")
    out.append("const unsigned cutap_older_variant_count = %d;" % len(variants))
    index = {id(v): i for i, (_, _, v) in enumerate(variants)}
    cbids = [(c, f, v) for l in model.layers for c, f, v in getattr(l, "older_cbids", [])]
    out.append("\n/* The runtime callback ids an older major's static runtime reports its calls")
    out.append(" * by that are not the pinned headers' newest (sorted): the function, and")
    out.append(" * the variant that describes the call's parameters (-1: the pinned")
    out.append(" * description, the same signature). */")
    out.append("const struct cutap_older_cbid cutap_older_cbids[%d] = {" % max(1, len(cbids)))
    for c, f, v in cbids:
        out.append("    {%d, %d, CUTAP_ID_%s}," % (c, -1 if v is None else index[id(v)], f.name))
    if not cbids:
        out.append("    {0, -1, 0},")
    out.append("};")
    out.append("const unsigned cutap_older_cbid_count = %d;" % len(cbids))
    unsafe = sorted(c for l in model.layers for c in getattr(l, "unsafe_cbids", []))
    out.append("\n/* The runtime callback ids 13.0 keeps as the newest of their function while")
    out.append(" * an older major reported its other signature by them (sorted): a report")
    out.append(" * by one is recorded untyped, its parameters never read. */")
    out.append("const uint16_t cutap_older_unsafe_cbids[%d] = {%s};" % (max(1, len(unsafe)), ", ".join(map(str, unsafe)) or "0"))
    out.append("const unsigned cutap_older_unsafe_cbid_count = %d;" % len(unsafe))
    return "\n".join(out) + "\n"


def _decode_sets(model):
    """[(layer, group, set name, C text)] for each group with variants."""
    from decode_generator import RESULT_KIND, Fn, tables
    from gen_common import CAPTURE_RECORD_MAX
    out = []
    for l in model.layers:
        for g in l.groups:
            vs = [v for gg, v in l.variants if gg is g]
            if not vs:
                continue
            fns = [Fn(v, l.index, "DEC_ENUM", v.ret_enum) if v.ret_kind == "enum" else
                   Fn(v, l.index, RESULT_KIND[v.ret_kind], None) for v in vs]
            name = "dec_older_%s_%s" % (l.cname, g.tag)
            out.append((l, g, name, tables("lib_older_generator.py", fns, g.enums, g.records, name,
                                           CAPTURE_RECORD_MAX)))
    return out


def generate_all(model):
    sets = _decode_sets(model)
    files = {"src/generated/older_modes.c": modes_c(model),
             "src/generated/lib_older_variants.c": variants_c(model)}
    idx = [cuda_model.banner("lib_older_generator.py"),
           "/* The decoding tables of the functions an older major declares with",
           " * another signature than the pinned headers, by the layer and the",
           " * soname it is bound to (CUTAP_META_LAYER). */",
           '#include "decode_tables.h"\n']
    named = {}
    for l, g, name, text in sets:
        files["cli/generated/decode_older_%s_%s.c" % (l.cname, g.tag)] = text
        idx.append("extern const struct dec_set %s;" % name)
        named[(l.index, g.index)] = name
    groups = [(l, g) for l in model.layers for g in l.groups if g.majors]
    idx.append("\n/* Every older soname whose major's headers were snapshotted. */")
    idx.append("const struct dec_older dec_older[%d] = {" % max(1, len(groups)))
    for l, g in groups:
        name = named.get((l.index, g.index))
        idx.append("    {%d, %s, %s, %s}," % (l.index, c_str(g.soname), c_str(" and ".join(g.majors)),
                                           "&" + name if name else "0"))
    if not groups:
        idx.append("    {-1, 0, 0, 0},")
    idx.append("};")
    idx.append("const unsigned dec_nolder = %d;" % len(groups))
    files["cli/generated/decode_older.c"] = "\n".join(idx) + "\n"
    return files
