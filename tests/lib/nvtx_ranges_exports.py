#!/usr/bin/env python3
"""nvtx_ranges_exports.py WORK: the exports of t_nvtx traced (WORK: nv.perfetto,
nv.jsonl, nv.sqlite) nest the calls made inside NVTX ranges in them: in
Perfetto by time on the same track, in JSON lines and SQLite by parent;
start/end ranges as async events; marks as instants; the seven ranges and
one mark by name."""
import json, sqlite3, sys
from decimal import Decimal
w = sys.argv[1]
ev = json.load(open(w + "/nv.perfetto"), parse_float=Decimal)["traceEvents"]
x = [e for e in ev if e.get("ph") == "X"]
def one(name, cat):
    s = [e for e in x if e["name"] == name and e["cat"] == cat]
    assert len(s) == 1, (name, s)
    return s[0]
def inside(a, b):   # a within b, same track
    return (a["pid"], a["tid"]) == (b["pid"], b["tid"]) and b["ts"] <= a["ts"] and a["ts"] + a["dur"] <= b["ts"] + b["dur"]
outer, inner = one("outer", "range"), one("inner", "range")
calls = [e for e in x if e["cat"] not in ("range", "mark")]
ctx = [e for e in calls if e["name"] == "cuCtxGetCurrent"][0]
ver = [e for e in calls if e["name"] == "cuDriverGetVersion"][0]
assert inside(ctx, inner) and inside(inner, outer) and inside(ver, outer) and not inside(ver, inner), (outer, inner, ctx, ver)
assert inside(one("registered", "range"), one("dompush", "range"))
for n in ("worker", "expush"):
    one(n, "range")
b = [e for e in ev if e.get("ph") in ("b", "e") and e["name"] == "async"]
assert sorted(e["ph"] for e in b) == ["b", "e"] and b[0]["id"] == b[1]["id"], b
assert [e for e in ev if e.get("ph") == "i" and e["name"] == "tick" and e["cat"] == "mark"], "mark"
lines = [json.loads(l) for l in open(w + "/nv.jsonl")]
byid = {l["id"]: l for l in lines if "id" in l}   # (env lines: no id)
ranges = [l for l in lines if l["type"] == "range"]
assert sorted(l["name"] for l in ranges) == ["async", "dompush", "expush", "inner", "outer", "registered", "worker"], ranges
assert [l["name"] for l in lines if l["type"] == "mark"] == ["tick"]
c = [l for l in lines if l["type"] == "call" and l["name"] == "cuCtxGetCurrent"][0]
assert byid[c["parent"]]["name"] == "inner" and byid[byid[c["parent"]]["parent"]]["name"] == "outer", c
assert c["depth"] == 2 and byid[c["parent"]]["nested"] is True
db = sqlite3.connect(w + "/nv.sqlite")
rows = db.execute("SELECT c.name, p.name, pp.name, c.depth FROM calls_named c JOIN calls_named p ON p.id = c.parent_id "
                  "JOIN calls_named pp ON pp.id = p.parent_id WHERE c.name = 'cuCtxGetCurrent' AND p.layer = 'range'").fetchall()
assert ("cuCtxGetCurrent", "inner", "outer", 2) in rows, rows
n = db.execute("SELECT count(*) FROM calls WHERE layer = 'range' AND result IS NULL").fetchone()[0]
assert n == 7, n
