"""Generates src/generated/fronts.S: the exported entry of every typed
function, of the driver and of each layer.

    name:   movq cutap_hot+8*id(%rip), %r11
            testq %r11, %r11
            jz cutap_slow_name          typed slow path (C, *_wrappers.c)
            jmp *%r11                   the real function, a trampoline
                                        stub or a resolver stub

In assembly, not C, because the target must get the caller's registers and
stack exactly as the caller left them: the caller may be built against
another major of the library and pass more arguments, or other ones, than
the generated signature declares (a layer of another major runs through
the generic trampoline; the first call of a layer through its resolver
stub, lib_resolve.S). A C function's fast path does not promise that: gcc
keeps only what the declared parameters need (it moves 32-bit int
arguments through 32-bit registers, copies large structs passed by value),
as tests/tools/wrapper_abi.py showed. %r11 carries no argument."""
import cuda_model


def typed(model):
    """(id, name) of every typed function: the driver's, then each layer's."""
    out = [(i, f.name) for i, f in enumerate(model.functions) if f.typed]
    first = model.driver_count
    for l in model.layers:
        out += [(first + i, f.name) for i, f in enumerate(l.functions) if f.typed]
        first += len(l.functions)
    return out


def generate(model):
    out = [cuda_model.banner("fronts_generator.py"), "\t.text"]
    for id_, name in typed(model):
        out += ["\t.globl %s" % name,
                "\t.type %s,@function" % name,
                "\t.p2align 4",
                "%s:" % name,
                "\t.cfi_startproc",
                "\tmovq cutap_hot+%d(%%rip), %%r11" % (8 * id_),
                "\ttestq %r11, %r11",
                "\tjz cutap_slow_%s" % name,
                "\tjmp *%r11",
                "\t.cfi_endproc",
                "\t.size %s,.-%s" % (name, name)]
    out.append('\t.section .note.GNU-stack,"",@progbits')
    return "\n".join(out) + "\n"


OUTPUT = "src/generated/fronts.S"
