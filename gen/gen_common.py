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


def struct_def(name, definition):
    """C lines defining a struct passed by value (model.structs' entries)."""
    fields, size, align = definition
    return (["struct %s {" % name] + ["    %s %s;" % (t, n) for t, n in fields] +
            ["} __attribute__((aligned(%d)));" % align,
             "_Static_assert(sizeof(struct %s) == %d, \"%s\");" % (name, size, name)])


def struct_defs(model):
    out = []
    for name, d in sorted(model.structs.items()):
        out += struct_def(name, d)
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


CAPTURE_RECORD_MAX = 64     # largest struct/union copied through a pointer
SCALARS = ("int", "uint", "enum", "float", "double", "ptr")


def capture_rule(p, device_arrays=False, roles=None):
    """((CUTAP_CAP_* name, size) or None, why) of what the recorder copies
    for parameter p.

    The generic rules, from the parameter's type; roles (parameter name ->
    'in', 'none' or 'out': the function's "args" in its spec,
    gen/specs/<layer>.py) override them for the parameters they name.

    device_arrays: the function belongs to a library whose non-const
    pointers to numbers or structs are mostly arrays in device memory
    (cuBLAS's float *C, cuSOLVER's int *devInfo, cuComplex *x): reading
    them from the host would fault. There only strings and pointers to
    handles or pointers (cublasHandle_t *, void **) are copied."""
    role = (roles or {}).get(p.name)
    spec = " (spec: args %r)" % role if role else ""
    t = p.type
    if t.kind != "ptr" or t.pointee is None:
        return None, "a value: its word"
    if role == "none":
        return None, "never copied" + spec
    pt = t.pointee
    if pt.char:
        if pt.const:
            return ("CUTAP_CAP_IN_STR", 0), "a string, copied before the call"
        return ("CUTAP_CAP_OUT_STRBUF", 0), "a string buffer, copied after a successful call"
    if pt.kind == "ptr" and not pt.const and pt.pointee is not None and pt.pointee.char and pt.pointee.const:
        return ("CUTAP_CAP_OUT_STRPTR", 0), "a string output, copied after a successful call"
    if device_arrays and role != "out":
        if pt.kind == "ptr" and not pt.const and pt.size == 8 and role != "in":
            return ("CUTAP_CAP_OUT_BYTES", 8), "a handle or pointer output, copied after a successful call"
        cap, why = capture_rule(p, False, roles)
        return None, why if cap is None else "not read: may be device memory (device_arrays)"
    if pt.kind == "record" and 0 < pt.size <= CAPTURE_RECORD_MAX:
        if (pt.const or role == "in") and role != "out":
            return ("CUTAP_CAP_IN_BYTES", pt.size), "a struct the callee reads, copied before the call" + spec
        return ("CUTAP_CAP_OUT_BYTES", pt.size), "a struct output, copied after a successful call" + spec
    if pt.kind in SCALARS and 1 <= pt.size <= 8 and (not pt.const or role == "out") and role != "in":
        return ("CUTAP_CAP_OUT_BYTES", pt.size), "an output, copied after a successful call" + spec
    if role == "in":
        return None, "read by the callee, not copied" + spec
    if pt.kind == "record":
        return None, ("a handle (pointer to an opaque struct)" if pt.size <= 0 else
                      "a struct over %d bytes: not copied" % CAPTURE_RECORD_MAX)
    if pt.kind in ("void", "func"):
        return None, "a pointer to %s: its word" % ("code" if pt.kind == "func" else "anything")
    if pt.const:
        return None, "a pointer to const data (an input array): not copied"
    return None, "not copied"


def capture(p, device_arrays=False, roles=None):
    """(CUTAP_CAP_* name, size) of what the recorder copies for parameter p, or None."""
    return capture_rule(p, device_arrays, roles)[0]


def captures(f):
    """[(argument index, CUTAP_CAP_* name, size)] of a function, in argument order."""
    if not f.typed:
        return []
    dev, roles = getattr(f, "device_arrays", False), getattr(f, "arg_roles", {})
    return [(i,) + c for i, p in enumerate(f.params) for c in [capture(p, dev, roles)] if c]
