"""Generates tests/fake/generated/fake_driver.c: the fake libcuda.so.1 used by
the tests. Every export the real driver has is present; each records its
argument words and counts its calls through fake_call() (tests/fake/fake_core.c),
which also gives a few entry points real behaviour. Exports no header
declares get a fixed test signature (8 integer and 2 double arguments) so
the tests can check that the generic trampoline preserves every register
and stack argument."""
import cuda_model
from gen_common import fake_word, proto, struct_defs

FLAVOUR = {"": 0, "ptds": 1, "ptsz": 2}


def generate(model):
    out = [cuda_model.banner("fake_generator.py"), '#include "fake_internal.h"\n',
           "#pragma GCC diagnostic ignored \"-Wmissing-prototypes\"\n", struct_defs(model)]
    for f in model.functions:
        if f.typed:
            n = len(f.params)
            out.append("FAKE_EXPORT %s\n{" % proto(f))
            out.append("    uint64_t fake_w[%d] = {%s};" % (max(n, 1), ", ".join(fake_word(p, p.name) for p in f.params) or "0"))
            ret = "(%s)" % f.ret_abi if f.ret_abi != "void" else "(void)"
            out.append("    %sfake_call(CUTAP_ID_%s, fake_w, %d);\n}" % ("return " + ret if f.ret_abi != "void" else ret, f.name, n))
        else:
            out.append("FAKE_EXPORT int %s(FAKE_UNTYPED_PARAMS)\n{" % f.name)
            out.append("    FAKE_UNTYPED_WORDS(a);")
            out.append("    return (int)fake_call(CUTAP_ID_%s, a, 10);\n}" % f.name)
    out.append("\nconst char *const fake_names[CUTAP_DRIVER_COUNT] = {")
    for f in model.functions:
        out.append('    "%s",' % f.name)
    out.append("};")
    out.append("/* Own addresses, bound at link time (-Bsymbolic): what a driver hands out. */")
    out.append("void *const fake_addresses[CUTAP_DRIVER_COUNT + 1] = {")
    for f in model.functions:
        out.append("    (void *)%s," % f.name)
    out.append("    (void *)cuFutureFunction,")
    out.append("};")
    out.append("const struct fake_procaddr fake_procaddr_table[] = {")
    for base, ver, fl, exp in model.versions:
        out.append('    {"%s", %d, %d, "%s"},' % (base, ver, FLAVOUR[fl], exp))
    out.append("};")
    out.append("const unsigned fake_procaddr_count = %d;" % len(model.versions))
    return "\n".join(out) + "\n"


OUTPUT = "tests/fake/generated/fake_driver.c"
