#!/usr/bin/env python3
"""jsonl_count.py [--names] JSONL [COND...]: how many lines of a JSON lines
export (cutap export --format jsonl) meet every COND: KEY=VALUE (the key's
value, as text, is VALUE: "depth=1", "type=range", "unfinished=True",
"parent=None"), KEY~REGEX (the key is there and its value, as text,
matches REGEX: re.search) or !KEY (the line has no such key). All lines
without a COND. With --names, the name of each such line instead, one a
line, in order."""
import json, re, sys


def test(cond):
    if cond.startswith("!"):
        return lambda x: cond[1:] not in x
    m = re.match(r"^(\w+)([=~])(.*)$", cond, re.S)
    if not m:
        sys.exit("jsonl_count.py: bad condition %r" % cond)
    k, op, v = m.groups()
    if op == "=":
        return lambda x: k in x and str(x[k]) == v
    r = re.compile(v)
    return lambda x: k in x and r.search(str(x[k])) is not None


args = sys.argv[1:]
names = bool(args) and args[0] == "--names"
if names:
    args = args[1:]
tests = [test(c) for c in args[1:]]
n = 0
for line in open(args[0], encoding="utf-8"):
    x = json.loads(line)
    if all(t(x) for t in tests):
        n += 1
        if names:
            print(x.get("name"))
if not names:
    print(n)
