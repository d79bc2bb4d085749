"""Generates src/generated/lib_resolve.S: the initial values of the
fast-path table cutap_hot (cutap_hot_initial), and one resolver stub per
typed function of a layer that has a library.

Before a layer's library is adopted, cutap cannot know whether the typed
signature of a function applies: the program may be built against another
major of the library (libcudart.so.12, libcudnn.so.8), where the same name
takes other arguments. A typed C wrapper that took the slow path would
then lose arguments (more than the generated signature declares) or read
outputs the caller never passed. So every such function's cutap_hot entry
starts at its resolver stub, which the wrapper reaches by a tail jump with
the caller's registers and stack untouched: the stub loads the id into
%r11 and enters cutap_lib_resolve_common (src/arch/x86_64/lib_resolve.S),
which saves every argument register, adopts the layer
(src/resolve/libs.c) and jumps to what the function's entry now is: the
real function, the generic trampoline (a layer of another major), or the
typed wrapper's slow path (a layer of the generated major). The core puts
these values into the front's table (src/front) when it is loaded, before
it sends any call on: a library's constructor may call its own API first
of all, and its call then loads the core.

It also generates the route stubs: one per layer id, 16 bytes each, in id
order from cutap_route_stubs (so id's stub is at cutap_route_stubs +
16 * (id - driver count)), each loading the address of its context in
cutap_route_ctx (bss, 24 bytes each, same order) and entering the generic
trampoline. A layer bound to another major than the generated headers
runs its typed functions through them (src/resolve/libs.c): no code is
made at run time, so routing cannot fail where memory may not be made
executable."""
import cuda_model


def resolved(model):
    """Ids (from model.driver_count on) of the typed functions of layers
    with a library."""
    first = model.driver_count
    out = []
    for l in model.layers:
        for i, f in enumerate(l.functions):
            if f.typed and l.spec["sonames"]:
                out.append((first + i, f.name))
        first += len(l.functions)
    return out, first


def generate(model):
    ids, count = resolved(model)
    out = [cuda_model.banner("lib_resolve_generator.py"), "\t.text"]
    for id_, name in ids:
        out += ["\t.p2align 4",
                "cutap_rs_%s:" % name,
                "\tmovl $%d, %%r11d" % id_,
                "\tjmp cutap_lib_resolve_common"]
    # Route stubs: exactly 16 bytes each (lea rip-relative 7, jmp rel32 5
    # written as bytes so that its size is fixed, 4 of int3), checked by
    # the assembler.
    n = count - model.driver_count
    out += ["",
            "\t.globl cutap_route_stubs",
            "\t.hidden cutap_route_stubs",
            "\t.p2align 4",
            "cutap_route_stubs:"]
    for k in range(n):
        out += ["\tleaq cutap_route_ctx+%d(%%rip), %%r11" % (24 * k),
                "\t.byte 0xe9",
                "\t.long cutap_tramp_common - . - 4",
                "\t.fill 4, 1, 0xcc"]
    out += [".if . - cutap_route_stubs - %d" % (16 * n),
            ".error \"route stubs are not 16 bytes each\"",
            ".endif",
            "\t.size cutap_route_stubs,.-cutap_route_stubs",
            "",
            "\t.bss",
            "\t.globl cutap_route_ctx",
            "\t.hidden cutap_route_ctx",
            "\t.type cutap_route_ctx,@object",
            "\t.p2align 6",
            "cutap_route_ctx:",
            "\t.zero %d" % (24 * n),
            "\t.size cutap_route_ctx,.-cutap_route_ctx"]
    at = dict(ids)
    # cutap_hot_initial: the entries of the typed layer ids until their
    # layer is adopted (the core puts them into the front's cutap_hot).
    out += ["",
            "\t.section .data.rel.ro,\"aw\"",
            "\t.globl cutap_hot_initial",
            "\t.hidden cutap_hot_initial",
            "\t.type cutap_hot_initial,@object",
            "\t.p2align 6",
            "cutap_hot_initial:",
            "\t.zero %d" % (8 * model.driver_count)]
    for i in range(model.driver_count, count):
        out.append("\t.quad cutap_rs_%s" % at[i] if i in at else "\t.quad 0")
    out.append("\t.size cutap_hot_initial,.-cutap_hot_initial")
    out.append('\t.section .note.GNU-stack,"",@progbits')
    return "\n".join(out) + "\n"


OUTPUT = "src/generated/lib_resolve.S"
