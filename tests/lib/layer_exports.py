#!/usr/bin/env python3
"""layer_exports.py: the functions of the runtime and libraries cutap
exports, one a line: each layer's pinned export list (gen/exports/), the
names with the layer's prefixes (gen/layers.py), not its excluded ones;
and the functions of its libraries of older majors (the snapshots,
gen/snapshots/cuda-VERSION/: SONAME.exports) that the headers of that
major declare (LAYER.json.gz) and the pinned library no longer has
(cudaBindTexture, __nvJitLinkCreate_12_4, issue #28). Run from the top of
the tree."""
import glob
import gzip
import json
import os
import sys

sys.path.insert(0, "gen")
from layers import LAYERS  # noqa: E402


def mine(l, n):
    return any(n.startswith(p) for p in l["prefixes"]) and not any(n.startswith(p) for p in l.get("exclude_prefixes", []))


names = set()
for l in LAYERS:
    pinned = set(n.strip() for n in open("gen/exports/%s.txt" % l["exports"])) if l["exports"] else set()
    names |= set(n for n in pinned if mine(l, n))
    for so in set(l.get("older", {}).values()):
        for d in glob.glob("gen/snapshots/cuda-*"):
            exp, decl = os.path.join(d, so + ".exports"), os.path.join(d, l["name"] + ".json.gz")
            if not (os.path.exists(exp) and os.path.exists(decl)):
                continue
            declared = json.loads(gzip.open(decl).read())["declared"]
            for n in open(exp):
                n = n.strip().split("@")[0]
                if n and mine(l, n) and n not in pinned and n in declared:
                    names.add(n)
for n in sorted(names):
    print(n)
