#!/usr/bin/env python3
"""raw_words.py JSONL [N]: every call of a layer above the driver in a JSON
lines export was recorded untyped, as N (6) raw argument words (the
registers), not with the 13.0 signature's arguments; at least one such
call was recorded."""
import json, sys

n = int(sys.argv[2]) if len(sys.argv) > 2 else 6
calls = [c for c in map(json.loads, open(sys.argv[1])) if c.get("type") == "call"]
lib = [c for c in calls if c["layer"] != "driver"]
assert lib, "no library call recorded"
bad = [c["name"] for c in lib if len(c["args"]) != n]
assert not bad, "library calls not recorded as raw words: %s" % bad[:5]
