#!/usr/bin/env python3
"""jsonl_parents.py JSONL NAME PARENT COUNT: a JSON lines export holds COUNT
calls of NAME, and the parent of each is a call of PARENT."""
import json, sys

path, name, parent, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
lines = [json.loads(l) for l in open(path)]
byid = {l["id"]: l for l in lines if "id" in l}
calls = [l for l in lines if l.get("type") == "call" and l["name"] == name]
assert len(calls) == count, "%d calls of %s, want %d" % (len(calls), name, count)
bad = [c["id"] for c in calls if c.get("parent") is None or byid[c["parent"]]["name"] != parent]
assert not bad, "%d calls of %s without %s as parent (ids %s)" % (len(bad), name, parent, bad[:5])
