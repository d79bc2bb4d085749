"""Generates src/generated/driver_wrappers.c: the slow path of each typed
driver export, cutap_slow_<name>, which goes through cutap_dispatch() with
the arguments as words. The exported entry itself is in assembly
(fronts_generator.py): one load of cutap_hot[id], a test and a jump, with
the caller's registers and stack untouched, to the target or to this."""
import cuda_model
from gen_common import from_word, proto, pfn_type, result_to_word, struct_defs, to_word, word_to_result


def generate(model):
    return wrappers(model, "wrappers_generator.py")


def wrappers(model, generator):
    """Typed wrappers of every typed function of model (the driver's or a
    layer's): the same code for every layer."""
    out = [cuda_model.banner(generator),
           '#include "core_internal.h"\n',
           "#pragma GCC diagnostic ignored \"-Wmissing-prototypes\"\n",
           struct_defs(model)]
    for f in model.functions:
        if f.typed:
            out += wrapper(f, f.name, f.name)
    return "\n".join(out) + "\n"


def wrapper(f, cname, id_name):
    """The thunk and the slow path (cutap_slow_<cname>) of typed function
    f, recording under CUTAP_ID_<id_name> (a variant of an older major
    records under its function's id)."""
    n = len(f.params)
    call_args = ", ".join(from_word(p, "a[%d]" % i) for i, p in enumerate(f.params))
    out = ["static uint64_t thunk_%s(void *fn, uint64_t *a)\n{" % cname]
    if not n:
        out.append("    (void)a;")
    out.append("    return %s;\n}" % result_to_word(f, "((%s)fn)(%s)" % (pfn_type(f), call_args)))
    out.append("CUTAP_SLOW %s\n{" % proto(f, "cutap_slow_" + cname))
    words = ", ".join(to_word(p, p.name) for p in f.params)
    out.append("    uint64_t cutap_w[%d] = {%s};" % (max(n, 1), words or "0"))
    disp = "cutap_dispatch(CUTAP_ID_%s, cutap_w, thunk_%s)" % (id_name, cname)
    if f.ret_abi == "void":
        out.append("    (void)%s;\n}" % disp)
    else:
        out.append("    return %s;\n}" % word_to_result(f, disp))
    return out


OUTPUT = "src/generated/driver_wrappers.c"
