#!/usr/bin/env python3
"""nvtx_unbalanced_exports.py WORK: the exports of t_nvtx hostile traced (WORK:
nh.perfetto, nh.jsonl): a range left open at exit ends, for a viewer, at
its thread's last call; the 300 nested ranges are all there; the ranges
never ended are marked unfinished."""
import json, sys
from decimal import Decimal
w = sys.argv[1]
ev = json.load(open(w + "/nh.perfetto"), parse_float=Decimal)["traceEvents"]
x = [e for e in ev if e.get("ph") == "X"]
last = max(e["ts"] + e["dur"] for e in x if e["cat"] not in ("range", "mark"))
lo = [e for e in x if e["name"] == "left open (unfinished)"]
assert len(lo) == 1 and lo[0]["ts"] + lo[0]["dur"] == last, (lo, last)
assert len([e for e in x if e["cat"] == "range" and e["name"].startswith("level ")]) == 300
lines = [json.loads(l) for l in open(w + "/nh.jsonl")]
assert sorted(l["name"] for l in lines if l.get("unfinished") and l["type"] == "range") == ["left open", "left open too", "never ended"]
