#!/usr/bin/env python3
"""older_typed.py STDOUT JSONL: the calls a program of an older CUDA major
announced (tests/generated/t_old_major.c) are recorded as announced, in
the JSON lines export of its trace:

  TYPED NAME N W0 .. WN-1 P0,P1,..  typed with N argument words (Wi hex, or
                                    '-': not compared: a struct by value
                                    is recorded as the address of its
                                    copy, a float as its bits), decoded
                                    under those parameter names (P, '-':
                                    not compared);
  UNTYPED NAME                      untyped: 6 raw register words, no
                                    parameter name, dump's mark of why.

Each NAME is called once; at least one call is announced TYPED."""
import json
import re
import sys

def top_level(text):
    """the arguments of a decoded call: split at the commas outside braces
    (a struct's fields are printed inside them)"""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch == "{"
        depth -= ch == "}"
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return out + [cur.strip()] if cur.strip() else out


want = [l.split() for l in open(sys.argv[1]) if l.startswith(("TYPED ", "UNTYPED "))]
calls = {}
for c in map(json.loads, open(sys.argv[2])):
    if c.get("type") == "call" and c["layer"] != "driver":
        calls.setdefault(c["name"], []).append(c)
bad = []
assert any(w[0] == "TYPED" for w in want), "no typed call announced"
for w in want:
    name = w[1]
    got = calls.get(name, [])
    if len(got) != 1:
        bad.append("%s: %d calls recorded (1 made)" % (name, len(got)))
        continue
    c = got[0]
    args = [int(a, 16) for a in c["args"]]
    if w[0] == "UNTYPED":
        if len(args) != 6 or "=" in c["decoded"]:
            bad.append("%s: not recorded untyped (6 raw words): %s" % (name, c["decoded"]))
        continue
    n = int(w[2])
    words, names = w[3:3 + n], w[3 + n] if len(w) > 3 + n else "-"
    if len(args) != n:
        bad.append("%s: %d argument words recorded, %d passed: %s" % (name, len(args), n, c["decoded"]))
        continue
    for i, x in enumerate(words):
        if x != "-" and int(x, 16) != args[i]:
            bad.append("%s: argument %d recorded as %#x, passed %s" % (name, i, args[i], x))
    if names != "-":
        shown = [re.match(r"([A-Za-z_][A-Za-z_0-9]*)=", a).group(1) if re.match(r"[A-Za-z_][A-Za-z_0-9]*=", a) else a
                 for a in top_level(c["decoded"])]
        if shown != names.split(","):
            bad.append("%s: decoded as %s, parameters %s" % (name, c["decoded"], names))
if bad:
    sys.exit("older_typed.py: " + "\n  ".join(bad[:20]))
print("older_typed.py: %d typed and %d untyped calls as announced"
      % (sum(w[0] == "TYPED" for w in want), sum(w[0] == "UNTYPED" for w in want)))
