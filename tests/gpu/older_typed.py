#!/usr/bin/env python3
"""older_typed.py NAME JSONL DUMP: one line of tests/gpu/older_typed.sh's
table for a workload of an older CUDA major (issue #28): its runtime-layer
calls, how many typed (decoded under parameter names) and how many
untyped, the untyped ones whose major's headers declare them (must be 0
where the runtime is a shared libcudart: those are cutap's to type), dump's
reasons for the untyped ones, and how the calls whose signature changed
since that major were decoded."""
import collections
import gzip
import json
import re
import sys

name, jsonl, dump = sys.argv[1:4]
major = "11.8" if "118" in name else "12.4"
declared = json.loads(gzip.open("gen/snapshots/cuda-%s/runtime.json.gz" % major).read())["declared"]
calls = [c for c in map(json.loads, open(jsonl)) if c.get("type") == "call" and c["layer"] == "runtime"]
def is_typed(c):
    """decoded under parameter names, or a call of no parameters (an untyped
    report carries no words: a function declared with some is untyped)"""
    d = declared.get(c["name"])
    return "=" in c["decoded"] or (not c["args"] and (d is None or not d["params"]))


typed = [c for c in calls if is_typed(c)]
untyped = [c for c in calls if not is_typed(c)]
miss = sorted(set(c["name"] for c in untyped if c["name"] in declared))
why = collections.Counter(m.group(1) for m in re.finditer(r"\(untyped: ([^)]*)\)", open(dump).read()))
changed = ("cudaStreamGetCaptureInfo", "cudaStreamGetCaptureInfo_v2", "cudaGraphInstantiate", "cudaMemAdvise",
           "cudaMemPrefetchAsync", "cudaGetDeviceProperties", "cudaGetDeviceProperties_v2")
shown = []
for n in changed:
    cs = [c for c in calls if c["name"] == n]
    if cs:
        shown.append("%s(%s)" % (n, ", ".join(re.findall(r"(?:^|, )([A-Za-z_0-9]+)=", cs[0]["decoded"])) or "UNTYPED"))
print("%-14s runtime calls %4d  typed %4d  untyped %3d  untyped-but-declared %d%s" % (
    name, len(calls), len(typed), len(untyped), len(miss), (" " + " ".join(miss[:6])) if miss else ""))
if untyped:
    print("    untyped: %s" % ", ".join("%s x%d" % kv for kv in collections.Counter(c["name"] for c in untyped).most_common(8)))
for w, k in why.items():
    print("    dump: (untyped: %s) x%d" % (w, k))
for s in shown:
    print("    " + s)
