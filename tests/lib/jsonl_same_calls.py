#!/usr/bin/env python3
"""jsonl_same_calls.py A.jsonl B.jsonl: two JSON lines exports hold the same
calls in the same order, each with the same name, depth and caller's name
(none, or none known, at the top); A holds at least one."""
import json, sys


def calls(p):
    cs = [c for c in map(json.loads, open(p)) if c.get("type") == "call"]
    by = {c["id"]: c for c in cs}
    return [(c["name"], c["depth"], by[c["parent"]]["name"] if c["parent"] else None) for c in cs]


a, b = calls(sys.argv[1]), calls(sys.argv[2])
assert a and a == b, (len(a), len(b))
