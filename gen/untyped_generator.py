"""Generates src/generated/driver_untyped.S: exported entry stubs for the
driver exports no header declares. Each loads its context into %r11 and
enters the generic trampoline, which preserves every argument register and
the stack arguments."""
import cuda_model


def stubs(functions, ctx):
    """One exported stub per function: context k of array ctx into %r11,
    then the generic trampoline."""
    out = []
    for k, f in enumerate(functions):
        out += ["\t.globl %s" % f.name,
                "\t.type %s,@function" % f.name,
                "\t.p2align 4",
                "%s:" % f.name,
                "\t.cfi_startproc",
                "\tleaq %s+%d(%%rip), %%r11" % (ctx, k * 24),
                "\tjmp cutap_tramp_common",
                "\t.cfi_endproc",
                "\t.size %s,.-%s" % (f.name, f.name)]
    return out


def generate(model):
    out = [cuda_model.banner("untyped_generator.py"), "\t.text"]
    out += stubs([f for f in model.functions if not f.typed], "cutap_untyped_ctx")
    out.append('\t.section .note.GNU-stack,"",@progbits')
    return "\n".join(out) + "\n"


OUTPUT = "src/generated/driver_untyped.S"
