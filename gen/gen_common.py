"""Helpers shared by the cutap generators (conversion of argument words,
what the recorder captures)."""


def c_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_word(p, expr):
    """C expression turning parameter value expr into a uint64_t word."""
    if p.kind == "ptr":
        return "(uint64_t)(uintptr_t)%s" % expr
    if p.kind == "float":
        return "cutap_f2w(%s)" % expr
    if p.kind == "double":
        return "cutap_d2w(%s)" % expr
    if p.kind == "struct":
        return "(uint64_t)(uintptr_t)&%s" % expr
    if p.kind == "int":
        return "(uint64_t)(int64_t)%s" % expr
    return "(uint64_t)%s" % expr


def fake_word(p, expr):
    """Like to_word, as the fake driver records it: a struct passed by value
    becomes a hash of its bytes (its address means nothing to the test)."""
    if p.kind == "struct":
        return "fake_struct_word(&%s, sizeof %s)" % (expr, expr)
    return to_word(p, expr).replace("cutap_f2w", "fake_f2w").replace("cutap_d2w", "fake_d2w")


def from_word(p, expr):
    """C expression turning word expr back into the parameter's ABI type."""
    if p.kind == "ptr":
        return "(void *)(uintptr_t)%s" % expr
    if p.kind == "float":
        return "cutap_w2f(%s)" % expr
    if p.kind == "double":
        return "cutap_w2d(%s)" % expr
    if p.kind == "struct":
        return "*(%s *)(uintptr_t)%s" % (p.abi, expr)
    return "(%s)%s" % (p.abi, expr)


def proto(f, name=None):
    params = ", ".join(("%s%s" if p.abi.endswith("*") else "%s %s") % (p.abi, p.name)
                       for p in f.params) or "void"
    return "%s %s(%s)" % (f.ret_abi, name or f.name, params)


def pfn_type(f):
    return "%s (*)(%s)" % (f.ret_abi, ", ".join(p.abi for p in f.params) or "void")


def struct_defs(model):
    out = []
    for name, (fields, size, align) in sorted(model.structs.items()):
        out.append("struct %s {" % name)
        for t, n in fields:
            out.append("    %s %s;" % (t, n))
        out.append("} __attribute__((aligned(%d)));" % align)
        out.append("_Static_assert(sizeof(struct %s) == %d, \"%s\");" % (name, size, name))
    return "\n".join(out) + "\n"


def result_to_word(f, expr):
    if f.ret_abi == "void":
        return "(%s, (uint64_t)0)" % expr
    if f.ret_abi.endswith("*"):
        return "(uint64_t)(uintptr_t)%s" % expr
    return "(uint64_t)%s" % expr


def word_to_result(f, expr):
    """C expression turning a result word back into the function's result type."""
    if f.ret_abi.endswith("*"):
        return "(%s)(uintptr_t)%s" % (f.ret_abi, expr)
    return "(%s)%s" % (f.ret_abi, expr)


# Non-const pointer parameters the callee only reads (input arrays and
# structs the headers declare without const): the pointer rules would
# capture them as outputs. A struct among them is copied before the call.
INPUT_POINTERS = {
    "kernelParams", "extra",                                   # launches
    "options", "optionValues", "jitOptions", "jitOptionsValues",  # JIT/library options
    "libraryOptions", "libraryOptionValues",
    "dsts", "srcs", "sizes", "attrsIdxs", "attrs",             # cuMemcpyBatchAsync
    "paramArray", "paramsArray", "launchParamsList",           # batches
    "prefetchLocs", "resources", "attributes", "pBorderColor",
    "dependencies", "location", "ctxCreateParams", "args",
}
CAPTURE_RECORD_MAX = 64     # largest struct/union copied through a pointer
SCALARS = ("int", "uint", "enum", "float", "double", "ptr")


def capture(p, device_arrays=False):
    """(CUTAP_CAP_* name, size) of what the recorder copies for parameter p, or None.

    device_arrays: the function belongs to a library whose non-const
    pointers to numbers or structs are mostly arrays in device memory
    (cuBLAS's float *C, cuSOLVER's int *devInfo, cuComplex *x): reading
    them from the host would fault. There only strings and pointers to
    handles or pointers (cublasHandle_t *, void **) are copied."""
    t = p.type
    if t.kind != "ptr" or t.pointee is None:
        return None
    pt = t.pointee
    if pt.char:
        return ("CUTAP_CAP_IN_STR" if pt.const else "CUTAP_CAP_OUT_STRBUF"), 0
    if pt.kind == "ptr" and not pt.const and pt.pointee is not None and pt.pointee.char and pt.pointee.const:
        return "CUTAP_CAP_OUT_STRPTR", 0
    if device_arrays:
        if pt.kind == "ptr" and not pt.const and pt.size == 8 and p.name not in INPUT_POINTERS:
            return "CUTAP_CAP_OUT_BYTES", 8
        return None
    if pt.kind == "record" and 0 < pt.size <= CAPTURE_RECORD_MAX:
        inp = pt.const or p.name in INPUT_POINTERS
        return ("CUTAP_CAP_IN_BYTES" if inp else "CUTAP_CAP_OUT_BYTES"), pt.size
    if pt.kind in SCALARS and 1 <= pt.size <= 8 and not pt.const and p.name not in INPUT_POINTERS:
        return "CUTAP_CAP_OUT_BYTES", pt.size
    return None


def captures(f):
    """[(argument index, CUTAP_CAP_* name, size)] of a function, in argument order."""
    if not f.typed:
        return []
    dev = getattr(f, "device_arrays", False)
    return [(i,) + c for i, p in enumerate(f.params) for c in [capture(p, dev)] if c]
