#!/usr/bin/env python3
"""jsonl_times.py FILE: the calls of a JSON lines export and whether their
times are sane: "calls N backwards K longest D" (K: calls starting before
the previous call of their thread started; D: the longest duration, ns)."""
import json
import sys

prev, calls, back, longest = {}, 0, 0, 0
with open(sys.argv[1]) as f:
    for line in f:
        d = json.loads(line)
        if d.get("type") != "call":
            continue
        calls += 1
        key = (d["pid"], d["tid"])
        if d["t_ns"] < prev.get(key, 0):
            back += 1
        prev[key] = d["t_ns"]
        longest = max(longest, d.get("dur_ns") or 0)
print(f"calls {calls} backwards {back} longest {longest}")
