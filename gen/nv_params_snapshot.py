#!/usr/bin/env python3
"""Writes gen/snapshots/nv_params.json: the layouts of the parameter blocks
of RM control commands and of RM allocations (issue #32), field by field,
from NVIDIA's open-gpu-kernel-modules headers (the pinned 580.142 subset):

  gen/nv_params_snapshot.py [REFDIR]

gen/nv_params_generator.py turns this snapshot (and only it) into
cli/generated/nv_params_tables.[ch], so neither the build nor `make
regen-check` needs the headers or libclang.

Pairings, as the headers give them:
  - a control command and its parameter struct: gen/nv_ioctl_snapshot.py's
    (finn's `<PARAMS>_MESSAGE_ID` comment after the command's #define, else
    the naming rule NVxxxx_CTRL_CMD_FOO -> NVxxxx_CTRL_FOO_PARAMS where such
    a struct exists);
  - a class and its allocation parameters: the finn comment after the
    class's #define (`NV01_DEVICE_0 (0x80U) /* finn: Evaluated from
    "NV0080_ALLOC_PARAMETERS_MESSAGE_ID" */`), else an *_ALLOC*_PARAM* struct
    whose <NAME>_MESSAGE_ID is that class's number (NV_CHANNEL_ALLOC_PARAMS,
    0x906f), else the header's typedef NV_CHANNELGPFIFO_ALLOCATION_PARAMETERS
    for the classes named *_CHANNEL_GPFIFO_* (from "name"), else the
    driver's own pairing for classes whose headers name no struct (from
    "driver": BY_DRIVER below, the facts of the driver's class-to-size
    table, rmapi's alloc_size.c, which the headers do not carry; measured
    on the H100: libcuda passes paramsSize 0 and the driver sizes the
    block by class, so without a pairing no block is known).

Each type is one of: u (unsigned integer), s (signed), bool (NvBool),
handle (NvHandle), ptr (NvP64 and C pointers), char (plain char: arrays
of it are strings), float, enum (with its enumerators), struct, union,
array (element, count). Typedefs are looked through, but NvBool, NvHandle
and NvP64 are kept as what they mean. Layouts are x86-64 Linux user
space's (libclang, --target=x86_64-linux-gnu, as nv_ioctl_snapshot.py).
"""
import argparse
import json
import os
import re
import sys
import tempfile
import time

import nv_ioctl_snapshot as nvs

ci = nvs.ci
OUT = os.path.join(nvs.HERE, "snapshots", "nv_params.json")
ALLOC_RE = re.compile(r"^#define\s+(\w+)\s+\((0x[0-9a-fA-F]+)U?\)\s*/\* finn: Evaluated from \"(\w+)_MESSAGE_ID\"", re.M)
MSGID_RE = re.compile(r"^#define\s+(\w+)_MESSAGE_ID\s+\((0x[0-9a-fA-F]+)U?\)", re.M)
KEEP = {"NvHandle": "handle", "NvBool": "bool", "NvP64": "ptr"}
INTS = {ci.TypeKind.UCHAR: "u", ci.TypeKind.USHORT: "u", ci.TypeKind.UINT: "u", ci.TypeKind.ULONG: "u",
        ci.TypeKind.ULONGLONG: "u", ci.TypeKind.CHAR_U: "char", ci.TypeKind.SCHAR: "s", ci.TypeKind.SHORT: "s",
        ci.TypeKind.INT: "s", ci.TypeKind.LONG: "s", ci.TypeKind.LONGLONG: "s", ci.TypeKind.CHAR_S: "char",
        ci.TypeKind.BOOL: "bool", ci.TypeKind.FLOAT: "float", ci.TypeKind.DOUBLE: "float",
        ci.TypeKind.POINTER: "ptr"}


def parse(ref, headers):
    """The translation unit of every header given (the stand-ins of
    nv_ioctl_snapshot.py for the two the subset lacks)."""
    lib = next((c for c in ("/usr/lib/x86_64-linux-gnu/libclang-14.so.1",
                            "/usr/lib/llvm-14/lib/libclang.so.1") if os.path.exists(c)), None)
    if lib and not ci.Config.loaded:
        ci.Config.set_library_file(lib)
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in nvs.STUBS.items():
            with open(os.path.join(tmp, name), "w") as f:
                f.write(text)
        wrapper = os.path.join(tmp, "nv_params_wrapper.c")
        with open(wrapper, "w") as f:
            f.write("".join("#include \"%s\"\n" % h for h in headers))
        args = ["-x", "c", "-std=gnu11", "--target=x86_64-linux-gnu", "-ferror-limit=0"]
        args += ["-I" + os.path.join(ref, d) for d in nvs.INCLUDE_DIRS] + ["-idirafter", tmp]
        tu = ci.Index.create().parse(wrapper, args=args)
        errors = [str(d) for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
        if errors:
            raise SystemExit("nv_params_snapshot: libclang could not parse the headers:\n  " + "\n  ".join(errors[:20]))
        records = {}
        for cur in tu.cursor.get_children():
            if cur.kind == ci.CursorKind.TYPEDEF_DECL:
                t = cur.underlying_typedef_type.get_canonical()
                if t.kind == ci.TypeKind.RECORD:
                    records.setdefault(cur.spelling, cur.type)
        return tu, records


class Types:
    """Types numbered in the order first reached (deterministic: the
    roots are walked sorted), each once."""

    def __init__(self):
        self.rows, self.index, self.bitfields = [], {}, 0

    def add(self, key, row):
        if key in self.index:
            return self.index[key], False
        self.index[key] = len(self.rows)
        self.rows.append(row)
        return self.index[key], True

    def of(self, t):
        kept = None
        while True:   # look through typedefs, keeping the three that mean something
            if t.kind == ci.TypeKind.ELABORATED:
                t = t.get_named_type()
            elif t.kind == ci.TypeKind.TYPEDEF:
                name = t.get_declaration().spelling
                if name in KEEP and kept is None:
                    kept = KEEP[name]
                t = t.get_declaration().underlying_typedef_type
            else:
                break
        c = t.get_canonical()
        if c.kind == ci.TypeKind.CONSTANTARRAY:
            elem = self.of(t.element_type if t.kind == ci.TypeKind.CONSTANTARRAY else c.element_type)
            n = c.element_count
            return self.add(("array", elem, n), {"k": "array", "elem": elem, "count": n, "size": c.get_size()})[0]
        if kept and c.kind != ci.TypeKind.RECORD:
            return self.add((kept, c.get_size()), {"k": kept, "size": c.get_size()})[0]
        if c.kind == ci.TypeKind.ENUM:
            d = c.get_declaration()
            vals = [[e.enum_value, e.spelling] for e in d.get_children() if e.kind == ci.CursorKind.ENUM_CONSTANT_DECL]
            name = d.spelling or ""
            return self.add(("enum", c.spelling, tuple(map(tuple, vals))),
                            {"k": "enum", "name": name, "size": c.get_size(), "values": vals})[0]
        if c.kind == ci.TypeKind.RECORD:
            d = c.get_declaration()
            kind = "union" if d.kind == ci.CursorKind.UNION_DECL else "struct"
            name = d.spelling if not d.is_anonymous() and "(" not in d.spelling else ""
            key = (kind, c.spelling, c.get_size())
            i, new = self.add(key, {"k": kind, "name": name, "size": c.get_size(), "fields": []})
            if new:
                fields = []
                for f in c.get_fields():
                    if f.is_bitfield():
                        self.bitfields += 1   # none in the 580 params structs; shown in the hex of what holds them
                        continue
                    fields.append([f.spelling, f.get_field_offsetof() // 8, self.of(f.type)])
                self.rows[i]["fields"] = fields
            return i
        k = INTS.get(c.kind)
        if not k:
            raise SystemExit("nv_params_snapshot: type %s (%s) not handled" % (t.spelling, c.kind))
        return self.add((k, c.get_size()), {"k": k, "size": c.get_size()})[0]


# Classes the driver allocates with a parameter struct the class headers do
# not name (name pattern -> struct); the struct must be in the headers.
BY_DRIVER = [
    (r"NV01_ROOT_(NON_PRIV|CLIENT)", "NV0000_ALLOC_PARAMETERS"),
    (r"NV01_EVENT_(OS_EVENT|KERNEL_CALLBACK|KERNEL_CALLBACK_EX|WIN32_EVENT)", "NV0005_ALLOC_PARAMETERS"),
    (r"NV01_MEMORY_(SYSTEM|LOCAL_USER)", "NV_MEMORY_ALLOCATION_PARAMS"),
    (r"NV01_MEMORY_SYSTEM_OS_DESCRIPTOR", "NV_OS_DESC_MEMORY_ALLOCATION_PARAMS"),
    (r"NV50_MEMORY_VIRTUAL", "NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS"),
    (r"FERMI_VASPACE_A", "NV_VASPACE_ALLOCATION_PARAMETERS"),
    (r"KEPLER_CHANNEL_GROUP_A", "NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS"),
    (r"FERMI_CONTEXT_SHARE_A", "NV_CTXSHARE_ALLOCATION_PARAMETERS"),
    (r"[A-Z]+_COMPUTE_[AB]", "NV_GR_ALLOCATION_PARAMETERS"),
    (r"[A-Z]+_DMA_COPY_[A-C]", "NVB0B5_ALLOCATION_PARAMETERS"),
    (r"(HOPPER|BLACKWELL)_USERMODE_A", "NV_HOPPER_USERMODE_A_PARAMS"),
    (r"RM_USER_SHARED_DATA", "NV00DE_ALLOC_PARAMETERS"),
]


def class_pairs(ref, records, class_rows):
    """{class value: (struct, from)} as the module docstring says."""
    top = os.path.join(ref, nvs.SDK)
    texts = []
    for sub in ("class", "alloc"):
        for f in sorted(os.listdir(os.path.join(top, sub))):
            if f.endswith(".h"):
                texts.append(nvs.read(ref, os.path.join(nvs.SDK, sub, f)))
    texts.append(nvs.read(ref, os.path.join(nvs.SDK, "nvos.h")))
    out = {}
    for text in texts:
        for _, v, params in ALLOC_RE.findall(text):
            if params in records:
                out.setdefault(int(v, 16), (params, "finn"))
    known = {int(c["value"], 16) for c in class_rows}
    for text in texts:
        for params, v in MSGID_RE.findall(text):
            if re.search(r"ALLOC\w*PARAM", params) and params in records and int(v, 16) in known:
                out.setdefault(int(v, 16), (params, "message_id"))
    if "NV_CHANNELGPFIFO_ALLOCATION_PARAMETERS" in records:
        for c in class_rows:
            if "_CHANNEL_GPFIFO_" in c["name"] and not c["alias"]:
                out.setdefault(int(c["value"], 16), ("NV_CHANNELGPFIFO_ALLOCATION_PARAMETERS", "name"))
    for pattern, params in BY_DRIVER:
        if params not in records:
            raise SystemExit("nv_params_snapshot: %s is not in the headers" % params)
        for c in class_rows:
            if re.fullmatch(pattern, c["name"]) and not c["alias"]:
                out.setdefault(int(c["value"], 16), (params, "driver"))
    return out


def build(ref):
    top = os.path.join(ref, nvs.SDK)
    headers = (["nvos.h"] + nvs.ctrl_headers(ref)
               + sorted(os.path.join(sub, f) for sub in ("class", "alloc")
                        for f in os.listdir(os.path.join(top, sub)) if f.endswith(".h")))
    tu, records = parse(ref, headers)

    class P:   # what nv_ioctl_snapshot.controls() asks of a parse
        pass
    p = P()
    p.records = {n: t.get_canonical() for n, t in records.items()}
    p.size = lambda n: p.records[n].get_size() if n in p.records else None
    ctrls = nvs.controls(ref, p)
    class_rows = nvs.classes(ref)

    types = Types()
    snap = {"source": nvs.source(ref), "controls": [], "classes": []}
    defined, seen = set(), set()
    for c in ctrls:
        cmd = int(c["cmd"], 16)
        defined.add(cmd)
        if cmd in seen or not c["params"] or c["params"] not in records:
            continue
        seen.add(cmd)
        snap["controls"].append([c["cmd"], types.of(records[c["params"]]), c["name"], c["params"]])
    pairs = class_pairs(ref, records, class_rows)
    names = {}
    for c in class_rows:
        names.setdefault(int(c["value"], 16), c["name"])
    for v in sorted(pairs):
        s, origin = pairs[v]
        snap["classes"].append(["0x%x" % v, types.of(records[s]), names.get(v, ""), s, origin])
    # a root struct declared anonymous (typedef struct { ... } NAME) is
    # named by its typedef, as readers show it
    for row in snap["controls"] + snap["classes"]:
        t = types.rows[row[1]]
        if t["k"] in ("struct", "union") and not t.get("name"):
            t["name"] = row[3]
    snap["types"] = types.rows
    snap["stats"] = {"commands_defined": len(defined), "commands_with_layout": len(seen),
                     "classes_defined": len(names), "classes_with_layout": len(pairs),
                     "types": len(types.rows), "bitfields_skipped": types.bitfields}
    return snap


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("refdir", nargs="?", default=nvs.DEFAULT_REF)
    ap.add_argument("--out", default=OUT)
    a = ap.parse_args()
    t0 = time.time()
    ref = os.path.abspath(a.refdir)
    if not os.path.isfile(os.path.join(ref, "README.md")):
        raise SystemExit("nv_params_snapshot: %s is not the reference tree (no README.md)" % ref)
    snap = build(ref)
    with open(a.out, "w") as f:
        json.dump(snap, f, indent=0, sort_keys=True, separators=(",", ":"))
        f.write("\n")
    s = snap["stats"]
    print("nv_params_snapshot: %s %s: %d of %d control commands and %d of %d classes get a layout, "
          "%d types -> %s (%.1fs)" % (snap["source"]["repository"], snap["source"]["tag"],
                                      s["commands_with_layout"], s["commands_defined"], s["classes_with_layout"],
                                      s["classes_defined"], s["types"], os.path.relpath(a.out), time.time() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
