"""Generates src/common/generated/hidden_tables.h from the export tables of the
hidden layer's spec (gen/specs/hidden.py "tables"), as two initializer
lists:

  CUTAP_KNOWN_TABLES  {name, UUID bytes, function slots of a table without
                      a size word (0: it has one)} of each named table:
                      src/common/export_tables.c (the UUID -> name lookup
                      of libcutap.so and the cutap command)
  CUTAP_DEFAULT_WRAP  the tables wrapped when CUTAP_HIDDEN is unset, by
                      name, or by UUID in hex when unnamed:
                      src/resolve/exporttable.c"""
import re

import cuda_model
import spec
from gen_common import c_str


def tables():
    ts = spec.load("hidden").get("tables")
    seen = set()
    for t in ts:
        if not re.fullmatch(r"[0-9a-f]{32}", t["uuid"]):
            raise SystemExit("gen: gen/specs/hidden.py: UUID %r is not 32 lowercase hex digits" % t["uuid"])
        for k in (t["uuid"], t["name"]):
            if k in seen:
                raise SystemExit("gen: gen/specs/hidden.py: %s twice" % k)
            if k:
                seen.add(k)
        if t["nosize_slots"] and not t["name"]:
            raise SystemExit("gen: gen/specs/hidden.py: %s: a table without size word needs a name" % t["uuid"])
    return ts


def generate(model):
    ts = tables()
    out = [cuda_model.banner("hidden_tables_generator.py"),
           "#ifndef CUTAP_GENERATED_HIDDEN_TABLES_H", "#define CUTAP_GENERATED_HIDDEN_TABLES_H\n",
           "/* The export tables cutap knows by name (gen/specs/hidden.py): {name, UUID",
           " * bytes in memory order, function slots of a table without a size word",
           " * (0: word 0 is the size)}. */",
           "#define CUTAP_KNOWN_TABLES \\"]
    named = [t for t in ts if t["name"]]
    for t in named:
        b = ", ".join("0x%s" % t["uuid"][i:i + 2] for i in range(0, 32, 2))
        out.append("    {%s, {%s}, %d}, \\" % (c_str(t["name"]), b, t["nosize_slots"]))
    out[-1] = out[-1][:-3]
    out += ["", "/* The tables wrapped when CUTAP_HIDDEN is unset (\"wrap\" in",
            " * gen/specs/hidden.py): names, or the UUID in hex of an unnamed one. */",
            "#define CUTAP_DEFAULT_WRAP \\"]
    for t in ts:
        if t["wrap"]:
            out.append("    %s, \\" % c_str(t["name"] or t["uuid"]))
    out[-1] = out[-1][:-3]
    out.append("\n#endif")
    return "\n".join(out) + "\n"


OUTPUT = "src/common/generated/hidden_tables.h"
