"""Generates tests/fake/generated/fake_driver.c: the fake libcuda.so.1 used by
the tests. Every export the real driver has is present; each records its
argument words and counts its calls through fake_call() (tests/fake/fake_core.c),
which also gives a few entry points real behaviour. Exports no header
declares get a fixed test signature (8 integer and 2 double arguments) so
the tests can check that the generic trampoline preserves every register
and stack argument.

It also gives each export its CUPTI callback id (cupti_driver_cbid.h):
the fake libcupti's activity API (tests/fake/fake_cupti_activity.c) knows
a driver call by it, as the real CUPTI does (tests/fake/fake_gpu.c)."""
import os
import re

import cuda_model
from gen_common import fake_word, proto, struct_defs

FLAVOUR = {"": 0, "ptds": 1, "ptsz": 2}
CBID = re.compile(r"^\s*CUPTI_DRIVER_TRACE_CBID_(\w+)\s*=\s*(\d+),")


def driver_cbids():
    """{export name: CUPTI driver callback id} (INVALID, SIZE left out)."""
    out = {}
    for line in open(os.path.join(cuda_model.CUDA_INCLUDE, "cupti_driver_cbid.h")):
        m = CBID.match(line)
        if m and m.group(1) not in ("INVALID", "SIZE", "FORCE_INT"):
            out[m.group(1)] = int(m.group(2))
    return out


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
    cbids = driver_cbids()
    out.append("/* CUPTI's callback id of each export (cupti_driver_cbid.h; 0: none). */")
    out.append("const uint16_t fake_cupti_cbids[CUTAP_DRIVER_COUNT] = {")
    for f in model.functions:
        if f.name in cbids:
            out.append("    [CUTAP_ID_%s] = %d," % (f.name, cbids[f.name]))
    out.append("};")
    return "\n".join(out) + "\n"


OUTPUT = "tests/fake/generated/fake_driver.c"
