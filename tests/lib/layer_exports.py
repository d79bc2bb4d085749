#!/usr/bin/env python3
"""layer_exports.py: the functions of the runtime and libraries cutap
exports, one a line: each layer's pinned export list (gen/exports/), the
names with the layer's prefixes (gen/layers.py), not its excluded ones.
Run from the top of the tree."""
import sys

sys.path.insert(0, "gen")
from layers import LAYERS  # noqa: E402

for l in LAYERS:
    for n in open("gen/exports/%s.txt" % l["exports"]) if l["exports"] else []:
        n = n.strip()
        if any(n.startswith(p) for p in l["prefixes"]) and not any(n.startswith(p) for p in l.get("exclude_prefixes", [])):
            print(n)
