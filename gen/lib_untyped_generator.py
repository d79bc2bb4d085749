"""Generates src/generated/lib_untyped.S: the trampoline stubs of the
functions of the runtime and library layers that have no typed wrapper
(declared in no header, or with a float/struct result), reached from
their entries (fronts_generator.py) through cutap_hot. Each loads its
context into %r11 and enters the generic trampoline, like the driver's
(untyped_generator.py)."""
import cuda_model
from untyped_generator import stubs


def untyped(model):
    return [f for l in model.layers for f in l.functions if not f.typed]


def generate(model):
    out = [cuda_model.banner("lib_untyped_generator.py"), "\t.text"]
    out += stubs(untyped(model), "cutap_lib_untyped_ctx", "cutap_lib_untyped_stubs")
    out.append('\t.section .note.GNU-stack,"",@progbits')
    return "\n".join(out) + "\n"


OUTPUT = "src/generated/lib_untyped.S"
