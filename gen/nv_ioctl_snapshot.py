#!/usr/bin/env python3
"""Writes gen/snapshots/nv_ioctl.json, the facts cutap needs to name the
ioctl()s libcuda makes to the NVIDIA kernel driver, from NVIDIA's MIT
licensed open-gpu-kernel-modules headers (a pinned subset of tag 580.142,
see the reference tree's README.md):

  gen/nv_ioctl_snapshot.py [REFDIR]

REFDIR defaults to ../shared/reference/open-gpu-kernel-modules-580.142
relative to the repository root. The headers themselves never enter the
repository: gen/nv_ioctl_generator.py turns this snapshot (and only it) into
src/common/generated/nv_ioctl_tables.[ch], so `make regen-check` works on a
machine without the reference tree. gen/snapshots/nv_ioctl.README.md says
what each table is.

Layouts and macro values come from libclang (python3-clang-14) parsing the
headers as x86-64 Linux user space would: --target=x86_64-linux-gnu makes
the compiler define __linux__ and __x86_64__, from which the SDK's
cpuopsys.h derives NV_LINUX, NV_UNIX and NVCPU_X86_64 itself (so nothing is
defined by hand and NvP64 is the 8-byte void * that libcuda passes).
NV_KERNEL_INTERFACE_LAYER stays undefined: nv-ioctl-numa.h then takes its
user-space branch (<stdint.h>), which is what libcuda was built against.
"""
import argparse
import json
import os
import re
import sys
import tempfile
import time

try:
    import clang.cindex as ci
except ImportError:  # Debian ships the bindings for /usr/bin/python3 only
    sys.path.insert(0, "/usr/lib/python3/dist-packages")
    import clang.cindex as ci

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_REF = os.path.join(ROOT, "..", "shared", "reference", "open-gpu-kernel-modules-580.142")
OUT = os.path.join(HERE, "snapshots", "nv_ioctl.json")

SDK = "src/common/sdk/nvidia/inc"
INCLUDE_DIRS = [SDK, "kernel-open/common/inc", "src/nvidia/arch/nvalloc/unix/include",
                "kernel-open/nvidia-uvm"]
# Where the escape numbers are: the first three name 'F' ioctls by number.
ESCAPE_HEADERS = ["kernel-open/common/inc/nv-ioctl-numbers.h",
                  "kernel-open/common/inc/nv-ioctl-numa.h",
                  "src/nvidia/arch/nvalloc/unix/include/nv_escape.h"]
ESCAPE_C = "src/nvidia/arch/nvalloc/unix/src/escape.c"
# The headers whose every struct typedef goes into "structs".
STRUCT_HEADERS = ["kernel-open/common/inc/nv-ioctl.h", "kernel-open/common/inc/nv-ioctl-numa.h",
                  "src/nvidia/arch/nvalloc/unix/include/nv-unix-nvos-params-wrappers.h"]

# The escapes of /dev/nvidiactl and /dev/nvidiaN that escape.c does not
# handle: the kernel-open layer (kernel-open/nvidia/nv.c, outside the
# subset) does. nv-ioctl.h and nv-ioctl-numa.h declare one struct for each,
# named after it; ATTACH_GPUS_TO_FD takes a bare NvU32 array of GPU ids.
KERNEL_OPEN_PARAMS = {
    "CARD_INFO": "nv_ioctl_card_info_t",
    "ALLOC_OS_EVENT": "nv_ioctl_alloc_os_event_t",
    "FREE_OS_EVENT": "nv_ioctl_free_os_event_t",
    "CHECK_VERSION_STR": "nv_ioctl_rm_api_version_t",
    "IOCTL_XFER_CMD": "nv_ioctl_xfer_t",
    "QUERY_DEVICE_INTR": "nv_ioctl_query_device_intr",
    "SYS_PARAMS": "nv_ioctl_sys_params_t",
    "EXPORT_TO_DMABUF_FD": "nv_ioctl_export_to_dma_buf_fd_t",
    "WAIT_OPEN_COMPLETE": "nv_ioctl_wait_open_complete_t",
    "NUMA_INFO": "nv_ioctl_numa_info_t",
    "SET_NUMA_STATUS": "nv_ioctl_set_numa_status_t",
}

# What the size check of nv.c (not in the subset) allows beyond one struct.
ESCAPE_NOTES = {
    "CARD_INFO": "an array of nv_ioctl_card_info_t, one per GPU slot: the ioctl size is a multiple",
}

# The subset lacks two headers uvm_types.h includes. uvm_ioctl.h uses one
# type from them, NvProcessorUuid (nvCpuUuid.h: struct nv_uuid { NvU8
# uuid[NV_UUID_LEN = 16]; }); nv_uvm_user_types.h only holds enums the
# ioctl structs do not use. These stand-ins are written to a temporary
# directory searched after the reference tree's.
STUBS = {
    "nvCpuUuid.h": "#pragma once\n#include \"nvtypes.h\"\n#define NV_UUID_LEN 16\n"
                   "typedef struct nv_uuid { NvU8 uuid[NV_UUID_LEN]; } NvUuid;\n"
                   "typedef NvUuid NvProcessorUuid;\n",
    "nv_uvm_user_types.h": "#pragma once\n",
}


def read(ref, path):
    with open(os.path.join(ref, path), encoding="utf-8", errors="replace") as f:
        return f.read()


def source(ref):
    """The tag and commit the reference README names."""
    readme = read(ref, "README.md")
    tag = re.search(r"tag `([^`]+)`", readme)
    commit = re.search(r"commit ([0-9a-f]{40})", readme)
    if not tag or not commit:
        raise SystemExit("nv_ioctl_snapshot: %s/README.md names no tag and commit" % ref)
    return {"repository": "NVIDIA/open-gpu-kernel-modules", "tag": tag.group(1),
            "commit": commit.group(1)}


def ctrl_headers(ref):
    top = os.path.join(ref, SDK)
    out = []
    for d, _, files in os.walk(os.path.join(top, "ctrl")):
        out += [os.path.relpath(os.path.join(d, f), top) for f in files if f.endswith(".h")]
    return sorted(out)


class Parsed:
    """One libclang parse of every header involved: struct layouts by
    typedef name, and the values of the macros asked for (each becomes an
    enumerator of the wrapper, so the compiler does the arithmetic and the
    #ifs: a macro undefined on Linux, like the Windows-only UVM commands,
    gets no value)."""

    def __init__(self, ref, headers, macros):
        lib = next((c for c in ("/usr/lib/x86_64-linux-gnu/libclang-14.so.1",
                                "/usr/lib/llvm-14/lib/libclang.so.1") if os.path.exists(c)), None)
        if lib and not ci.Config.loaded:
            ci.Config.set_library_file(lib)
        with tempfile.TemporaryDirectory() as tmp:
            for name, text in STUBS.items():
                with open(os.path.join(tmp, name), "w") as f:
                    f.write(text)
            src = ["#include \"%s\"" % h for h in headers]
            for i, m in enumerate(macros):
                src.append("#ifdef %s\nenum { cutap_probe_%d = (%s) };\n#endif" % (m, i, m))
            wrapper = os.path.join(tmp, "nv_ioctl_wrapper.c")
            with open(wrapper, "w") as f:
                f.write("\n".join(src) + "\n")
            args = ["-x", "c", "-std=gnu11", "--target=x86_64-linux-gnu", "-ferror-limit=0"]
            args += ["-I" + os.path.join(ref, d) for d in INCLUDE_DIRS] + ["-idirafter", tmp]
            tu = ci.Index.create().parse(wrapper, args=args)
            errors = [str(d) for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
            if errors:
                raise SystemExit("nv_ioctl_snapshot: libclang could not parse the headers:\n  "
                                 + "\n  ".join(errors[:20]))
            self.records = {}   # typedef name -> canonical record type
            self.values = {}    # macro name -> int
            for cur in tu.cursor.get_children():
                if cur.kind == ci.CursorKind.TYPEDEF_DECL:
                    t = cur.underlying_typedef_type.get_canonical()
                    if t.kind == ci.TypeKind.RECORD:
                        self.records.setdefault(cur.spelling, t)
                elif cur.kind == ci.CursorKind.ENUM_DECL:
                    for e in cur.get_children():
                        if e.spelling.startswith("cutap_probe_"):
                            self.values[macros[int(e.spelling[12:])]] = e.enum_value

    def size(self, name):
        t = self.records.get(name)
        return t.get_size() if t is not None and t.get_size() > 0 else None

    def layout(self, name):
        """{size, align, fields: [{name, offset, size}]} in declaration
        order, byte offsets (none of these structs has a bit-field)."""
        t = self.records[name]
        fields = []
        for f in t.get_fields():
            bits = f.get_field_offsetof()
            if f.is_bitfield() or bits % 8:
                raise SystemExit("nv_ioctl_snapshot: %s.%s is a bit-field" % (name, f.spelling))
            fields.append({"name": f.spelling, "offset": bits // 8, "size": f.type.get_size()})
        return {"size": t.get_size(), "align": t.get_align(), "fields": fields}


def hexs(v):
    return "0x%x" % v


def escapes(ref):
    """[(name without NV_ESC_, macro)] of the three escape headers, and the
    parameter structs escape.c checks each escape's size against, in the
    order it names them (RM_ALLOC: NVOS21_PARAMETERS, then NVOS64)."""
    names = []
    for h in ESCAPE_HEADERS:
        names += re.findall(r"^#define\s+NV_ESC_(\w+)\s", read(ref, h), re.M)
    params = {}
    text = read(ref, ESCAPE_C)
    for case in re.split(r"\n\s*case NV_ESC_", text)[1:]:
        name, body = case.split(":", 1)
        decl = dict((v, t) for t, v in re.findall(r"\b(\w+)\s*\*\s*(\w+)\s*(?:=\s*data\s*)?;", body))
        checked = re.findall(r"dataSize\s*!=\s*sizeof\s*\(\s*\*\s*(\w+)\s*\)", body)
        params[name] = [decl[v] for v in dict.fromkeys(checked) if v in decl]
    for name, struct in KERNEL_OPEN_PARAMS.items():
        params.setdefault(name, [struct])
    return names, params


def classes(ref):
    """[{value, name, alias}] in display preference: g_allclasses.h's names
    first, the class's own before those it marks `// alias` (NV01_ROOT
    before NV1_ROOT, NV01_NULL_OBJECT), each group in file order; then the
    names the class headers clXXXX.h give their own number that
    g_allclasses.h lacks: aliases where it names the class
    (NV01_CONTEXT_ERROR_TO_MEMORY), the class's only names where it does not
    (classes this RM no longer allocates, such as FERMI_A)."""
    rows, seen = [], set()
    for name, v, rest in re.findall(r"^#define\s+(\w+)\s+\((0x[0-9a-fA-F]+)\)(.*)$",
                                    read(ref, "src/nvidia/generated/g_allclasses.h"), re.M):
        alias = "alias" in rest
        rows.append((int(v, 16), 1 if alias else 0, name, alias))
        seen.add(name)
    top = os.path.join(ref, SDK, "class")
    for f in sorted(os.listdir(top)):
        m = re.fullmatch(r"cl([0-9a-f]{4})\.h", f)
        if not m:
            continue
        for name, v in re.findall(r"^#define\s+(\w+)\s+\(?(0x[0-9a-fA-F]+)U?\)?(?:\s|$)",
                                  read(ref, os.path.join(SDK, "class", f)), re.M):
            v = int(v, 16)
            if v == int(m.group(1), 16) and name not in seen and not name.endswith("_MESSAGE_ID"):
                alias = any(r[0] == v for r in rows)
                rows.append((v, 2 if alias else 0, name, alias))
                seen.add(name)
    rows.sort(key=lambda r: r[:2])  # stable: file order within a rank
    return [{"value": hexs(v), "name": n, "alias": a} for v, _, n, a in rows]


CTRL_RE = re.compile(r"^#define\s+(\w+)\s+\((0x[0-9a-fA-F]+)U?\)\s*/\* finn: Evaluated from "
                     r"\"\(?FINN_\w+_INTERFACE_ID << 8\)?\s*\|\s*\(?(\w+)\)?\"", re.M)


def controls(ref, parsed):
    """Every RM control command of ctrl/: finn, NVIDIA's generator, writes
    each as its evaluated value followed by the expression, whose
    <PARAMS>_MESSAGE_ID names the parameter struct. A few dozen use a bare
    index instead (most take no parameters, or one struct shared by several
    commands); for those the SDK's naming rules (NVxxxx_CTRL_CMD_FOO takes
    NVxxxx_CTRL_FOO_PARAMS, or NVxxxx_CTRL_CMD_FOO_PARAMS) are applied only
    where such a struct exists, and marked params_from "name". `#define ALIAS NAME` of a command follows it."""
    out, texts = [], []
    for h in ctrl_headers(ref):
        text = read(ref, os.path.join(SDK, h))
        texts.append(text)
        for name, v, msg in CTRL_RE.findall(text):
            if msg.endswith("_MESSAGE_ID"):
                params, origin = msg[:-len("_MESSAGE_ID")], "finn"
            else:
                guesses = [name.replace("_CTRL_CMD_", "_CTRL_", 1) + "_PARAMS", name + "_PARAMS"]
                params = next((g for g in guesses if g in parsed.records), None)
                origin = "name" if params else None
            out.append({"cmd": int(v, 16), "name": name, "params": params, "params_from": origin})
    known = {c["name"]: c for c in out}
    aliases = {}
    for text in texts:
        aliases.update(re.findall(r"^#define\s+(\w+)\s+\(?([A-Za-z_]\w*)\)?\s*(?://.*|/\*.*)?$", text, re.M))
    changed = True
    while changed:  # aliases of aliases
        changed = False
        for a, target in sorted(aliases.items()):
            if a not in known and target in known:
                known[a] = dict(known[target], name=a, alias_of=target)
                out.append(known[a])
                changed = True
    for c in out:
        c["params_size"] = parsed.size(c["params"]) if c["params"] else None
        c["alias"] = "alias_of" in c
        c.pop("alias_of", None)
    # Preferred first: a definition before the aliases of it; of two
    # definitions of one number (NVIDIA reused 0x2080132a for FB_STATS_GET
    # after the obsolete FB_COMPBITCOPY_GET_COMPBITS, which finn writes with a
    # bare index) the one finn ties to a parameter struct; then by name.
    out.sort(key=lambda c: (c["cmd"], c["alias"], c["params_from"] != "finn", c["name"]))
    for c in out:
        c["cmd"] = hexs(c["cmd"])
    return out


CAT_MACRO_RE = re.compile(r"^#define\s+(NV\w+)_CTRL_CMD\(\s*cat\s*,\s*idx\s*\)\s+NVXXXX_CTRL_CMD\(\s*(0x[0-9a-fA-F]+)", re.M)


def categories(ref):
    """The categories of each class's control commands (cmd = class << 16 |
    category << 8 | index), from the headers that define the class's
    NVxxxx_CTRL_CMD(cat, idx): its NVxxxx_CTRL_<CATEGORY> (0xNN) lines. They
    let a command the headers do not list (NVIDIA's private ones) show its
    class and category instead of a bare number."""
    out = {}
    for h in ctrl_headers(ref):
        text = read(ref, os.path.join(SDK, h))
        for prefix, cls in CAT_MACRO_RE.findall(text):
            for name, v in re.findall(r"^#define\s+(%s_CTRL_\w+)\s+\((0x[0-9a-fA-F]{2})\)" % prefix, text, re.M):
                if "_CMD" in name:
                    continue
                key = int(cls, 16) << 8 | int(v, 16)
                out.setdefault(key, name)
    return [{"key": hexs(k), "name": n} for k, n in sorted(out.items())]


def statuses(ref):
    text = read(ref, os.path.join(SDK, "nvstatuscodes.h"))
    rows = re.findall(r"NV_STATUS_CODE\(\s*(\w+)\s*,\s*(0x[0-9a-fA-F]+)\s*,\s*\"((?:[^\"\\]|\\.)*)\"\s*\)", text)
    return sorted(({"value": int(v, 16), "name": n, "message": m} for n, v, m in rows),
                  key=lambda s: (s["value"], s["name"]))


def uvm_names(ref):
    """The /dev/nvidia-uvm commands: UVM_IOCTL_BASE(n) in uvm_ioctl.h and
    the plain numbers of uvm_linux_ioctl.h (which holds nothing else)."""
    return (re.findall(r"^#define\s+(UVM_\w+)\s+UVM_IOCTL_BASE\(", read(ref, "kernel-open/nvidia-uvm/uvm_ioctl.h"), re.M)
            + re.findall(r"^#define\s+(UVM_\w+)\s+0x[0-9a-fA-F]+\s*$",
                         read(ref, "kernel-open/nvidia-uvm/uvm_linux_ioctl.h"), re.M))


def build(ref):
    esc_names, esc_params = escapes(ref)
    uvm = uvm_names(ref)
    headers = ([os.path.basename(h) for h in ESCAPE_HEADERS + STRUCT_HEADERS] + ["nvos.h"]
               + ctrl_headers(ref) + ["uvm_linux_ioctl.h"])
    parsed = Parsed(ref, headers, ["NV_ESC_" + n for n in esc_names] + uvm)

    snap = {"source": source(ref), "escapes": [], "structs": {}, "uvm": []}
    structs = set()
    for n in esc_names:
        if "NV_ESC_" + n not in parsed.values:
            raise SystemExit("nv_ioctl_snapshot: NV_ESC_%s has no value" % n)
        p = esc_params.get(n, [])
        structs.update(x for x in p if x in parsed.records)
        e = {"nr": hexs(parsed.values["NV_ESC_" + n]), "name": n, "params": p}
        if n in ESCAPE_NOTES:
            e["note"] = ESCAPE_NOTES[n]
        snap["escapes"].append(e)
    snap["escapes"].sort(key=lambda e: (int(e["nr"], 16), e["name"]))

    # every struct of the nv_ioctl_* headers, and the NVOS structs the
    # with-fd wrappers hold
    for h in STRUCT_HEADERS:
        structs.update(re.findall(r"^}\s*(\w+)\s*;", read(ref, h), re.M))
    structs.update(["NVOS02_PARAMETERS", "NVOS33_PARAMETERS"])
    for s in sorted(structs):
        snap["structs"][s] = parsed.layout(s)

    snap["classes"] = classes(ref)
    snap["controls"] = controls(ref, parsed)
    snap["categories"] = categories(ref)
    snap["status"] = [dict(s, value=hexs(s["value"])) for s in statuses(ref)]

    for n in uvm:
        if n not in parsed.values:
            continue  # Windows only
        params = n + "_PARAMS"
        off = None
        if params in parsed.records:
            off = parsed.records[params].get_offset("rmStatus")
            off = off // 8 if off >= 0 else None
        snap["uvm"].append({"cmd": parsed.values[n], "name": n, "params": params if params in parsed.records else None,
                            "params_size": parsed.size(params), "status_off": off})
    snap["uvm"].sort(key=lambda u: (u["cmd"], u["name"]))
    for u in snap["uvm"]:
        u["cmd"] = hexs(u["cmd"])
    return snap


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("refdir", nargs="?", default=DEFAULT_REF)
    ap.add_argument("--out", default=OUT)
    a = ap.parse_args()
    t0 = time.time()
    ref = os.path.abspath(a.refdir)
    if not os.path.isfile(os.path.join(ref, "README.md")):
        raise SystemExit("nv_ioctl_snapshot: %s is not the reference tree (no README.md); "
                         "give its path as the argument" % ref)
    snap = build(ref)
    with open(a.out, "w") as f:
        json.dump(snap, f, indent=1, sort_keys=True)
        f.write("\n")
    print("nv_ioctl_snapshot: %s %s: %d escapes, %d structs, %d classes, %d controls "
          "(%d with params size), %d status codes, %d uvm commands -> %s (%.1fs)"
          % (snap["source"]["repository"], snap["source"]["tag"], len(snap["escapes"]),
             len(snap["structs"]), len(snap["classes"]), len(snap["controls"]),
             sum(c["params_size"] is not None for c in snap["controls"]), len(snap["status"]),
             len(snap["uvm"]), os.path.relpath(a.out), time.time() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
