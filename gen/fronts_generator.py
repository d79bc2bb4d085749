"""Generates src/generated/fronts.S (in libcutap.so, the front) and
src/generated/core_fronts.S (in libcutap_core.so): the entry of every
function cutap intercepts, typed or not, of the driver and of each layer.

The front's entries are the exported names:

    name:   movq cutap_front_hot+16*id(%rip), %r11
            testq %r11, %r11
            jz 1f
            jmp *%r11           where the core sent calls of this id: the
                                real function, a fast path, the typed slow
                                path, a resolver or a trampoline stub
    1:      movl $id, %r11d
            jmp cutap_front_slow   the core not loaded yet (src/front)

The table's entries are pairs (struct cutap_hot_slot): where calls go,
then the real function the recorder's generated fast path calls (issue
#27: a traced call then reads the real function from the line its entry
just loaded, not from another table's).

A process that never calls CUDA runs no more than the jump: the core
(every table, wrapper and decoder: 30 MB, 80,000 relocations) is loaded
at its first call (issue #24). A layer that is not exported (NVTX: reached
through its injection table only) has its entries in the core instead,
where they reach the typed slow path directly when the table says so.

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


def entries(model):
    """(id, function, exported) of every function: the driver's, then each
    layer's, in id order."""
    out = [(i, f, True) for i, f in enumerate(model.functions)]
    first = model.driver_count
    for l in model.layers:
        exported = l.spec["exports"] is not None
        out += [(first + i, f, exported) for i, f in enumerate(l.functions)]
        first += len(l.functions)
    return out


def count(model):
    return model.driver_count + sum(len(l.functions) for l in model.layers)


def front(model):
    out = [cuda_model.banner("fronts_generator.py"), "\t.text"]
    for id_, f, exported in entries(model):
        if not exported:
            continue
        out += ["\t.globl %s" % f.name,
                "\t.type %s,@function" % f.name,
                "\t.p2align 4",
                "%s:" % f.name,
                "\t.cfi_startproc",
                "\tmovq cutap_front_hot+%d(%%rip), %%r11" % (16 * id_),
                "\ttestq %r11, %r11",
                "\tjz 1f",
                "\tjmp *%r11",
                "1:",
                "\tmovl $%d, %%r11d" % id_,
                "\tjmp cutap_front_slow",
                "\t.cfi_endproc",
                "\t.size %s,.-%s" % (f.name, f.name)]
    # The table, zero until the core fills it; cutap_hot is its name for
    # the core (exported: the core links against the front). 16 bytes an
    # id: where calls go, and the real function for the fast paths.
    n = count(model)
    out += ["",
            "\t.bss",
            "\t.globl cutap_front_hot",
            "\t.hidden cutap_front_hot",
            "\t.type cutap_front_hot,@object",
            "\t.p2align 6",
            "cutap_front_hot:",
            "\t.zero %d" % (16 * n),
            "\t.size cutap_front_hot,.-cutap_front_hot",
            "\t.globl cutap_hot",
            "\t.type cutap_hot,@object",
            "\t.set cutap_hot, cutap_front_hot",
            "\t.size cutap_hot, %d" % (16 * n),
            '\t.section .note.GNU-stack,"",@progbits']
    return "\n".join(out) + "\n"


def core(model):
    """Entries of the layers that are not exported (typed ones only: an
    untyped function of such a layer is reached through its trampoline
    stub, lib_untyped.S)."""
    out = [cuda_model.banner("fronts_generator.py"), "\t.text"]
    for id_, f, exported in entries(model):
        if exported or not f.typed:
            continue
        out += ["\t.globl %s" % f.name,
                "\t.hidden %s" % f.name,
                "\t.type %s,@function" % f.name,
                "\t.p2align 4",
                "%s:" % f.name,
                "\t.cfi_startproc",
                "\tmovq cutap_hot@GOTPCREL(%rip), %r11",
                "\tmovq %d(%%r11), %%r11" % (16 * id_),
                "\ttestq %r11, %r11",
                "\tjz cutap_slow_%s" % f.name,
                "\tjmp *%r11",
                "\t.cfi_endproc",
                "\t.size %s,.-%s" % (f.name, f.name)]
    out.append('\t.section .note.GNU-stack,"",@progbits')
    return "\n".join(out) + "\n"


def generate_all(model):
    return {"src/generated/fronts.S": front(model), "src/generated/core_fronts.S": core(model)}
