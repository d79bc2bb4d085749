"""Generates the tests' fakes of older CUDA majors and the program that
calls them (issue #11: a program built against CUDA 11 or 12 must run
unchanged under cutap, every call recorded once).

For each layer whose library changed its soname with older majors
("older" in gen/specs/<layer>.py), two functions get another signature in the old
fake than CUDA 13.0 declares, as real functions did between majors:

  more   the old function takes more arguments than 13.0 declares (9 in
         all: three on the stack), like cudaMemcpyBatchAsync (9 in 12.8,
         8 in 13.0);
  out    13.0 declares output pointers the old function does not take
         (it ends before 13.0's last output), like cudaStreamGetCaptureInfo
         (3 in 12.0, 7 in 13.0): the old caller leaves anything in those
         registers. It fails (status 1): the call must still count as an
         error, its result type being the same in every major.

Both are picked from the model by rule (the first typed function of the
layer, by name, that returns a status and takes only integers, enums and
pointers: 'more' with at most 6 arguments, 'out' with at most 6 one of which
has an output cutap copies), never from a list of names.

  tests/fake/generated/fake_old_major.c   the old signatures, one section
      per layer (-DFAKE_LIB_<layer>); linked before the generated fake, so
      they replace its functions of those names. Each prints the argument
      words it got that the program can know in advance.
  tests/generated/t_old_major.c           the program: for a CUDA major
      (-DERA=12 or 11), each layer's old functions, and a few calls that
      nest (cudaMalloc > cuMemAlloc_v2, cublasSgemm_v2 > cublasLtMatmul >
      cuLaunchKernel), through the PLT (-DLINKED, versioned references)
      or dlopen + dlsym of the old sonames.
  tests/fake/generated/old_major.mk       the old fakes and programs.
"""
import cuda_model
from gen_common import captures
from lib_table_generator import is_status

SIMPLE = ("int", "uint", "ptr", "enum")


def simple(f):
    return f.typed and is_status(f) and all(p.kind in SIMPLE for p in f.params)


def pick(layer):
    more = next(f for f in layer.functions if simple(f) and len(f.params) <= 6)
    out = next(f for f in layer.functions if simple(f) and len(f.params) <= 6 and f is not more and
               any(c.startswith("CUTAP_CAP_OUT") for _, c, _ in captures(f)))
    return more, out


def old_nargs(f):
    """The 'out' function's old argument count: up to its last output."""
    return max(i for i, c, _ in captures(f) if c.startswith("CUTAP_CAP_OUT"))


def old_layers(model):
    return [l for l in model.layers if l.spec.get("older")]


def key(layer):
    return layer.cname


ERAS = ("12", "11")


def fake_c(model):
    out = [cuda_model.banner("old_major_generator.py"), "#include <stdio.h>",
           '#include "fake_lib_internal.h"\n', "#pragma GCC diagnostic ignored \"-Wmissing-prototypes\"\n"]
    for l in old_layers(model):
        more, o = pick(l)
        nm, no = len(more.params), old_nargs(o)
        out.append("#ifdef FAKE_LIB_%s" % key(l))
        out.append("/* %s: 9 arguments (13.0 declares %d). */" % (more.name, nm))
        out.append("FAKE_EXPORT unsigned %s(%s)\n{" % (more.name, ", ".join("uint64_t a%d" % i for i in range(9))))
        out.append("    uint64_t w[9] = {%s};" % ", ".join("a%d" % i for i in range(9)))
        out.append("    fake_lib_call(CUTAP_ID_%s, w, 9);" % more.name)
        ints = [i for i in range(9) if i >= nm or more.params[i].kind != "ptr"]
        out.append('    printf("fake %s:%s\\n", %s);' % (more.name, "".join(" %llx" for _ in ints),
                                                         ", ".join("(unsigned long long)a%d" % i for i in ints)))
        out.append("    fflush(stdout);\n    return 0;\n}")
        out.append("/* %s: %d arguments (13.0 declares %d, argument %d an output). */"
                   % (o.name, no, len(o.params), no))
        out.append("FAKE_EXPORT unsigned %s(%s)\n{" % (o.name, ", ".join("uint64_t a%d" % i for i in range(no)) or "void"))
        out.append("    uint64_t w[%d] = {%s};" % (max(no, 1), ", ".join("a%d" % i for i in range(no)) or "0"))
        out.append("    fake_lib_call(CUTAP_ID_%s, w, %d);" % (o.name, no))
        ints = [i for i in range(no) if o.params[i].kind != "ptr"]
        out.append('    printf("fake %s:%s\\n"%s);' % (o.name, "".join(" %llx" for _ in ints),
                                                      "".join(", (unsigned long long)a%d" % i for i in ints)))
        out.append("    fflush(stdout);\n    return 1;   /* a failure: counted as an error though untyped */\n}")
        out.append("#endif\n")
    return "\n".join(out)


def program_c(model):
    out = [cuda_model.banner("old_major_generator.py"),
           "/* Built with -DERA=12 or -DERA=11, and -DLINKED (PLT references to the",
           " * old fakes) or not (dlopen + dlsym of the old sonames). */",
           "#include <stdint.h>", "#include <stdio.h>", "#include <string.h>",
           '#include "old_major_internal.h"\n']
    for era in ERAS:
        out.append("#if ERA == %s" % era)
        layers = [l for l in old_layers(model) if era in l.spec["older"]]
        for l in layers:
            more, o = pick(l)
            out.append("OLD_DECL(%s, (%s))" % (more.name, ", ".join(["uint64_t"] * 9)))
            out.append("OLD_DECL(%s, (%s))" % (o.name, ", ".join(["uint64_t"] * old_nargs(o)) or "void"))
        out.append("static void calls(void)\n{")
        for l in layers:
            more, o = pick(l)
            so = l.spec["older"][era]
            out.append('    OLD_OPEN("%s");' % so)
            words = ", ".join("OLD_PTR" if i < len(more.params) and more.params[i].kind == "ptr"
                              else "0x%x" % (0x5a00 + 0x11 * i) for i in range(9))
            out.append('    OLD_SYM("%s", %s);' % (so, more.name))
            out.append('    OLD_CALL("%s", %s(%s));' % (more.name, more.name, words))
            no = old_nargs(o)
            regs = ["OLD_PTR" if o.params[i].kind == "ptr" else "0x%x" % (0x6b00 + 0x11 * i) for i in range(no)]
            regs += ["OLD_POISON"] * (6 - no)
            out.append('    OLD_SYM("%s", %s);' % (so, o.name))
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
            so = l.spec["older"].get(era)
            if so:
                names.append(so)
                fakes[so] = (key(l), l.spec["sonames"][0], era)
        out.append("OLD_FAKES_%s := %s" % (era, " ".join(names)))
    for so, (k, pinned, era) in sorted(fakes.items()):
        out.append("old_layer_%s := %s" % (so, k))
        out.append("old_pinned_%s := %s" % (so, pinned))
    return "\n".join(out) + "\n"


def generate_all(model):
    return {"tests/fake/generated/fake_old_major.c": fake_c(model),
            "tests/generated/t_old_major.c": program_c(model),
            "tests/fake/generated/old_major.mk": make(model)}
