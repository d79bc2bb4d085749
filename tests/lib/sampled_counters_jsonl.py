#!/usr/bin/env python3
"""sampled_counters_jsonl.py JSONL: the JSON lines export of the counting-mode
run of stat_sampling_keeps_counts carries the counters, timed included:
33000 calls of cuCtxGetCurrent, some but not all timed; 3000 errors of
cuGetErrorName."""
import json, sys
c = {}
for x in map(json.loads, open(sys.argv[1])):
    if x["type"] == "counter":
        s = c.setdefault(x["name"], {"calls": 0, "errors": 0, "timed": 0})
        for k in s:
            s[k] += x[k]
assert c["cuCtxGetCurrent"]["calls"] == 33000 and 0 < c["cuCtxGetCurrent"]["timed"] < 33000, c
assert c["cuGetErrorName"]["errors"] == 3000, c
