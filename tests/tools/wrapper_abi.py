#!/usr/bin/env python3
"""Checks that every exported entry of libcutap.so with a fast path
through cutap_hot (the typed wrappers' fronts, src/generated/fronts.S) hands
its caller's arguments on untouched on the way to its target.

cutap routes the calls of a layer of another CUDA major (and the first
call of every layer, src/generated/lib_resolve.S) through cutap_hot[id]
to code that must see the caller's registers and stack exactly as the
caller left them: the caller may pass more arguments, or other ones, than
the wrapper's C signature declares. The wrappers are C functions, so this
holds only if the compiler made their fast path a pure tail jump: from the
entry to the `jmp *%reg`, no store to memory, no change of an argument
register (rdi rsi rdx rcx r8 r9, xmm0-7), no call, push or pop, and the
stack pointer back where it was.

  wrapper_abi.py LIB     prints "N wrappers checked, M bad" and each bad
                         one with the instruction that breaks the rule;
                         exits 1 if any is bad or none was found
"""
import re
import subprocess
import sys

ARG_REGS = {"rdi", "rsi", "rdx", "rcx", "r8", "r9", "edi", "esi", "edx", "ecx", "r8d", "r9d",
            "dil", "sil", "dl", "cl", "r8b", "r9b", "di", "si", "dx", "cx", "r8w", "r9w"}
ARG_XMM = {"xmm%d" % i for i in range(8)} | {"ymm%d" % i for i in range(8)} | {"zmm%d" % i for i in range(8)}


def functions(lib):
    """{name: [(addr, mnemonic, operands, objdump's note)]} of the exported functions."""
    names = set()
    for line in subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True).stdout.split("\n"):
        p = line.split()
        if len(p) == 3 and p[1] == "T":
            names.add(p[2])
    out, cur = {}, None
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-M", "att", lib], capture_output=True, text=True).stdout
    for line in dis.split("\n"):
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if m:
            cur = m.group(1) if m.group(1) in names else None
            if cur:
                out[cur] = []
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
        if cur and m:
            ops, _, note = m.group(3).partition("#")
            out[cur].append((int(m.group(1), 16), m.group(2), ops.strip(), note.strip()))
    return out


def dest(ops):
    """Destination operand (AT&T: the last one)."""
    parts = re.split(r",(?![^(]*\))", ops)
    return parts[-1].strip() if parts else ""


def breaks(mn, ops):
    """Why an instruction on the fast path breaks the rule, or None."""
    if mn.startswith(("push", "pop")) and ops.lstrip("%") not in ARG_REGS:
        return None   # a callee-saved register, below the caller's stack; balanced (checked at the jump)
    if mn.startswith(("call", "push", "pop", "ret", "leave", "enter")):
        return "calls or moves the stack"
    if mn.startswith("nop") or mn in ("endbr64", "cs", "data16"):
        return None
    if mn.startswith(("cmp", "test")) or mn.startswith("j"):
        return None
    d = dest(ops)
    if "(" in d:
        return "stores to memory"
    reg = d.lstrip("%")
    if reg in ARG_REGS or reg in ARG_XMM:
        return "changes an argument register"
    if reg in ("rsp", "esp") and not (mn in ("sub", "add") and ops.startswith("$")):
        return "changes the stack pointer"
    return None


def check(insns):
    """Error text or None; 'skip' when the function has no fast path
    through cutap_hot (trampoline stubs)."""
    by_addr = {a: i for i, (a, _, _, _) in enumerate(insns)}
    if not any("<cutap_hot+" in note or "<cutap_hot>" in note for _, _, _, note in insns):
        return "skip"
    found = []
    # Every path from the entry to an indirect tail jump, through direct jumps.
    stack = [(0, 0, ())]
    seen = set()
    while stack:
        i, rsp, path = stack.pop()
        if i >= len(insns) or (i, rsp) in seen:
            continue
        seen.add((i, rsp))
        a, mn, ops, _ = insns[i]
        if mn == "jmp" and ops.startswith("*%"):
            if rsp != 0:
                return "tail jump with the stack pointer moved by %d at %x" % (rsp, a)
            found.append(path)
            continue
        if mn.startswith("call"):
            continue   # a slow path
        why = breaks(mn, ops)
        if why:
            # Only an error if this instruction can lead to the tail jump.
            path = path + ((a, mn, ops, why),)
        if mn.startswith("push"):
            rsp -= 8
        elif mn.startswith("pop"):
            rsp += 8
        elif mn in ("sub", "add") and dest(ops) == "%rsp" and ops.startswith("$"):
            v = int(ops[1:].split(",")[0], 0)
            rsp += -v if mn == "sub" else v
        if mn.startswith("j"):
            m = re.match(r"([0-9a-f]+)", ops)
            t = by_addr.get(int(m.group(1), 16)) if m else None
            if t is not None:
                stack.append((t, rsp, path))
            if mn == "jmp":
                continue
        stack.append((i + 1, rsp, path))
    if not found:
        return "no tail jump through cutap_hot found"
    for path in found:
        for a, mn, ops, why in path:
            return "%s at %x: %s %s" % (why, a, mn, ops)
    return None


def main():
    fns = functions(sys.argv[1])
    checked = bad = 0
    for name in sorted(fns):
        err = check(fns[name])
        if err == "skip":
            continue
        checked += 1
        if err:
            bad += 1
            print("%s: %s" % (name, err))
    print("%d wrappers checked, %d bad" % (checked, bad))
    return 1 if bad or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
