#!/usr/bin/env python3
"""export_formats_check.py WORK: the exports of a directory of two processes (t_threads:
16 threads, t_record kernels) agree with its report (WORK: ex.csv,
ex.perfetto, ex.sqlite, ex.jsonl): one Perfetto complete event per call, a
track per thread, named processes, kernel names; the SQLite tables' counts;
one JSON line per call."""
import csv, json, sqlite3, sys
w = sys.argv[1]
calls = sum(int(r["calls"]) for r in csv.DictReader(open(w + "/ex.csv")))
assert calls == 24007, calls
ev = json.load(open(w + "/ex.perfetto"))["traceEvents"]
x = [e for e in ev if e.get("ph") == "X"]
assert len(x) == calls, (len(x), calls)
assert len({(e["pid"], e["tid"]) for e in x}) == 17, "a track per thread"
names = [e["args"]["name"] for e in ev if e.get("ph") == "M" and e["name"] == "process_name"]
assert len(names) == 2, names
assert any(e["name"] == "cuLaunchKernel" and e["args"].get("kernel") == "_Z6vecaddPfS_i" for e in x)
db = sqlite3.connect(w + "/ex.sqlite")
assert db.execute("select count(*) from calls").fetchone()[0] == calls
assert db.execute("select count(*) from processes").fetchone()[0] == 2
assert db.execute("select count(*) from threads").fetchone()[0] == 17
n = db.execute("select count(*) from calls_named where name = 'cuLaunchKernel' and kernel = 'plain_kernel'").fetchone()[0]
assert n == 1, n
lines = [json.loads(l) for l in open(w + "/ex.jsonl")]
assert sum(1 for l in lines if l["type"] == "call") == calls
