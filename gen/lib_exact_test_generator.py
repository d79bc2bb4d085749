"""Generates tests/generated/exact_lib_calls.c: for every function of every
runtime and library layer that has a library (gen/specs/), a case that
takes the function with dlsym from a handle of the fake library
(tests/fake/generated/fake_<layer>.c, opened by soname, RTLD_LOCAL: under
cutap that gives cutap's wrapper), calls it with distinct argument
patterns and a forced result, and checks (tests/exact_lib_main.c) that the
fake received exactly those argument words, once, and that the caller got
exactly that result: a status, a pointer, a count.

Typed functions get their own signature (integers, floats, doubles,
structs by value such as dim3, pointer and void results); the others get
the fake's fixed test signature (8 integers, two on the stack, and 2
doubles), which exercises the generic trampoline.

Pointer arguments point into a zeroed arena, each at its own offset: under
tracing, cutap reads strings and small structs through pointer arguments
(and outputs after a call that returns no status)."""
import cuda_model
from exact_test_generator import arg_decls, value
from gen_common import fake_word, pfn_type, result_to_word, struct_defs, word_to_result
from lib_fake_generator import fake_layers, soname

MAX_WORDS = 40    # fake_lib_core.c keeps this many argument words (FAKE_LIB_MAX_WORDS)


def arg_value(p, fid, i):
    if p.kind == "ptr":
        return "exact_lib_ptr(%du)" % (fid * 32 + i)
    return value(p, fid, i)


def forced_value(f, fid):
    pat = (0xC2B2AE3D27D4EB4F * (fid + 1)) & 0xFFFFFFFFFFFFFFFF
    if f.ret_abi.endswith("*") or f.ret_abi in ("unsigned long", "long", "unsigned long long", "long long"):
        return "0x%xULL" % (pat & 0x7FFFFFFFFFF0)
    return "%du" % (100 + fid % 900)     # an error status: the caller must get it unchanged


def case(f, fid):
    out = ["static int t_%s(void *h)\n{" % f.name, '    void *p = exact_lib_sym(h, "%s");' % f.name,
           "    if (!p) return 1;"]
    if not f.typed:
        out.append("    uint64_t u[8];")
        out.append("    for (int i = 0; i < 8; i++) u[i] = 0x%xULL * (uint64_t)(i + 1);"
                   % ((0x9E3779B97F4A7C15 * (fid + 7)) & 0xFFFFFFFFFFFF))
        out.append("    double d0 = %d.5, d1 = -%d.25;" % (fid % 1000, fid % 777))
        out.append("    uint64_t want[10] = {u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], fake_d2w(d0), fake_d2w(d1)};")
        out.append("    uint64_t forced = exact_lib_force(CUTAP_ID_%s, %du);" % (f.name, 100 + fid % 900))
        out.append("    int r = ((int (*)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,"
                   " double, double))p)(u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], d0, d1);")
        out.append('    return exact_lib_check("%s", CUTAP_ID_%s, want, 10, (uint64_t)r, (uint64_t)(int)forced, 1);\n}'
                   % (f.name, f.name))
        return out
    n = len(f.params)
    assert n <= MAX_WORDS, f.name
    out += arg_decls(f, fid, arg_value)
    out.append("    uint64_t want[%d] = {%s};"
               % (max(n, 1), ", ".join(fake_word(p, "v%d" % i) for i, p in enumerate(f.params)) or "0"))
    args = ", ".join("v%d" % i for i in range(n))
    call = "((%s)p)(%s)" % (pfn_type(f), args)
    if f.ret_abi == "void":
        out.append("    exact_lib_force(CUTAP_ID_%s, 0);" % f.name)
        out.append("    %s;" % call)
        out.append('    return exact_lib_check("%s", CUTAP_ID_%s, want, %d, 0, 0, 0);\n}' % (f.name, f.name, n))
        return out
    out.append("    uint64_t forced = exact_lib_force(CUTAP_ID_%s, %s);" % (f.name, forced_value(f, fid)))
    out.append("    %s r = %s;" % (f.ret_abi, call))
    out.append('    return exact_lib_check("%s", CUTAP_ID_%s, want, %d, %s, %s, 1);\n}'
               % (f.name, f.name, n, result_to_word(f, "r"), result_to_word(f, word_to_result(f, "forced"))))
    return out


def generate(model):
    layers = fake_layers(model)
    structs = {}
    for l in layers:
        for name, d in l.model.structs.items():
            assert structs.setdefault(name, d) == d, name
    m = cuda_model.Model()
    m.structs = structs
    out = [cuda_model.banner("lib_exact_test_generator.py"), '#include "exact_lib_internal.h"\n', struct_defs(m)]
    fid = 0
    for l in layers:
        for f in l.functions:
            out += case(f, fid)
            fid += 1
    for l in layers:
        out.append("static const struct exact_case cases_%s[] = {" % l.cname)
        for f in l.functions:
            out.append('    {"%s", t_%s},' % (f.name, f.name))
        out.append("};")
    out.append("const struct exact_lib_layer exact_lib_layers[] = {")
    for l in layers:
        out.append('    {"%s", "%s", cases_%s, %d},' % (l.name, soname(l), l.cname, len(l.functions)))
    out.append("};")
    out.append("const unsigned exact_lib_nlayers = %d;" % len(layers))
    return "\n".join(out) + "\n"


OUTPUT = "tests/generated/exact_lib_calls.c"
