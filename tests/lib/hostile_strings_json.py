#!/usr/bin/env python3
"""hostile_strings_json.py JSONL PERFETTO REPORTJSON: the JSON outputs of the
crafted hostile trace (mk_trace hostile) are valid and give its strings back
as written (terminal escapes kept; bytes that are not UTF-8 as the code
points of their values): call, range and kernel names in the JSON lines,
the thread name in Perfetto, the host in report --by thread --format json."""
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
names = {l["name"] for l in lines if "name" in l}
assert "cuInit\x1b[1m\xc3" in names, names
assert "range\x1b]0;pwned\x07\x80\"q\\" in names, names
assert any(l.get("kernel") == "kern\x1b[5m\u00e2\u0082" for l in lines), lines
p = json.load(open(sys.argv[2], encoding="utf-8"))
assert any(e.get("args", {}).get("name") == "\x1b]0;pwned\x07" for e in p["traceEvents"] if e.get("ph") == "M")
r = json.load(open(sys.argv[3], encoding="utf-8"))
assert r["rows"][0]["host"] == "h\x1b]0;pwned\x07ost", r["rows"][0]
