"""Models of the runtime and library layers (their specs: gen/specs/<layer>.py,
layer number 2 on), built like the driver's (cuda_model.py): each layer's
pinned headers parsed with libclang, paired with the pinned export list of
its real library, with the rules of its spec attached to its functions.

A layer's functions are the exports whose names carry one of its
prefixes. Those a header declares with a signature the wrappers can pass
on are typed; the others (no declaration, a variadic one, a struct
returned by value) go through the generic trampoline, which needs no
signature. Only generators import this module."""
import json
import os
import sys

import cuda_model
import older_model
import spec as specs
from cuda_model import ci, Enum, Field, Function, Model, Param, Record, TypeInfo, _Builder


# Results a typed wrapper passes back: integers, enums and pointers (a
# float, double or struct result comes back in other registers than rax).
RETURNS = ("enum", "int", "uint", "void", "ptr")


class Layer:
    def __init__(self, index, spec_file):
        self.index = index                 # layer number (cutap_layer_t)
        self.spec_file = spec_file         # its spec (gen/spec.py Spec)
        self.spec = spec_file.layer        # the spec's LAYER dict
        self.name = self.spec["name"]
        self.model = Model()               # functions, structs, enums, records
        self.unavailable = 0               # status of a call when the library is missing
        self.untyped_reasons = {}          # name -> why it has no typed wrapper
        self.constants = {}                # enum constant -> value, of the parsed headers

    @property
    def functions(self):
        return self.model.functions

    @property
    def cname(self):
        return self.name.lower()


INCLUDED = None   # a set: the files every parse includes are added (gen/major_snapshot.py's check)


def _parse(headers, defines, include=None, only=False):
    """only: the headers from include alone (an older major's snapshot:
    none of the pinned toolkit's may stand in for one it lacks)"""
    src = "".join("#include <%s>\n" % h for h in headers)
    idx = ci.Index.create()
    args = ["-x", "c", "-std=c11", "-I" + cuda_model.HERE, "-I" + os.path.join(cuda_model.HERE, "stub")] + \
        (["-I" + include] if include else []) + ([] if only else ["-I" + cuda_model.CUDA_INCLUDE]) + defines
    tu = idx.parse("cutap_layer.h", args=args, unsaved_files=[("cutap_layer.h", src)])
    if INCLUDED is not None:
        INCLUDED.update(os.path.realpath(i.include.name) for i in tu.get_includes())
    errors = [str(d) for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    if errors:
        raise SystemExit("gen: libclang could not parse %s:\n  %s" % (", ".join(headers), "\n  ".join(errors[:10])))
    return tu


def _belongs(spec, name):
    if any(name.startswith(p) for p in spec.get("exclude_prefixes", [])):
        return False
    return any(name.startswith(p) for p in spec["prefixes"])


# Snapshots: a layer whose header the toolkit on the generating machine
# lacks (NVML: nvml.h ships with the driver's development files) is
# described by gen/snapshots/<layer>.json, the parsed declarations written
# by `gen/lib_model.py --snapshot LAYER DIR` from a machine that has the
# header (DIR holds it). Facts only: names, types, sizes, enum values.
CLASSES = {c.__name__: c for c in (Enum, Field, Function, Param, Record, TypeInfo)}


def _encode(o):
    if type(o).__name__ in CLASSES:
        return dict(__class__=type(o).__name__, **o.__dict__)
    raise TypeError(type(o))


def _decode(d):
    c = CLASSES.get(d.pop("__class__", None))
    if c is None:
        return d
    o = c.__new__(c)
    o.__dict__.update(d)
    return o


def snapshot_path(spec):
    return os.path.join(cuda_model.HERE, "snapshots", spec["snapshot"] + ".json")


def _parse_declarations(layer, spec, include=None, only=False, parses=None):
    """declared functions and enum constants of the layer's headers."""
    b = _Builder(layer.model)
    declared, constants = {}, {}
    for headers, defines in parses or spec["parses"]:
        tu = _parse(headers, defines, include, only)
        for c in tu.cursor.walk_preorder():
            if c.kind != ci.CursorKind.FUNCTION_DECL or c.is_definition() or not _belongs(spec, c.spelling):
                continue
            if c.spelling in declared or c.spelling in layer.untyped_reasons:
                continue
            try:
                f = declared[c.spelling] = b.function(c, RETURNS)
            except SystemExit as e:       # variadic, struct returned by value, ...
                layer.untyped_reasons[c.spelling] = str(e).replace("gen: ", "")
                continue
            if f.ret_kind == "enum":      # the status enum, for decoding (described in model.enums)
                f.ret_enum = b.info(c.result_type, 0).name
        # The status constant (for "library unavailable") may be in an
        # enum no parameter reaches, or an anonymous one.
        for c in tu.cursor.get_children():
            if c.kind == ci.CursorKind.ENUM_DECL:
                for k in c.get_children():
                    if k.kind == ci.CursorKind.ENUM_CONSTANT_DECL:
                        constants.setdefault(k.spelling, k.enum_value)
    return declared, constants


def build_layer(spec_file):
    layer = Layer(spec_file.layer["number"], spec_file)
    spec = layer.spec
    if spec.get("snapshot"):
        snap = json.load(open(snapshot_path(spec)), object_hook=_decode)
        declared, constants = snap["declared"], snap["constants"]
        layer.untyped_reasons = snap["untyped_reasons"]
        layer.model.structs = {k: (v[0], v[1], v[2]) for k, v in snap["structs"].items()}
        layer.model.enums, layer.model.records = snap["enums"], snap["records"]
    else:
        declared, constants = _parse_declarations(layer, spec)
    layer.constants = constants
    if spec["exports"] is None:
        exports = sorted(declared)
    else:
        exports = [l.strip() for l in open(os.path.join(cuda_model.HERE, "exports", spec["exports"] + ".txt"))
                   if l.strip()]
    funcs = []
    for n in exports:
        if not _belongs(spec, n):
            continue
        alias = spec["alias"].format(n) if "alias" in spec else None
        if n in declared:
            funcs.append(declared[n])
        elif alias in declared:
            f = declared[alias]
            funcs.append(Function(n, f.ret_spelled, f.ret_abi, f.params))
            funcs[-1].ret_kind = f.ret_kind
            funcs[-1].ret_enum = getattr(f, "ret_enum", None)
            funcs[-1].alias_of = alias
        else:
            layer.untyped_reasons.setdefault(n, "declared in no parsed header")
            funcs.append(Function(n, "int", "int", [], typed=False))
    layer.model.functions = sorted(funcs, key=lambda f: f.name)
    for f in funcs:
        if not f.typed:
            f.untyped_why = layer.untyped_reasons.get(f.name)
    specs.apply(spec_file, layer.model.functions, "int")
    v = constants.get(spec["unavailable"]) if spec["unavailable"] else 0
    if v is None:
        raise SystemExit("gen: layer %s: status %s not found in its headers" % (layer.name, spec["unavailable"]))
    layer.unavailable = v
    older_model.attach(layer, lambda n: _belongs(spec, n), lambda fns: specs.apply(spec_file, fns, "int"))
    return layer


def build():
    layers = [build_layer(s) for s in specs.library_layers()]
    seen = {}
    for l in layers:
        for f in l.functions:
            if f.name in seen:
                raise SystemExit("gen: %s is a function of layers %s and %s" % (f.name, seen[f.name], l.name))
            seen[f.name] = l.name
    return layers


def write_snapshot(name, include):
    spec_file = next(s for s in specs.library_layers() if s.name == name)
    spec = spec_file.layer
    layer = Layer(0, spec_file)
    declared, constants = _parse_declarations(layer, spec, include)
    snap = dict(declared=declared, untyped_reasons=layer.untyped_reasons,
                constants={spec["unavailable"]: constants[spec["unavailable"]]},
                structs=layer.model.structs, enums=layer.model.enums, records=layer.model.records)
    with open(snapshot_path(spec), "w") as f:
        json.dump(snap, f, default=_encode, indent=0, sort_keys=True)
        f.write("\n")
    print("gen: %s: %d declarations written to %s" % (name, len(declared), snapshot_path(spec)))


if __name__ == "__main__" and len(sys.argv) == 4 and sys.argv[1] == "--snapshot":
    write_snapshot(sys.argv[2], sys.argv[3])
elif __name__ == "__main__":
    for l in build():
        typed = sum(f.typed for f in l.functions)
        print("%-10s %4d functions, %4d typed, unavailable=%d" % (l.name, len(l.functions), typed, l.unavailable))
        reasons = {}
        for n, r in l.untyped_reasons.items():
            if any(f.name == n for f in l.functions):
                reasons.setdefault(r.split(";")[0][:60], []).append(n)
        for r, ns in reasons.items():
            print("    untyped (%d): %s: %s" % (len(ns), r, " ".join(ns[:6])))
