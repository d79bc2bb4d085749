#!/usr/bin/env python3
"""The specs: what cutap does with each function, one file per layer
(gen/specs/<layer>.py, format in gen/specs/README.md), and the tool that
answers "what does cutap do with X".

  gen/spec.py show NAME...     every rule that applies to NAME (a function,
                               an export-table name, one of libcutap's own
                               exports), from the specs, with what the
                               generators made of it from the headers
  gen/spec.py show --specs-only NAME...
                               the same without parsing the headers
  gen/spec.py list [LAYER]     every function that has rules of its own
  gen/spec.py check            the specs against the headers and the C
                               files they point to (gen/generate.py runs
                               the same checks; --verify fails on them)

As a module (the generators import it): load(name), layers(),
library_layers(), function_rules(layer, name), validate(model),
check_pointers(). Loading a spec needs no libclang: a spec file is data
only, read with ast.literal_eval, never imported.
"""
import ast
import os
import signal
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SPECS = os.path.join(HERE, "specs")
FIRST_LIB_LAYER = 2        # 0 driver, 1 hidden; the runtime and libraries from 2 on

# --- the schema ------------------------------------------------------------
# key: (accepted Python types, what it means). Shown by `gen/spec.py show`
# and documented, with examples, in gen/specs/README.md.
LAYER_KEYS = {
    "name": (str, "the layer's name (reports, filters, cutap_layer_lookup)"),
    "number": (int, "the layer number in trace files and cutap_layer_t (0 driver, 1 hidden, then the libraries)"),
    "parses": (list, "what libclang parses: [(headers, -D options)], each one translation unit"),
    "snapshot": (str, "parse gen/snapshots/<name>.json instead of the headers (not in the toolkit here)"),
    "exports": ((str, type(None)), "pinned export list gen/exports/<exports>.txt; None: no library, nothing exported"),
    "sonames": (list, "the loaded objects the real functions are taken from (the first one is vouched for)"),
    "versioned": (bool, "the real library puts every export in a version node named like its soname"),
    "older": (dict, "CUDA major -> soname of the library in that major (tests' fakes only)"),
    "prefixes": (list, "exported names with one of these prefixes belong to the layer"),
    "exclude_prefixes": (list, "... unless they have one of these"),
    "not_api_prefixes": (list, "exports with these prefixes are no API (not wrapped)"),
    "unavailable": ((str, type(None)), "status returned when the library cannot be found"),
    "status_types": (list, "result types that are status codes (0 = success); other results are values"),
    "status_enum": (str, "the enum decoding the status results"),
    "device_arrays": (bool, "non-const pointers to numbers/structs may be device memory: copy only strings, "
                            "handles and pointers"),
    "alias": (str, "an undeclared export N is typed like the declared alias.format(N)"),
    "nvtx_injection": (list, "NVTX callback modules whose function tables cutap fills: "
                             "[{module, cbid_prefix, macro, skip}]"),
    "tables": (list, "export tables by UUID (hidden layer): [{uuid, name, nosize_slots, wrap, why}]"),
    "handled_in": (list, "hand-written C that treats the layer specially: [(file, text found there, what)]"),
    "note": (str, "anything else a reader should know"),
}
FUNCTION_KEYS = {
    "args": (dict, "parameter -> capture role: 'in' (read only though not const: a struct is copied before "
                   "the call, numbers are not copied), 'none' (never copied), 'out' (copied after a successful "
                   "call)"),
    "kernel": (str, "the parameter holding the kernel (CUfunction) a launch runs: the recorder names it"),
    "status": (bool, "the result is (True) or is not (False) a status code, whatever its type"),
    "untyped": (str, "force the generic trampoline (the reason); no typed wrapper"),
    "device_arrays": (bool, "override the layer's device_arrays for this function"),
    "procaddr": (list, "cuGetProcAddress table corrections: [{version, flavour?, export (None: no row), why}]"),
    "nvtx_range": (dict, "what the reader makes of the call: {op, domain, arg, message} (cli/read/nvtx.c)"),
    "handled_in": (list, "hand-written C that treats the function specially: [(file, text found there, what)]"),
    "note": (str, "anything else a reader should know"),
}
ARG_ROLES = ("in", "none", "out")
NVTX_OPS = ("push", "pop", "start", "end", "mark", "register")
NVTX_MESSAGES = (None, "string", "attributes", "wide")


class SpecError(SystemExit):
    """A spec that cannot be read: the message, exit status 1."""
    def __init__(self, msg):
        super().__init__("gen: " + msg)


class Spec:
    """One spec file: its top-level names as data."""
    def __init__(self, path):
        self.path = path
        self.rel = os.path.relpath(path, ROOT)
        self.stem = os.path.splitext(os.path.basename(path))[0]
        self.data = _read(path)
        self.layer = self.data.get("LAYER")
        self.functions = self.data.get("FUNCTIONS", {})
        _check_schema(self)

    @property
    def name(self):
        return self.layer["name"] if self.layer else self.stem

    def get(self, key, default=None):
        return self.layer.get(key, default) if self.layer else default


def _read(path):
    """{NAME: value} of a spec file: a docstring and NAME = <literal>
    statements only; anything else is refused."""
    src = open(path).read()
    tree = ast.parse(src, path)
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            continue
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                raise SpecError("%s:%d: %s is not a literal (specs are data only)"
                                % (path, node.lineno, node.targets[0].id))
            continue
        raise SpecError("%s:%d: only NAME = <literal> statements are allowed in a spec" % (path, node.lineno))
    return out


def _check_schema(s):
    def bad(msg):
        raise SpecError("%s: %s" % (s.rel, msg))
    for k in s.data:
        if k not in ("LAYER", "FUNCTIONS", "EXPORTS", "DL_FIRST_LETTERS"):
            bad("unknown top-level name %s" % k)
    if s.layer is not None:
        for k, v in s.layer.items():
            if k not in LAYER_KEYS:
                bad("LAYER: unknown key %r" % k)
            if not isinstance(v, LAYER_KEYS[k][0]):
                bad("LAYER[%r]: %r is not a %s" % (k, v, LAYER_KEYS[k][0]))
        for k in ("name", "number"):
            if k not in s.layer:
                bad("LAYER has no %r" % k)
    for e in s.data.get("EXPORTS", []):
        if not (isinstance(e, dict) and set(e) == {"name", "file", "text", "what"}):
            bad("EXPORTS entry %r is not {name, file, text, what}" % (e,))
    for fn, r in s.functions.items():
        if not isinstance(r, dict):
            bad("FUNCTIONS[%r] is not a dict" % fn)
        for k, v in r.items():
            if k not in FUNCTION_KEYS:
                bad("FUNCTIONS[%r]: unknown key %r" % (fn, k))
            if not isinstance(v, FUNCTION_KEYS[k][0]):
                bad("FUNCTIONS[%r][%r]: %r is not a %s" % (fn, k, v, FUNCTION_KEYS[k][0]))
        for a, role in r.get("args", {}).items():
            if role not in ARG_ROLES:
                bad("FUNCTIONS[%r]: args[%r] = %r: not one of %s" % (fn, a, role, ", ".join(ARG_ROLES)))
        nv = r.get("nvtx_range")
        if nv is not None and (nv.get("op") not in NVTX_OPS or nv.get("message") not in NVTX_MESSAGES
                               or set(nv) - {"op", "domain", "arg", "message"}):
            bad("FUNCTIONS[%r]: nvtx_range %r" % (fn, nv))
    for where, entries in [("LAYER", s.get("handled_in", []))] + \
            [("FUNCTIONS[%r]" % fn, r.get("handled_in", [])) for fn, r in s.functions.items()]:
        for e in entries:
            if not (isinstance(e, tuple) and len(e) == 3 and all(isinstance(x, str) for x in e)):
                bad("%s: handled_in entry %r is not (file, text, what)" % (where, e))


_cache = {}


def load(stem):
    """The spec gen/specs/<stem>.py."""
    if stem not in _cache:
        _cache[stem] = Spec(os.path.join(SPECS, stem + ".py"))
    return _cache[stem]


def all_specs():
    return [load(f[:-3]) for f in sorted(os.listdir(SPECS)) if f.endswith(".py")]


def layers():
    """The layer specs in layer-number order; numbers must be 0..n-1."""
    ls = sorted((s for s in all_specs() if s.layer is not None), key=lambda s: s.layer["number"])
    if [s.layer["number"] for s in ls] != list(range(len(ls))):
        raise SpecError("gen/specs: layer numbers are not 0..%d: %s"
                        % (len(ls) - 1, ", ".join("%s=%d" % (s.name, s.layer["number"]) for s in ls)))
    return ls


def library_layers():
    """The runtime and library layers (number 2 on), in number order."""
    return [s for s in layers() if s.layer["number"] >= FIRST_LIB_LAYER]


def function_rules(s, name):
    """The rules of function name in spec s ({} when it has none)."""
    return s.functions.get(name, {})


def belongs(s, name):
    """Whether an exported name belongs to layer s by its prefixes."""
    if any(name.startswith(p) for p in s.get("exclude_prefixes", [])):
        return False
    return any(name.startswith(p) for p in s.get("prefixes", []))


def owner(name):
    """The layer whose longest prefix the name has (cudaMalloc: runtime, not
    the driver's "cu"), or None."""
    best, n = None, 0
    for s in layers():
        for p in s.get("prefixes", []):
            if belongs(s, name) and name.startswith(p) and len(p) > n:
                best, n = s, len(p)
    return best


def apply(s, functions, untyped_result):
    """Attach the rules of spec s to the model's functions of its layer:
    f.rules (the function's own), f.arg_roles, f.device_arrays,
    f.kernel_arg (index, -1: none), f.status (the result is a status
    code). A function whose rules say "untyped" loses its signature here
    (its result then spelled untyped_result)."""
    dev = s.get("device_arrays", False)
    status_types = s.get("status_types", [])
    for f in functions:
        r = function_rules(s, f.name)
        f.rules = r
        if r.get("untyped") and f.typed:
            f.typed, f.params, f.ret_spelled, f.ret_abi, f.ret_kind = False, [], untyped_result, "int", None
            f.untyped_why = "spec: " + r["untyped"]
        f.arg_roles = r.get("args", {})
        f.device_arrays = r.get("device_arrays", dev)
        k = r.get("kernel")
        f.kernel_arg = next((i for i, p in enumerate(f.params) if p.name == k), -1) if k and f.typed else -1
        if "status" in r:
            f.status = r["status"]
        else:
            f.status = bool(f.typed and f.ret_kind == "enum" and
                            f.ret_spelled.replace("enum ", "").strip() in status_types)


# --- checks against the model and the C files --------------------------------

def _param_index(f, pname):
    for i, p in enumerate(f.params):
        if p.name == pname:
            return i
    return None


def validate(model):
    """Problems of the specs against the model built from the headers: rules
    naming functions or parameters that do not exist, kernels that are no
    CUfunction, NVTX roles of functions not in the layer."""
    problems = []
    by_layer = [(load("driver"), model.functions, set(b for b, _, _, _ in model.versions) | model.procaddr_bases)]
    by_layer += [(l.spec_file, l.functions, set()) for l in model.layers]
    for s, fns, extra in by_layer:
        names = {f.name: f for f in fns}
        for fn, r in s.functions.items():
            where = "%s: FUNCTIONS[%r]" % (s.rel, fn)
            f = names.get(fn)
            if f is None:
                if fn in extra and set(r) <= {"procaddr", "note", "handled_in"}:
                    continue
                problems.append("%s: no such function in layer %s" % (where, s.name))
                continue
            for a in list(r.get("args", {})) + ([r["kernel"]] if "kernel" in r else []):
                if f.typed and _param_index(f, a) is None:
                    problems.append("%s: %s has no parameter %r" % (where, fn, a))
            if "kernel" in r and f.typed:
                i = _param_index(f, r["kernel"])
                if i is not None and f.params[i].spelled.replace("const", "").strip() != "CUfunction":
                    problems.append("%s: kernel %r is a %s, not a CUfunction" % (where, r["kernel"], f.params[i].spelled))
            nv = r.get("nvtx_range")
            if nv:
                for k in ("domain", "arg"):
                    if nv.get(k) is not None and _param_index(f, nv[k]) is None:
                        problems.append("%s: nvtx_range %s %r is no parameter" % (where, k, nv[k]))
            if ("args" in r or "kernel" in r) and not f.typed:
                problems.append("%s: capture rules for an untyped function" % where)
    return problems


def pointers():
    """Every handled_in entry: (spec, function or None, file, text, what)."""
    out = []
    for s in all_specs():
        for e in s.get("handled_in", []):
            out.append((s, None) + e)
        for fn, r in s.functions.items():
            for e in r.get("handled_in", []):
                out.append((s, fn) + e)
        for e in s.data.get("EXPORTS", []):
            out.append((s, e["name"], e["file"], e["text"], e["what"]))
    return out


def check_pointers(root=ROOT):
    """Problems of the handled_in entries: the file is gone, or the text
    that marks the place is no longer in it."""
    problems, texts = [], {}
    for s, fn, path, text, _ in pointers():
        full = os.path.join(root, path)
        if full not in texts:
            texts[full] = open(full, errors="replace").read() if os.path.exists(full) else None
        where = "%s%s" % (s.rel, ": %s" % fn if fn else "")
        if texts[full] is None:
            problems.append("%s: handled_in names %s, which does not exist" % (where, path))
        elif text not in texts[full]:
            problems.append("%s: handled_in: %r is no longer in %s" % (where, text, path))
    return problems


def check_dl_letters(root=ROOT):
    """The first letters the front's dlsym lets through to the core
    (src/front/front.c maybe_ours; libcutap.py DL_FIRST_LETTERS) cover
    every layer's prefixes."""
    letters = load("libcutap").data["DL_FIRST_LETTERS"]
    dl = os.path.join(root, "src/front/front.c")
    gone = [] if os.path.exists(dl) and "static int maybe_ours(" in open(dl).read() else \
        ["gen/specs/libcutap.py: DL_FIRST_LETTERS: maybe_ours() is no longer in src/front/front.c"]
    return gone + ["%s: prefix %r does not start with one of DL_FIRST_LETTERS (gen/specs/libcutap.py): "
            "dlsym lookups of its names would not be seen" % (s.rel, p)
            for s in layers() for p in s.get("prefixes", []) if not any(p.startswith(x) for x in letters)]


# --- the tool --------------------------------------------------------------

def _model():
    sys.path.insert(0, HERE)
    import generate
    return generate.build_model()


def _wrap(text, indent, width=100):
    words, lines, cur = text.split(), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width - indent:
            lines.append(cur)
            cur = w
        else:
            cur = cur + " " + w if cur else w
    lines.append(cur)
    return ("\n" + " " * indent).join(lines)


def _show_rules(s, fn, r):
    out = []
    if not r:
        return ["  rules of its own: none (%s has no FUNCTIONS[%r]): the layer's rules apply" % (s.rel, fn)]
    out.append("  rules of its own (%s FUNCTIONS[%r]):" % (s.rel, fn))
    for k, v in r.items():
        if k == "handled_in":
            continue
        if k == "procaddr":
            for o in v:
                out.append("    procaddr: v%d%s -> %s: %s" % (o["version"], " " + o["flavour"] if o.get("flavour") else "",
                                                            o["export"], _wrap(o.get("why", ""), 8)))
            continue
        out.append("    %s: %s" % (k, _wrap(repr(v) if not isinstance(v, str) else v, 6)))
        out.append("      (%s)" % _wrap(FUNCTION_KEYS[k][1], 7))
    return out


def _show_layer(s):
    out = ["  layer rules (%s LAYER):" % s.rel]
    for k, v in s.layer.items():
        if k in ("name", "number", "handled_in", "tables", "nvtx_injection", "note"):
            continue
        out.append("    %-17s %s" % (k + ":", _wrap(str(v), 22)))
    return out


def _show_handled(entries):
    out = []
    for path, text, what in entries:
        out.append("    %s, at %s:" % (path, text))
        out.append("      " + _wrap(what, 6))
    return out


def _param_lines(f, dev, roles):
    import gen_common
    out = []
    for i, p in enumerate(f.params):
        cap, why = gen_common.capture_rule(p, dev, roles)
        c = "%s %d" % (cap[0].replace("CUTAP_CAP_", ""), cap[1]) if cap else "word only"
        out.append("    %2d %-22s %-34s %-16s %s" % (i, p.name, p.spelled, c, why))
    return out


def show(names, specs_only=False):
    model = None if specs_only else _model()
    rc = 0
    for name in names:
        found = False
        for s in layers():
            fns = None
            if model is not None:
                if s.name == "driver":
                    fns = model.functions
                else:
                    fns = next((l.functions for l in model.layers if l.name == s.name), [])
            f = next((x for x in fns if x.name == name), None) if fns is not None else None
            mine = name in s.functions or f is not None or (model is None and owner(name) is s)
            if not mine and s.name == "driver" and model is not None:
                mine = any(b == name for b, _, _, _ in model.versions)
            if not mine:
                continue
            found = True
            print("%s: layer %s (%d)" % (name, s.name, s.layer["number"]))
            print("\n".join(_show_layer(s)))
            r = function_rules(s, name)
            print("\n".join(_show_rules(s, name, r)))
            if f is not None:
                import gen_common
                print("  from the %s (%s):" % ("snapshot gen/snapshots/%s.json" % s.get("snapshot")
                                               if s.get("snapshot") else "headers",
                                               "typed: %s %s(...)" % (f.ret_spelled, f.name) if f.typed else
                                               "untyped: the generic trampoline"))
                if not f.typed:
                    why = getattr(f, "untyped_why", None)
                    if why:
                        print("    why: %s" % _wrap(why, 9))
                if getattr(f, "alias_of", None):
                    print("    typed like %s, which the header declares (the layer's alias rule)" % f.alias_of)
                if f.typed:
                    dev = getattr(f, "device_arrays", False)
                    print("    %2s %-22s %-34s %-16s %s" % ("#", "parameter", "type", "recorder copies", "because"))
                    print("\n".join(_param_lines(f, dev, r.get("args", {}))))
                    print("    result: %s" % ("a status code" if f.status else "a value (nostatus)"))
                    if getattr(f, "kernel_arg", -1) >= 0:
                        print("    kernel named from argument %d" % f.kernel_arg)
                    import fastpath_generator
                    print("    recorder fast path: %s" % ("yes" if fastpath_generator.simple(f) is not None else
                                                          "no (general path: its captures are not only "
                                                          "4/8-byte outputs, or it returns a float)"))
            if model is not None and s.name == "driver":
                rows = [v for v in model.versions if v[0] == name or v[3] == name]
                if rows:
                    print("  cuGetProcAddress (base, version, flavour -> export):")
                    for b, v, fl, e in rows:
                        print("    %s %d %s -> %s" % (b, v, fl or "plain", e))
            if r.get("handled_in"):
                print("  hand-written C for this function:")
                print("\n".join(_show_handled(r["handled_in"])))
            lh = s.get("handled_in", [])
            if lh:
                print("  hand-written C for the whole layer:")
                print("\n".join(_show_handled(lh)))
        # export tables (hidden layer) and libcutap's own exports
        hidden = load("hidden")
        base = name.split("#")[0]
        for t in hidden.get("tables", []):
            if base in (t.get("name"), t["uuid"]):
                found = True
                print("%s: export table %s (layer hidden, %s LAYER tables)" % (name, t["uuid"], hidden.rel))
                print("    name: %s" % t.get("name"))
                print("    size word: %s" % ("none, %d function slots" % t["nosize_slots"] if t.get("nosize_slots")
                                             else "yes (word 0)"))
                print("    wrapped when CUTAP_HIDDEN is unset: %s" % ("yes" if t["wrap"] else "no"))
                print("    why: %s" % _wrap(t.get("why", ""), 9))
                print("\n".join(_show_handled(hidden.get("handled_in", []))))
        for e in load("libcutap").data.get("EXPORTS", []):
            if e["name"] == name or (e["name"].endswith("*") and name.startswith(e["name"][:-1])):
                found = True
                print("%s: exported by libcutap.so (%s EXPORTS)" % (name, load("libcutap").rel))
                print("\n".join(_show_handled([(e["file"], e["text"], e["what"])])))
        if not found:
            print("%s: no function of a layer, export table or libcutap.so export: cutap does nothing with it "
                  "(but a \"cu\" name looked up on the driver's own handle gets the generic trampoline: "
                  "gen/specs/driver.py LAYER handled_in)" % name)
            rc = 1
        print()
    return rc


def list_rules(layer=None):
    for s in all_specs():
        if layer and s.name != layer:
            continue
        if not s.functions:
            continue
        print("%s (%s): %d functions with rules of their own" % (s.name, s.rel, len(s.functions)))
        for fn, r in s.functions.items():
            print("  %-44s %s" % (fn, ", ".join(sorted(r))))
    return 0


def check():
    problems = check_pointers() + check_dl_letters() + validate(_model())
    for p in problems:
        print("spec: " + p)
    print("spec: %d problem(s)" % len(problems))
    return 1 if problems else 0


def main(argv):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)   # `gen/spec.py show X | head`
    if len(argv) >= 2 and argv[0] == "show":
        specs_only = "--specs-only" in argv
        return show([a for a in argv[1:] if a != "--specs-only"], specs_only)
    if argv and argv[0] == "list":
        return list_rules(argv[1] if len(argv) > 1 else None)
    if argv == ["check"]:
        return check()
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
