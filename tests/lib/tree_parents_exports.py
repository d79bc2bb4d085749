#!/usr/bin/env python3
"""tree_parents_exports.py DB JSONL TREEJSON: the exports of t_paths_pie nested
traced (SQLite DB, JSON lines JSONL, report --tree --format json TREEJSON)
put the cuDriverGetVersion the fake cuProfilerStart makes under it: parent
ids name the caller, the caller's self time is its total minus the
callee's, the calls at the top have no parent."""
import json, sqlite3, sys
tree = {n["id"]: n for n in json.load(open(sys.argv[3]))}
inner = [n for n in tree.values() if n["name"] == "cuDriverGetVersion" and n["depth"] == 1]
assert len(inner) == 1 and tree[inner[0]["parent"]]["name"] == "cuProfilerStart", tree
outer = tree[inner[0]["parent"]]
assert outer["self_ns"] == outer["total_ns"] - inner[0]["total_ns"], tree
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT c.id, c.name, c.parent_id, c.depth, p.name FROM calls_named c "
                  "LEFT JOIN calls_named p ON p.id = c.parent_id").fetchall()
nested = [r for r in rows if r[1] == "cuDriverGetVersion" and r[3] == 1]
assert len(nested) == 1 and nested[0][4] == "cuProfilerStart", rows
assert all(r[2] is None for r in rows if r[3] == 0), rows
lines = [json.loads(l) for l in open(sys.argv[2]) if '"call"' in l]
byid = {l["id"]: l for l in lines}
inner = [l for l in lines if l["name"] == "cuDriverGetVersion" and l["depth"] == 1]
assert len(inner) == 1 and byid[inner[0]["parent"]]["name"] == "cuProfilerStart", inner
