"""The model every cutap generator works from.

It parses the pinned CUDA driver headers (gen/cuda_api.h) with libclang and
returns:
  * every exported driver entry point declared there, with its parameters in
    two forms: as spelled in the header (for decoders and docs) and as an
    ABI-equivalent plain C type (so generated code needs no CUDA header);
  * the exports the real driver has that no header declares (from the pinned
    export list of a real driver), intercepted through the generic trampoline;
  * the cuGetProcAddress version table: for each base name, version and
    per-thread-stream flavour, which exported variant the driver hands out.

What the headers do not say (which prefixes, which exports are no API,
which arguments are inputs, which one is a launch's kernel, corrections to
the version table) comes from the driver's spec, gen/specs/driver.py.

Only generators import this module; the normal build never runs Python.
"""
import hashlib
import json
import os
import re
import sys

import spec

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

try:
    import clang.cindex as ci
except ImportError:  # Debian ships the bindings for /usr/bin/python3 only
    sys.path.insert(0, "/usr/lib/python3/dist-packages")
    import clang.cindex as ci


def _libclang():
    for cand in ("/usr/lib/x86_64-linux-gnu/libclang-14.so.1",
                 "/usr/lib/llvm-14/lib/libclang.so.1"):
        if os.path.exists(cand):
            return cand
    return None


KNOWN_GOOD = json.load(open(os.path.join(HERE, "known_good.json")))
CUDA_INCLUDE = os.environ.get("CUTAP_CUDA_INCLUDE", KNOWN_GOOD["cuda_include"])
HEADERS = ["cuda.h", "cudaProfiler.h", "cudaGL.h", "cudaEGL.h", "cudaVDPAU.h",
           "cudaTypedefs.h", "cudaGLTypedefs.h", "cudaEGLTypedefs.h",
           "cudaVDPAUTypedefs.h", "cudaProfilerTypedefs.h"]

INT_KINDS = {
    ci.TypeKind.BOOL: "_Bool",
    ci.TypeKind.CHAR_S: "char", ci.TypeKind.SCHAR: "signed char",
    ci.TypeKind.UCHAR: "unsigned char", ci.TypeKind.CHAR_U: "unsigned char",
    ci.TypeKind.SHORT: "short", ci.TypeKind.USHORT: "unsigned short",
    ci.TypeKind.INT: "int", ci.TypeKind.UINT: "unsigned int",
    ci.TypeKind.LONG: "long", ci.TypeKind.ULONG: "unsigned long",
    ci.TypeKind.LONGLONG: "long long", ci.TypeKind.ULONGLONG: "unsigned long long",
}
SIGNED = {"char", "signed char", "short", "int", "long", "long long"}


class TypeInfo:
    """A type with its typedefs resolved, as recorders and decoders need it."""
    def __init__(self, kind, size, const=False, name=None, pointee=None, char=False):
        self.kind = kind          # int | uint | enum | float | double | ptr | record | void | func
        self.size = size          # bytes; < 0 for incomplete types
        self.const = const        # const-qualified at this level
        self.name = name          # enum / record: key into Model.enums / Model.records
        self.pointee = pointee    # ptr: what it points to (parameters: two levels deep)
        self.char = char          # plain char (strings)


class Enum:
    def __init__(self, name, values):
        self.name = name
        self.values = values      # (constant name, value), in declaration order


class Field:
    def __init__(self, name, offset, type, count=None, bitfield=False):
        self.name = name
        self.offset = offset      # bytes from the start of the record
        self.type = type          # TypeInfo (of one element for arrays)
        self.count = count        # element count of an array field, else None
        self.bitfield = bitfield


class Record:
    def __init__(self, name, size, union, fields):
        self.name = name
        self.size = size
        self.union = union
        self.fields = fields      # list of Field, in declaration order


class Param:
    def __init__(self, name, spelled, abi, kind, struct=None, type=None):
        self.name = name          # parameter name from the header
        self.spelled = spelled    # type as written in the header
        self.abi = abi            # ABI-equivalent C type used in generated code
        self.kind = kind          # int | uint | ptr | float | double | struct | enum
        self.struct = struct      # for kind == struct: name of the generated struct
        self.type = type          # TypeInfo


class Function:
    def __init__(self, name, ret_spelled, ret_abi, params, typed=True):
        self.name = name
        self.ret_spelled = ret_spelled
        self.ret_abi = ret_abi
        self.params = params
        self.typed = typed
        self.ret_kind = None      # kind of the result (an enum is a status code)


class Model:
    def __init__(self):
        self.functions = []       # sorted by name, typed and untyped
        self.structs = {}         # generated struct name -> list of (abi type, field name)
        self.enums = {}           # name -> Enum, for every enum a parameter type reaches
        self.records = {}         # name -> Record, likewise (complete ones only)
        self.versions = []        # (base, version, flavour, export name)
        self.header_version = None
        self.header_digest = None


def _parse(header, defines):
    idx = ci.Index.create()
    args = ["-x", "c", "-std=c11", "-I" + os.path.join(HERE, "stub"), "-I" + CUDA_INCLUDE] + defines
    tu = idx.parse(os.path.join(HERE, header), args=args)
    errors = [str(d) for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    if errors:
        raise SystemExit("gen: libclang could not parse the CUDA headers:\n  " + "\n  ".join(errors))
    return tu


class _Builder:
    def __init__(self, model):
        self.model = model

    def abi(self, t, where):
        """Map a libclang type to (abi C type, kind, struct name)."""
        c = t.get_canonical()
        k = c.kind
        if k in (ci.TypeKind.POINTER, ci.TypeKind.INCOMPLETEARRAY,
                 ci.TypeKind.CONSTANTARRAY, ci.TypeKind.BLOCKPOINTER):
            return "void *", "ptr", None
        if k == ci.TypeKind.ENUM:
            under = c.get_declaration().enum_type.get_canonical()
            name = INT_KINDS[under.kind]
            return name, "enum", None
        if k in INT_KINDS:
            name = INT_KINDS[k]
            return name, ("int" if name in SIGNED else "uint"), None
        if k == ci.TypeKind.FLOAT:
            return "float", "float", None
        if k == ci.TypeKind.DOUBLE:
            return "double", "double", None
        if k == ci.TypeKind.VOID:
            return "void", "void", None
        if k == ci.TypeKind.RECORD:
            decl = c.get_declaration()
            sname = "cutap_sv_" + (decl.spelling or "anon")
            if sname not in self.model.structs and c.get_size() > 16:
                # The SysV x86-64 ABI passes aggregates over 16 bytes in
                # memory whatever their members: size and alignment suffice.
                self.model.structs[sname] = ([("unsigned char", "bytes[%d]" % c.get_size())],
                                             c.get_size(), c.get_align())
            if sname not in self.model.structs:
                fields = []
                for f in decl.get_children():
                    if f.kind != ci.CursorKind.FIELD_DECL:
                        continue
                    ft = f.type.get_canonical()
                    if ft.kind == ci.TypeKind.CONSTANTARRAY:
                        et, _, _ = self.abi(ft.element_type, where)
                        fields.append((et, "%s[%d]" % (f.spelling, ft.element_count)))
                    else:
                        et, _, _ = self.abi(ft, where)
                        fields.append((et, f.spelling))
                if decl.kind != ci.CursorKind.STRUCT_DECL:
                    raise SystemExit("gen: %s passes a union by value; not supported" % where)
                self.model.structs[sname] = (fields, c.get_size(), c.get_align())
            return "struct " + sname, "struct", sname
        raise SystemExit("gen: %s has a parameter type the generator does not know: %s (%s)"
                         % (where, t.spelling, k))

    def info(self, t, depth=2, hint=None):
        """TypeInfo of t. Pointers are followed depth levels; enums and
        complete records met on the way are described in the model."""
        const, tdname = False, None
        while True:   # strip typedefs and elaborated names, keeping const
            const = const or t.is_const_qualified()
            if t.kind == ci.TypeKind.TYPEDEF:
                tdname = t.get_declaration().spelling
                t = t.get_declaration().underlying_typedef_type
            elif t.kind == ci.TypeKind.ELABORATED:
                t = t.get_named_type()
            else:
                break
        k, size = t.kind, t.get_size()
        if k == ci.TypeKind.POINTER:
            pointee = self.info(t.get_pointee(), depth - 1) if depth > 0 else None
            return TypeInfo("ptr", size, const, pointee=pointee)
        if k in (ci.TypeKind.BLOCKPOINTER, ci.TypeKind.INCOMPLETEARRAY, ci.TypeKind.CONSTANTARRAY):
            return TypeInfo("ptr", 8, const)
        if k == ci.TypeKind.ENUM:
            decl = t.get_declaration()
            name = decl.spelling or tdname or hint
            if name not in self.model.enums:
                self.model.enums[name] = Enum(name, [(c.spelling, c.enum_value) for c in decl.get_children()
                                                     if c.kind == ci.CursorKind.ENUM_CONSTANT_DECL])
            return TypeInfo("enum", size, const, name=name)
        if k in INT_KINDS:
            return TypeInfo("int" if INT_KINDS[k] in SIGNED else "uint", size, const,
                            char=k in (ci.TypeKind.CHAR_S, ci.TypeKind.CHAR_U))
        if k in (ci.TypeKind.FLOAT, ci.TypeKind.DOUBLE):
            return TypeInfo(k.spelling.lower(), size, const)
        if k == ci.TypeKind.RECORD:
            decl = t.get_declaration()
            name = decl.spelling or tdname or hint
            if size > 0 and name not in self.model.records:
                self.model.records[name] = Record(name, size, decl.kind == ci.CursorKind.UNION_DECL,
                                                  self.fields(decl, name))
            return TypeInfo("record", size, const, name=name)
        if k in (ci.TypeKind.FUNCTIONPROTO, ci.TypeKind.FUNCTIONNOPROTO):
            return TypeInfo("func", -1, const)
        return TypeInfo("void", -1, const)

    def fields(self, decl, rname):
        out = []
        for f in decl.get_children():
            if f.kind != ci.CursorKind.FIELD_DECL:
                continue
            ft, count = f.type, None
            if ft.get_canonical().kind == ci.TypeKind.CONSTANTARRAY:
                ft, count = ft.get_canonical().element_type, ft.get_canonical().element_count
            ti = self.info(ft, 0, "%s.%s" % (rname, f.spelling))
            out.append(Field(f.spelling, f.get_field_offsetof() // 8, ti, count, f.is_bitfield()))
        return out

    def function(self, cur, returns=("enum", "int", "uint", "void")):
        params = []
        for i, a in enumerate(cur.get_arguments()):
            where = "%s parameter %d" % (cur.spelling, i)
            abi, kind, sname = self.abi(a.type, where)
            params.append(Param(a.spelling or "a%d" % i, a.type.spelling, abi, kind, sname,
                                self.info(a.type)))
        if cur.type.kind == ci.TypeKind.FUNCTIONPROTO and cur.type.is_function_variadic():
            raise SystemExit("gen: %s is variadic; not supported" % cur.spelling)
        rabi, rkind, _ = self.abi(cur.result_type, cur.spelling + " result")
        if rkind not in returns:
            raise SystemExit("gen: %s returns %s; not supported" % (cur.spelling, rabi))
        f = Function(cur.spelling, cur.result_type.spelling, rabi, params)
        f.ret_kind = rkind
        return f


def _declared(tu, builder, out, pfns, prefixes):
    for c in tu.cursor.get_children():
        if c.kind == ci.CursorKind.FUNCTION_DECL and c.spelling.startswith(prefixes):
            if c.is_definition():   # static inline helpers (cuGetProcAddress_v2_ptsz) are no exports
                continue
            if c.spelling not in out:
                out[c.spelling] = builder.function(c)
        elif c.kind == ci.CursorKind.TYPEDEF_DECL and c.spelling.startswith(tuple("PFN_" + p for p in prefixes)):
            pfns.add(c.spelling)


def _digest():
    h = hashlib.sha256()
    for name in HEADERS:
        h.update(open(os.path.join(CUDA_INCLUDE, name), "rb").read())
    return h.hexdigest()


def _header_version():
    m = re.search(r"#define\s+CUDA_VERSION\s+(\d+)", open(os.path.join(CUDA_INCLUDE, "cuda.h")).read())
    return int(m.group(1))


PFN_RE = re.compile(r"^PFN_(cu\w+?)_v(\d+)(?:_(ptds|ptsz))?$")
VARIANT_RE = re.compile(r"^(cu\w+?)(?:_v(\d+))?(?:_(ptds|ptsz))?$")


def _version_table(pfns, exports, overrides):
    """Pair each PFN_<base>_v<ver>[_ptds|_ptsz] typedef with the export it names.

    The driver publishes no mapping; cudaTypedefs.h gives the versions and the
    export list gives the variants. Plain variants sorted by their _vN suffix
    pair with the plain versions in ascending order; a _ptds/_ptsz version
    goes to the newest plain variant at or below it plus that suffix. Cases
    where that rule is wrong are corrected by the "procaddr" rules of
    gen/specs/driver.py, each checked against a real driver by tests/gpu
    (procaddr check).
    """
    plain, flav = {}, {}
    for p in sorted(pfns):
        m = PFN_RE.match(p)
        if not m:
            continue
        base, ver, fl = m.group(1), int(m.group(2)), m.group(3)
        (flav if fl else plain).setdefault(base, []).append((ver, fl))
    variants = {}
    for e in exports:
        m = VARIANT_RE.match(e)
        if m and not m.group(3):
            variants.setdefault(m.group(1), []).append((int(m.group(2) or 1), e))
    table, problems = [], []
    for base in sorted(set(plain) | set(flav)):
        pv = sorted(v for v, _ in plain.get(base, []))
        vs = [e for _, e in sorted(variants.get(base, []))]
        pair = {}
        if len(vs) >= len(pv):
            # The newest variants are the ones still reachable; older ones
            # without a typedef are exported for old binaries only.
            for v, e in zip(pv, vs[len(vs) - len(pv):]):
                pair[v] = e
        else:
            problems.append("%s: %d versions %s, %d variants %s" % (base, len(pv), pv, len(vs), vs))
        for v in pv:
            if v in pair:
                table.append((base, v, "", pair[v]))
        for v, fl in sorted(flav.get(base, [])):
            below = [pair[x] for x in pv if x <= v and x in pair]
            cand = None
            if below:
                for suffix in ("_" + fl, "_ptds", "_ptsz"):
                    if below[-1] + suffix in exports:
                        cand = below[-1] + suffix
                        break
            if cand is None:
                problems.append("%s v%d_%s: no exported per-thread variant" % (base, v, fl))
                continue
            table.append((base, v, fl, cand))
    for o in overrides:
        key = (o["base"], o["version"], o.get("flavour", ""))
        table = [t for t in table if (t[0], t[1], t[2]) != key]
        if o.get("export"):
            table.append(key + (o["export"],))
        problems = [p for p in problems if not p.startswith(o["base"] + ":") and not p.startswith(o["base"] + " ")]
    table.sort()
    return table, problems


def build():
    lib = _libclang()
    if lib and not ci.Config.loaded:
        ci.Config.set_library_file(lib)
    model = Model()
    model.header_version = _header_version()
    model.header_digest = _digest()
    if model.header_version != KNOWN_GOOD["cuda_version"]:
        raise SystemExit("gen: headers at %s are CUDA %d, known_good.json pins %d"
                         % (CUDA_INCLUDE, model.header_version, KNOWN_GOOD["cuda_version"]))
    s = spec.load("driver")
    prefixes = tuple(s.get("prefixes"))
    b = _Builder(model)
    declared, pfns = {}, set()
    for headers, defines in s.get("parses"):
        for h in headers:
            _declared(_parse(h, defines), b, declared, pfns, prefixes)
    ref = [l.strip() for l in open(os.path.join(HERE, KNOWN_GOOD["driver_exports"])) if l.strip()]
    api = [n for n in ref if not n.startswith(tuple(s.get("not_api_prefixes", [])))]
    funcs = [declared[n] for n in declared]
    for n in api:
        if n not in declared:
            funcs.append(Function(n, "CUresult", "int", [], typed=False))
            funcs[-1].untyped_why = "exported by the driver, declared in no parsed header"
    model.functions = sorted(funcs, key=lambda f: f.name)
    spec.apply(s, model.functions, "CUresult")
    for f in model.functions:
        if f.typed and not f.status:
            raise SystemExit("gen: %s returns %s, not one of the driver's status_types (gen/specs/driver.py): "
                             "the driver's tables have no place for a result that is no status"
                             % (f.name, f.ret_spelled))
    overrides = [dict(o, base=base) for base, r in s.functions.items() for o in r.get("procaddr", [])]
    exports = set(f.name for f in model.functions)
    model.versions, model.version_problems = _version_table(pfns, exports, overrides)
    model.procaddr_bases = set(m.group(1) for m in map(PFN_RE.match, pfns) if m)
    return model


def banner(generator, comment="/*", end=" */"):
    return ("%s DO NOT EDIT. Generated by gen/%s from the CUDA %s headers\n"
            "%s (see gen/known_good.json); regenerate with `make regen`.%s\n"
            % (comment, generator, KNOWN_GOOD["cuda_version_string"],
               " *" if comment == "/*" else comment, end))


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


if __name__ == "__main__":
    m = build()
    print("functions", len(m.functions), "typed", sum(f.typed for f in m.functions))
    print("structs", m.structs)
    print("versions", len(m.versions))
    for p in m.version_problems:
        print("problem", p)
