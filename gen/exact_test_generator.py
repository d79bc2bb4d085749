"""Generates tests/generated/exact_calls.c: calls every typed driver export
through the pointer dlsym gives (cutap's wrapper when preloaded) with
distinct argument patterns and a forced driver result, and checks that the
fake driver received exactly those argument words and that the caller got
exactly that result. Covers every wrapper: 11-argument cuLaunchKernel (five
on the stack), float and double arguments, structs passed by value."""
import cuda_model
from gen_common import fake_word, pfn_type, struct_defs


def value(p, fid, i):
    pat = (0x9E3779B97F4A7C15 * (fid * 16 + i + 1)) & 0xFFFFFFFFFFFFFFFF
    if p.kind == "ptr":
        return "(void *)(uintptr_t)0x%xULL" % (pat & 0x7FFFFFFFFFF8)
    if p.kind == "float":
        return "%d.25f" % ((fid + i) % 1000)
    if p.kind == "double":
        return "%d.125" % ((fid * 7 + i) % 100000)
    if p.kind == "struct":
        return None
    return "(%s)0x%xULL" % (p.abi, pat)


def arg_decls(f, fid, value_of):
    """C declarations v0, v1, ... of f's arguments with distinct patterns
    (value_of(p, fid, i)); structs passed by value filled with one byte."""
    out = []
    for i, p in enumerate(f.params):
        v = value_of(p, fid, i)
        if v is None:
            out.append("    %s v%d;" % (p.abi, i))
            out.append("    memset(&v%d, 0x%02x, sizeof v%d);" % (i, (fid + i) % 251 + 1, i))
        else:
            out.append("    %s v%d = %s;" % (p.abi, i, v))
    return out


def generate(model):
    out = [cuda_model.banner("exact_test_generator.py"),
           '#include "exact_internal.h"\n', struct_defs(model)]
    names = []
    for fid, f in enumerate(model.functions):
        if not f.typed or f.ret_abi == "void":
            continue
        names.append(f.name)
        out.append("static int t_%s(void *h)\n{" % f.name)
        out.append('    void *p = dlsym(h, "%s");' % f.name)
        out.append('    if (!p) return exact_missing("%s");' % f.name)
        out.append("    if (fake_is_special(CUTAP_ID_%s)) return 0;" % f.name)
        out += arg_decls(f, fid, value)
        n = len(f.params)
        out.append("    uint64_t want[%d] = {%s};" % (max(n, 1), ", ".join(fake_word(p, "v%d" % i) for i, p in enumerate(f.params)) or "0"))
        out.append("    int forced = exact_forced_result(CUTAP_ID_%s);" % f.name)
        out.append("    %s r = ((%s)p)(%s);" % (f.ret_abi, pfn_type(f), ", ".join("v%d" % i for i in range(n))))
        out.append('    return exact_check("%s", CUTAP_ID_%s, want, %d, (int)r, forced);\n}' % (f.name, f.name, n))
    out.append("const struct exact_case exact_cases[] = {")
    for n in names:
        out.append('    {"%s", t_%s},' % (n, n))
    out.append("};")
    out.append("const unsigned exact_ncases = %d;" % len(names))
    return "\n".join(out) + "\n"


OUTPUT = "tests/generated/exact_calls.c"
