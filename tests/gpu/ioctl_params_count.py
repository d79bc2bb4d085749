#!/usr/bin/env python3
"""Issue #32's count on a real driver: of the distinct RM control commands
(and allocated classes) a workload made, how many were decoded by field.

    tests/gpu/ioctl_params_count.py [--cutap build/cutap] DIR...

Each DIR is a trace recorded with `cutap trace --ioctl-params`. Prints, over
all of them together:
    N of M distinct controls decoded by field
    (K of them passed no parameter block: paramsSize 0)
and the same for RM_ALLOC classes, then the commands seen with a block but
no layout (hex only: NVIDIA's private commands, or a struct the headers do
not pair), with their counts and sizes."""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cutap", default=os.path.join(HERE, "..", "..", "build", "cutap"))
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    seen = {"RM_CONTROL": collections.Counter(), "RM_ALLOC": collections.Counter()}
    decoded = {k: set() for k in seen}
    blocked = {k: set() for k in seen}
    hexonly = collections.Counter()
    sizes = {}
    for d in a.dirs:
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "t.jsonl")
            subprocess.run([a.cutap, "export", "--format", "jsonl", "-o", out, d], check=True)
            for line in open(out):
                x = json.loads(line)
                if x.get("type") != "call" or x.get("layer") != "ioctl" or x["name"] not in seen:
                    continue
                # the command (RM_CONTROL) or class (RM_ALLOC) word: argument 4 or 5
                words = [int(w, 16) for w in x["args"]]
                if len(words) < 6 or not words[1] & 0x40000000:
                    continue   # the block was not read (the ioctl failed): no command known
                key = words[4] if x["name"] == "RM_CONTROL" else words[5]
                seen[x["name"]][key] += 1
                p = x.get("params")
                if p is None:
                    continue
                blocked[x["name"]].add(key)
                if p["struct"]:
                    decoded[x["name"]].add(key)
                else:
                    hexonly[(x["name"], key)] += 1
                    sizes[(x["name"], key)] = p["size"]
    for name, what in (("RM_CONTROL", "controls"), ("RM_ALLOC", "allocated classes")):
        m = len(seen[name])
        print("%d of %d distinct %s decoded by field" % (len(decoded[name]), m, what))
        print("  (%d of them passed no parameter block: NULL or size 0)" % (m - len(blocked[name])))
    if hexonly:
        print("with a block but no layout (hex only):")
        for (name, key), n in hexonly.most_common():
            print("  %s 0x%x: %d calls, %d bytes" % (name, key, n, sizes[(name, key)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
