#!/usr/bin/env python3
"""report_formats_json.py JSON: `cutap report --format json` of t_record
errors traced: 6 calls, cuMemAlloc_v2 with 2 errors, every call timed (call
records), and unfinished and timed in that place of a row."""
import json, sys

d = json.load(open(sys.argv[1]))
rows = {r["name"]: r for r in d["rows"]}
assert d["calls"] == 6 and rows["cuMemAlloc_v2"]["errors"] == 2, d
assert all(r["timed"] == r["calls"] for r in d["rows"]), d
assert list(rows["cuMemAlloc_v2"])[11:13] == ["unfinished", "timed"], rows
assert all(r["self_ns"] == r["total_ns"] for r in d["rows"]), d   # no call made inside another
