"""Generates src/generated/driver_untyped.S: the trampoline stubs of the
driver exports no header declares (in the core: the exported names are the
front's entries, fronts_generator.py, which jump here through cutap_hot).
Each loads its context into %r11 and enters the generic trampoline, which
preserves every argument register and the stack arguments."""
import cuda_model


def stubs(functions, ctx, base):
    """Stub k of array base (16 bytes each: the core finds it by its
    index) loads context k of array ctx into %r11, then enters the generic
    trampoline."""
    out = ["\t.globl %s" % base,
           "\t.hidden %s" % base,
           "\t.type %s,@function" % base,
           "\t.p2align 4",
           "%s:" % base]
    for k, f in enumerate(functions):
        out += [".Lut_%s:" % f.name,
                "\t.cfi_startproc",
                "\tleaq %s+%d(%%rip), %%r11" % (ctx, k * 24),
                "\t.byte 0xe9",
                "\t.long cutap_tramp_common - . - 4",
                "\t.fill 4, 1, 0xcc",
                "\t.cfi_endproc"]
    out += [".if . - %s - %d" % (base, 16 * len(functions)),
            ".error \"untyped stubs are not 16 bytes each\"",
            ".endif",
            "\t.size %s,.-%s" % (base, base)]
    return out


def generate(model):
    out = [cuda_model.banner("untyped_generator.py"), "\t.text"]
    out += stubs([f for f in model.functions if not f.typed], "cutap_untyped_ctx", "cutap_untyped_stubs")
    out.append('\t.section .note.GNU-stack,"",@progbits')
    return "\n".join(out) + "\n"


OUTPUT = "src/generated/driver_untyped.S"
