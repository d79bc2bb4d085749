#!/usr/bin/env python3
"""jsonl_calls.py JSONL NAME: "result nargs" of each call of NAME in a JSON
lines export (cutap export --format jsonl), in order, one a line."""
import json, sys

for c in map(json.loads, open(sys.argv[1])):
    if c.get("type") == "call" and c["name"] == sys.argv[2]:
        print(c["result"], len(c["args"]))
