#!/usr/bin/env python3
"""parquet_check.py TRACE_DIR PARQUET_DIR JSONL [--text]: the Parquet
export (read back with DuckDB, duckdb_sql.py's C API through ctypes)
against two independent readings of the same trace: the JSON lines
export (every call: process, thread, rank, layer, name, depth, parent,
duration, result, argument words, kernel, object, RM parameter block
(trace --ioctl-params), status and decoded text with --text; start times one constant offset apart) and the trace
files' own headers (every process: host, pid, ppid, rank, local_rank,
exe, start). Also every thread (its calls) and every name (its calls) of
each process. Prints what differs; exit status 1 if anything does."""
import glob, json, os, struct, subprocess, sys
from collections import Counter, defaultdict

trace, pq, jl = sys.argv[1:4]
text = "--text" in sys.argv[4:]
HERE = os.path.dirname(os.path.abspath(__file__))
bad = []


def sql(q):
    out = subprocess.run([sys.executable, os.path.join(HERE, "duckdb_sql.py"), "--json", q.replace("OUT", pq)],
                         stdout=subprocess.PIPE, check=True).stdout
    return json.loads(out)


def cstr(b):
    return b.split(b"\0", 1)[0].decode("utf-8", "replace")


# --- processes, from the headers (docs/FORMAT.md, "File header") ---
hdrs = {}
for f in sorted(glob.glob(os.path.join(trace, "*.cutap"))):
    h = open(f, "rb").read(4096)
    pid, ppid, rank, lrank = struct.unpack_from("<iiii", h, 28)
    start, = struct.unpack_from("<Q", h, 48)
    key = (cstr(h[112:176]), pid, start)
    hdrs[key] = dict(ppid=ppid, rank=None if rank < 0 else rank, local_rank=None if lrank < 0 else lrank,
                     exe=cstr(h[176:432]), file=f)
rows = sql("SELECT host, pid, process_start_ns, ppid, rank, local_rank, exe, file, calls, threads FROM 'OUT/processes/*.parquet'")
got = {}
for host, pid, start, ppid, rank, lrank, exe, file, calls, threads in rows:
    got[(host, int(pid), int(start))] = dict(ppid=int(ppid), rank=None if rank is None else int(rank),
                                             local_rank=None if lrank is None else int(lrank), exe=exe, file=file,
                                             calls=int(calls), threads=int(threads))
if sorted(got) != sorted(hdrs):
    bad.append("processes: %s in the export, %s in the trace" % (sorted(got), sorted(hdrs)))
for k, h in hdrs.items():
    g = got.get(k)
    if g and any(g[f] != h[f] for f in h):
        bad.append("process %s: export %s, header %s" % (k, g, h))

# --- calls, from the JSON lines export ---
want = defaultdict(list)   # (host, pid) -> its calls in order
gid = {}                   # JSON lines id -> (host, pid, index in its process)
for line in open(jl):
    o = json.loads(line)
    if o.get("type") not in ("call", "range", "mark"):   # NVTX ranges and marks are rows of calls too
        continue
    k = (o["host"], o["pid"])
    gid[o["id"]] = k + (len(want[k]),)
    want[k].append(o)
cols = ("host, pid, process_start_ns, rank, tid, id, parent, start_ns, dur_ns, layer, name, depth, result, "
        "error, injected, skipped, object, kernel, args::VARCHAR, params" + (", status, decoded" if text else ""))
rows = sql("SELECT %s FROM 'OUT/calls/*.parquet' ORDER BY host, pid, process_start_ns, id" % cols)
have = defaultdict(list)
for r in rows:
    have[(r[0], int(r[1]))].append(r)
if sorted(have) != sorted(want):
    bad.append("calls of processes %s, JSON lines has %s" % (sorted(have), sorted(want)))
offsets = set()
for k in want:
    w, h = want[k], have.get(k, [])
    if len(w) != len(h):
        bad.append("%s: %d calls, JSON lines has %d" % (k, len(h), len(w)))
        continue
    for i, (o, r) in enumerate(zip(w, h)):
        (host, pid, pstart, rank, tid, cid, parent, start, dur, layer, name, depth, result, error, inj, skip,
         obj, kernel, args, params) = r[:20]
        offsets.add(int(start) - o["t_ns"])
        par = None if o["parent"] is None else gid[o["parent"]]
        exp = dict(rank=o["rank"], tid=o["tid"], id=i, parent=None if par is None else par[2],
                   dur=o.get("dur_ns"), layer=o["layer"], name=o["name"], depth=o["depth"],
                   result=None if o.get("result") is None else o["result"] % 2**64,
                   args=[int(a, 16) for a in o.get("args", [])], kernel=o.get("kernel"), object=o.get("object"),
                   injected=o.get("injected") is not None, params=o.get("params"))
        seen = dict(rank=None if rank is None else int(rank), tid=int(tid), id=int(cid),
                    parent=None if parent is None else int(parent), dur=None if dur is None else int(dur),
                    layer=layer, name=name, depth=int(depth),
                    result=None if result is None else int(result) % 2**64,
                    args=json.loads(args), kernel=kernel, object=obj, injected=inj == "true",
                    params=None if params is None else json.loads(params))
        if par is not None and par[:2] != k:
            bad.append("%s call %d: its parent is in another process" % (k, i))
        if text:
            exp.update(status=o.get("status"), decoded=o.get("decoded"))
            seen.update(status=r[20], decoded=r[21])
        if exp != seen:
            diff = {f: (seen[f], exp[f]) for f in exp if exp[f] != seen[f]}
            bad.append("%s call %d (%s): export vs JSON lines %s" % (k, i, o["name"], diff))
            if len(bad) > 20:
                break
if len(offsets) > 1:
    bad.append("start_ns - t_ns is not one constant: %s" % sorted(offsets)[:5])

# --- threads and names: their calls ---
for host, pid, tid, calls in sql("SELECT host, pid, tid, calls FROM 'OUT/threads/*.parquet'"):
    n = sum(1 for o in want.get((host, int(pid)), []) if o["tid"] == int(tid))
    if n != int(calls):
        bad.append("thread %s/%s/%s: %s calls, JSON lines has %d" % (host, pid, tid, calls, n))
threads_want = {(k[0], k[1], o["tid"]) for k, v in want.items() for o in v}
threads_have = {(h, int(p), int(t)) for h, p, t in sql("SELECT host, pid, tid FROM 'OUT/threads/*.parquet' WHERE calls > 0")}
if threads_want != threads_have:
    bad.append("threads with calls: %s, JSON lines %s" % (sorted(threads_have ^ threads_want)[:5], "differ"))
names_have = Counter()
for host, pid, name, layer, calls in sql("SELECT host, pid, name, layer, calls FROM 'OUT/names/*.parquet'"):
    names_have[(host, int(pid), name, layer)] += int(calls)
names_want = Counter((k[0], k[1], o["name"], o["layer"]) for k, v in want.items() for o in v)
if +names_have != names_want:
    bad.append("names' calls differ: %s" % sorted((+names_have - names_want) + (names_want - names_have))[:5])

for b in bad[:25]:
    print("  " + b)
sys.exit(1 if bad else 0)
