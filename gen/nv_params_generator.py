"""Generates cli/generated/nv_params_tables.c: the layouts of the parameter
blocks of RM control commands and RM allocations (issue #32), as compact
tables (types, members, enumerators, one string table) that cli/nv_params.c
walks to show a captured block field by field. The structs are declared in
cli/nv_params.h.

Reads gen/snapshots/nv_params.json only (written by gen/nv_params_snapshot.py
from NVIDIA's open-gpu-kernel-modules headers, which the repository does
not hold), so `make regen-check` needs neither those headers nor libclang.
Only the cutap command links these tables: libcutap.so records the raw
bytes, sized by src/common/generated/nv_alloc_sizes.c (also written here)
where an RM_ALLOC gives no size."""
import json
import os

import cuda_model
import nv_ioctl_generator

SNAPSHOT = os.path.join(cuda_model.HERE, "snapshots", "nv_params.json")
OUTPUT = "cli/generated/nv_params_tables.c"
SIZES = "src/common/generated/nv_alloc_sizes.c"
KINDS = {"u": "U", "s": "S", "bool": "BOOL", "handle": "HANDLE", "ptr": "PTR", "char": "CHAR", "float": "FLOAT",
         "enum": "ENUM", "struct": "STRUCT", "union": "UNION", "array": "ARRAY"}


class Strings:
    """One NUL-separated table; offset 0 is the empty string."""

    def __init__(self):
        self.parts, self.at, self.size = [""], {"": 0}, 1

    def of(self, s):
        if s not in self.at:
            if not all(c.isalnum() or c == "_" for c in s):
                raise SystemExit("gen: nv_params.json: odd name %r" % s)
            self.at[s] = self.size
            self.parts.append(s)
            self.size += len(s) + 1
        return self.at[s]


def generate_all(model):
    with open(SNAPSHOT) as f:
        snap = json.load(f)
    src = snap["source"]
    st = Strings()
    types, members, enums = [], [], []
    for t in snap["types"]:
        k = t["k"]
        if k in ("struct", "union"):
            first, n = len(members), len(t["fields"])
            for name, off, ty in t["fields"]:
                members.append("{%d, %d, %d}" % (st.of(name), off, ty))
        elif k == "array":
            first, n = t["elem"], t["count"]
        elif k == "enum":
            first, n = len(enums), len(t["values"])
            for v, name in t["values"]:
                enums.append("{%dll, %d}" % (v, st.of(name)))
        else:
            first, n = 0, 0
        types.append("{CUTAP_NVP_%s, %d, %d, %d, %d}" % (KINDS[k], t["size"], st.of(t.get("name", "")), first, n))
    roots = {}
    for what, rows in (("ctrls", snap["controls"]), ("classes", snap["classes"])):
        keys = [int(r[0], 16) for r in rows]
        if keys != sorted(set(keys)):
            raise SystemExit("gen: nv_params.json: %s not sorted or twice" % what)
        roots[what] = ["{0x%xu, %d}" % (int(r[0], 16), r[1]) for r in rows]
    s = snap["stats"]
    out = [nv_ioctl_generator.banner(snap, "nv_params_generator.py").replace(
               "gen/snapshots/nv_ioctl.json", "gen/snapshots/nv_params.json").replace(
               "gen/nv_ioctl_snapshot.py", "gen/nv_params_snapshot.py"),
           "/* %d of the %d control command numbers the headers define have a parameter struct"
           % (s["commands_with_layout"], s["commands_defined"]),
           " * (most others take no parameters); %d of %d classes have allocation parameters"
           % (s["classes_with_layout"], s["classes_defined"]),
           " * the headers pair with them. */",
           '#include "nv_params.h"\n',
           "const struct cutap_nvp_type cutap_nvp_types[] = {"]
    out += ["    %s," % t for t in types]
    out += ["};", "const unsigned cutap_nvp_ntypes = %d;\n" % len(types),
            "const struct cutap_nvp_member cutap_nvp_members[] = {"]
    out += ["    %s," % m for m in members]
    out += ["};", "const unsigned cutap_nvp_nmembers = %d;\n" % len(members),
            "const struct cutap_nvp_enumerator cutap_nvp_enumerators[] = {"]
    out += ["    %s," % e for e in enums]
    out += ["};", "const unsigned cutap_nvp_nenumerators = %d;\n" % len(enums),
            "/* Control commands by number, and classes by number: their block's type. */",
            "const struct cutap_nvp_root cutap_nvp_ctrls[] = {"]
    out += ["    %s," % r for r in roots["ctrls"]]
    out += ["};", "const unsigned cutap_nvp_nctrls = %d;\n" % len(roots["ctrls"]),
            "const struct cutap_nvp_root cutap_nvp_classes[] = {"]
    out += ["    %s," % r for r in roots["classes"]]
    out += ["};", "const unsigned cutap_nvp_nclasses = %d;\n" % len(roots["classes"]),
            "const char cutap_nvp_strings[] ="]
    line = '    "'
    for p in st.parts:
        piece = p + "\\0"
        if len(line) + len(piece) > 110:
            out.append(line + '"')
            line = '    "'
        line += piece
    out.append(line + '";')
    out.append("const unsigned cutap_nvp_strings_size = %d;" % st.size)
    # For the recorder: libcuda passes RM_ALLOC's paramsSize as 0 (measured,
    # driver 580), and the driver takes the size of the class's struct.
    sizes = [nv_ioctl_generator.banner(snap, "nv_params_generator.py").replace(
                 "gen/snapshots/nv_ioctl.json", "gen/snapshots/nv_params.json").replace(
                 "gen/nv_ioctl_snapshot.py", "gen/nv_params_snapshot.py"),
             "/* The size of each class's allocation parameters, by class number (sorted):",
             " * what an RM_ALLOC's block is when its paramsSize is 0 (declared in",
             " * src/common/nv_ioctl.h; the same struct, not included: this directory is",
             " * below it). */",
             "#include <stdint.h>\n",
             "struct cutap_nv_alloc_size {",
             "    uint32_t hclass, size;",
             "};",
             "extern const struct cutap_nv_alloc_size cutap_nv_alloc_sizes[];",
             "extern const unsigned cutap_nv_nalloc_sizes;\n",
             "const struct cutap_nv_alloc_size cutap_nv_alloc_sizes[] = {"]
    sizes += ["    {0x%xu, %du}," % (int(r[0], 16), snap["types"][r[1]]["size"]) for r in snap["classes"]]
    sizes += ["};", "const unsigned cutap_nv_nalloc_sizes = %d;" % len(snap["classes"])]
    return {OUTPUT: "\n".join(out) + "\n", SIZES: "\n".join(sizes) + "\n"}
