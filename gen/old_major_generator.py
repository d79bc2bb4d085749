"""Generates the tests' fakes of older CUDA majors and the program that
calls them (issues #11 and #28: a program built against CUDA 11 or 12 runs
unchanged under cutap, every call recorded once, typed wherever that
major's headers describe it).

For each layer whose library had another soname in an older major ("older"
in gen/specs/<layer>.py), the old fake is the generated fake rebuilt with
that soname and version node, with these functions taking the place of the
generated ones (first definition wins), as the real library of that major
has them (gen/older_model.py, from gen/snapshots/cuda-*):

  variants   every function that major's headers declare with another
             signature than 13.0's (cudaGraphInstantiate: 5 arguments in
             11.8, 3 in 13.0; cudaMemPrefetchAsync: an int device in 12.4,
             a cudaMemLocation by value in 13.0; cudaStreamGetCaptureInfo:
             3 in 11.8, 7 in 13.0; cusparse's descriptors without const):
             that signature, by value structs included. cutap must type
             them with it: every word the program passed reaches the fake
             unchanged, and the record holds those words under that
             major's parameter names.
  more, out  two functions that major's headers do not declare (cutap
             records them untyped), given another signature than 13.0
             declares: 'more' takes 9 arguments (three on the stack),
             'out' ends before 13.0's last output (the old caller leaves
             anything in those registers) and fails (status 1), which must
             still count as an error. Picked by rule (the first such
             function of the layer, by name, that returns a status and
             takes only integers, enums and pointers; 'out' with an output
             cutap copies), never from a list of names.

Functions of that major's that 13.0 no longer has (cudaBindTexture, ...)
are in the generated fakes with that major's signature.

  tests/fake/generated/fake_old_major.c   one section per layer and older
      soname (-DFAKE_LIB_<layer> -DFAKE_GROUP=<k>); each function prints
      the words it got ("fake NAME: w0 w1 ...", a struct by value as
      s<hash>).
  tests/generated/t_old_major.c           the program: for a CUDA major
      (-DERA=12 or 11), each layer's functions above, with known words,
      each announced on stderr with what its record must hold ("TYPED
      NAME N WORDS NAMES", "UNTYPED NAME"; the words differ from run to
      run), and a few calls that nest (cudaMalloc >
      cuMemAlloc_v2, cublasSgemm_v2 > cublasLtMatmul > cuLaunchKernel),
      through the PLT (-DLINKED, versioned references) or dlopen + dlsym.
  tests/fake/generated/old_major.mk       the old fakes and programs.
"""
import cuda_model
from gen_common import captures, fake_word
from lib_older_generator import variant_struct_defs
from lib_table_generator import is_status
from older_model import UNTYPED

SIMPLE = ("int", "uint", "ptr", "enum")
ERAS = ("12", "11")


def simple(f):
    return f.typed and is_status(f) and all(p.kind in SIMPLE for p in f.params)


def old_layers(model):
    return [l for l in model.layers if l.spec.get("older")]


def group_of(layer, era):
    so = layer.spec["older"].get(era)
    return next((g for g in layer.groups if g.soname == so), None)


def pick(layer, g):
    """'more' and 'out': functions g's headers do not declare."""
    cands = [f for f in layer.functions if simple(f) and f.older_modes[g.index] == UNTYPED and len(f.params) <= 6
             and not getattr(f, "older_only", None)]
    more = next((f for f in cands), None)
    out = next((f for f in cands if f is not more and any(c.startswith("CUTAP_CAP_OUT") for _, c, _ in captures(f))),
               None)
    return more, out


def old_nargs(f):
    """The 'out' function's old argument count: up to its last output."""
    return max(i for i, c, _ in captures(f) if c.startswith("CUTAP_CAP_OUT"))


def variants(layer, g):
    return [v for gg, v in layer.variants if gg is g and v.ret_kind == "enum"]


def key(layer):
    return layer.cname


def struct_defs(model):
    return variant_struct_defs([(g, v) for l in old_layers(model) for g, v in l.variants])


def _param(p, i):
    return "%s%s" % (p.abi, "" if p.abi.endswith("*") else " ") + "a%d" % i


def fake_c(model):
    out = [cuda_model.banner("old_major_generator.py"), "#include <stdio.h>", "#include <stdint.h>",
           '#include "fake_lib_internal.h"\n', "#pragma GCC diagnostic ignored \"-Wmissing-prototypes\"\n"]
    out += struct_defs(model)
    for l in old_layers(model):
        for g in l.groups:
            out.append("\n#if defined(FAKE_LIB_%s) && FAKE_GROUP == %d   /* %s */" % (key(l), g.index, g.soname))
            for v in variants(l, g):
                n = len(v.params)
                out.append("/* %s as CUDA %s declares it (13.0: %d arguments) */"
                           % (v.name, " and ".join(g.majors), len(v.variant_of.params)))
                out.append("FAKE_EXPORT unsigned %s(%s)\n{" % (v.name, ", ".join(_param(p, i) for i, p in enumerate(v.params)) or "void"))
                out.append("    uint64_t w[%d] = {%s};" % (max(n, 1), ", ".join(fake_word(p, "a%d" % i) for i, p in enumerate(v.params)) or "0"))
                out.append("    fake_lib_call(CUTAP_ID_%s, w, %d);" % (v.name, n))
                # every word whole (the programs are built -no-pie: their
                # buffer's address is the same in the bare and the traced run)
                fmt = "".join(" s%llx" if p.kind == "struct" else " %llx" for p in v.params)
                out.append('    printf("fake %s:%s\\n"%s);' % (v.name, fmt, "".join(
                    ", (unsigned long long)w[%d]" % i for i in range(len(v.params)))))
                out.append("    fflush(stdout);\n    return 0;\n}")
            more, o = pick(l, g)
            if more:
                nm = len(more.params)
                out.append("/* %s: 9 arguments (13.0 declares %d; CUDA %s's headers do not declare it) */"
                           % (more.name, nm, " and ".join(g.majors) or "?"))
                out.append("FAKE_EXPORT unsigned %s(%s)\n{" % (more.name, ", ".join("uint64_t a%d" % i for i in range(9))))
                out.append("    uint64_t w[9] = {%s};" % ", ".join("a%d" % i for i in range(9)))
                out.append("    fake_lib_call(CUTAP_ID_%s, w, 9);" % more.name)
                ints = [i for i in range(9) if i >= nm or more.params[i].kind != "ptr"]
                out.append('    printf("fake %s:%s\\n", %s);' % (more.name, "".join(" %llx" for _ in ints),
                                                                 ", ".join("(unsigned long long)a%d" % i for i in ints)))
                out.append("    fflush(stdout);\n    return 0;\n}")
            if o:
                no = old_nargs(o)
                out.append("/* %s: %d arguments (13.0 declares %d, argument %d an output) */"
                           % (o.name, no, len(o.params), no))
                out.append("FAKE_EXPORT unsigned %s(%s)\n{" % (o.name, ", ".join("uint64_t a%d" % i for i in range(no)) or "void"))
                out.append("    uint64_t w[%d] = {%s};" % (max(no, 1), ", ".join("a%d" % i for i in range(no)) or "0"))
                out.append("    fake_lib_call(CUTAP_ID_%s, w, %d);" % (o.name, no))
                ints = [i for i in range(no) if o.params[i].kind != "ptr"]
                out.append('    printf("fake %s:%s\\n"%s);' % (o.name, "".join(" %llx" for _ in ints),
                                                              "".join(", (unsigned long long)a%d" % i for i in ints)))
                out.append("    fflush(stdout);\n    return 1;   /* a failure: counted as an error though untyped */\n}")
            out.append("#endif")
    return "\n".join(out) + "\n"


def _value(p, i):
    """(C argument expression, expected record word or '-') of parameter i"""
    if p.kind == "ptr":
        return "(%s)(old_buf + %d)" % (p.abi, 64 * i), "OLD_PTR + %d" % (64 * i)
    if p.kind in ("int", "uint", "enum"):
        v = 0x5a00 + 0x11 * i
        return "(%s)0x%x" % (p.abi, v), "0x%x" % v
    if p.kind in ("float", "double"):
        return "(%s)%d.5" % (p.abi, i), None
    return "old_sv%d_%s" % (i, p.struct), None


def program_c(model):
    out = [cuda_model.banner("old_major_generator.py"),
           "/* Built with -DERA=12 or -DERA=11, and -DLINKED (PLT references to the",
           " * old fakes) or not (dlopen + dlsym of the old sonames). */",
           "#include <stdint.h>", "#include <stdio.h>", "#include <string.h>",
           '#include "old_major_internal.h"\n']
    out += struct_defs(model)
    for era in ERAS:
        out.append("\n#if ERA == %s" % era)
        layers = [(l, group_of(l, era)) for l in old_layers(model) if group_of(l, era)]
        structs = {}
        for l, g in layers:
            for v in variants(l, g):
                out.append("OLD_DECL(%s, (%s))" % (v.name, ", ".join(p.abi for p in v.params) or "void"))
                for i, p in enumerate(v.params):
                    if p.kind == "struct":
                        structs["old_sv%d_%s" % (i, p.struct)] = (p.struct, i)
            more, o = pick(l, g)
            if more:
                out.append("OLD_DECL(%s, (%s))" % (more.name, ", ".join(["uint64_t"] * 9)))
            if o:
                out.append("OLD_DECL(%s, (%s))" % (o.name, ", ".join(["uint64_t"] * old_nargs(o)) or "void"))
        for var, (st, i) in sorted(structs.items()):
            out.append("static struct %s %s;" % (st, var))
        out.append("static void calls(void)\n{")
        for var, (st, i) in sorted(structs.items()):
            out.append("    memset(&%s, 0x%x, sizeof %s);" % (var, 0x40 + i, var))
        for l, g in layers:
            so = l.spec["older"][era]
            out.append('    OLD_OPEN("%s");' % so)
            for v in variants(l, g):
                vals = [_value(p, i) for i, p in enumerate(v.params)]
                out.append('    OLD_SYM("%s", %s);' % (so, v.name))
                words = " ".join("%llx" if w else "-" for _, w in vals)
                out.append('    fprintf(stderr, "TYPED %s %d %s %s\\n"%s);' % (
                    v.name, len(v.params), words, ",".join(p.name for p in v.params) or "-",
                    "".join(", (unsigned long long)(%s)" % w for _, w in vals if w)))
                out.append('    OLD_CALL("%s", %s(%s));' % (v.name, v.name, ", ".join(a for a, _ in vals)))
            more, o = pick(l, g)
            if more:
                words = ", ".join("OLD_PTR" if i < len(more.params) and more.params[i].kind == "ptr"
                                  else "0x%x" % (0x5a00 + 0x11 * i) for i in range(9))
                out.append('    OLD_SYM("%s", %s);' % (so, more.name))
                out.append('    fprintf(stderr, "UNTYPED %s\\n");' % more.name)
                out.append('    OLD_CALL("%s", %s(%s));' % (more.name, more.name, words))
            if o:
                no = old_nargs(o)
                regs = ["OLD_PTR" if o.params[i].kind == "ptr" else "0x%x" % (0x6b00 + 0x11 * i) for i in range(no)]
                regs += ["OLD_POISON"] * (6 - no)
                out.append('    OLD_SYM("%s", %s);' % (so, o.name))
                out.append('    fprintf(stderr, "UNTYPED %s\\n");' % o.name)
                out.append('    OLD_CALL6("%s", %s, %s);' % (o.name, o.name, ", ".join(regs)))
        out.append("}")
        out.append("#endif")
    out.append("\nOLD_MAIN()")
    return "\n".join(out) + "\n"


def make(model):
    out = ["# DO NOT EDIT. Generated by gen/old_major_generator.py from the CUDA 13.0 headers",
           "# (see gen/known_good.json); regenerate with `make regen`.", ""]
    fakes = {}
    for era in ERAS:
        names = []
        for l in old_layers(model):
            g = group_of(l, era)
            if g:
                names.append(g.soname)
                fakes[g.soname] = (key(l), l.spec["sonames"][0], g.index)
        out.append("OLD_FAKES_%s := %s" % (era, " ".join(names)))
    for so, (k, pinned, gi) in sorted(fakes.items()):
        out.append("old_layer_%s := %s" % (so, k))
        out.append("old_pinned_%s := %s" % (so, pinned))
        out.append("old_group_%s := %d" % (so, gi))
    return "\n".join(out) + "\n"


def generate_all(model):
    return {"tests/fake/generated/fake_old_major.c": fake_c(model),
            "tests/generated/t_old_major.c": program_c(model),
            "tests/fake/generated/old_major.mk": make(model)}
