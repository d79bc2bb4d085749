#!/usr/bin/env bash
# Issue #31: the readers of GPU activity, checked against the files read
# independently (tests/lib/gpu_summary.py, tests/gpu/gpu_check.py's parser)
# on t_gpu (driver and runtime-copy launches, graphs, copies of each
# direction, memsets; 3 rounds, 2 threads):
#  - report --gpu (csv): per kernel name, copy direction and memset, the
#    counts; json parses; text has the joined line;
#  - dump: one [gpu] line per record, after its launching call's line;
#  - JSON lines: a "type":"gpu" line per record whose "call" is the id of a
#    call line of the function the files join it to;
#  - Perfetto JSON: a slice per record on a "GPU d stream s" track, a flow
#    (s/f pair) from each launching call;
#  - perfetto-proto: the slices and flows (tests/lib/pftrace_check.py;
#    it also finds CUPTI's own calls while it starts, which the fake makes
#    as the real one does, nested in the cuInit that started it: siblings of
#    cuInit inside its time made a thread's sequence go back, as on the
#    H100 before cutap_run_inside);
#  - SQLite: a gpu row per record, call_id naming the launching call.
. "$(dirname "$0")/../../lib/init.sh"

n=rd
rm -f "$WORK/$n".*; gpu_run $n 3 2 || { say "  cutap trace --gpu failed"; tail -5 "$WORK/$n.err" >&2; exit 1; }
gpu_sum $n || exit 1
D=$WORK/$n
"$CUTAP" report --gpu --format csv "$D" >"$D.csv" && "$CUTAP" report --gpu --format json "$D" >"$D.json" \
    && "$CUTAP" report --gpu "$D" >"$D.txt" && "$CUTAP" dump "$D" >"$D.dump" \
    && "$CUTAP" export --format jsonl -o "$D.jsonl" "$D" && "$CUTAP" export --format perfetto -o "$D.pf.json" "$D" \
    && "$CUTAP" export --format perfetto-proto -o "$D.pftrace" "$D" || { say "  a reader failed"; exit 1; }
grep -q "joined to their launching call" "$D.txt" || { say "  report --gpu text lacks the joined line"; exit 1; }
sq=0
"$CUTAP" export --format sqlite -o "$D.db" "$D" 2>/dev/null && sq=1
python3 "$TL/pftrace_check.py" "$D.pftrace" "$D.jsonl" >/dev/null || { say "  perfetto-proto: GPU slices or flows wrong"; exit 1; }
python3 - "$D" "$sq" <<'PY' || exit 1
import collections, csv, json, sqlite3, sys
d, sq = sys.argv[1], sys.argv[2] == "1"
summ = collections.Counter()
for line in open(d + ".sum"):
    k, _, v = line.rstrip("\n").rpartition(" ")
    if v.isdigit():
        summ[k] = int(v)
bad = []
def want(what, got, exp):
    if got != exp:
        bad.append("%s: %r, want %r" % (what, got, exp))
total = summ["kernel"] + summ["memcpy"] + summ["memset"]
want("records in the files", total > 0, True)
# JSON lines
calls, gpu = {}, []
for line in open(d + ".jsonl"):
    x = json.loads(line)
    if x["type"] == "call":
        calls[x["id"]] = x["name"]
    elif x["type"] == "gpu":
        gpu.append(x)
want("jsonl gpu lines", len(gpu), total)
by = collections.Counter(calls.get(x["call"], "?") for x in gpu if x["call"] is not None)
want("jsonl launching calls", {k: v for k, v in by.items()},
     {k[3:]: v for k, v in summ.items() if k.startswith("by ") and v})
kinds = collections.Counter(x["kind"] for x in gpu)
want("jsonl kinds", dict(kinds), {k: summ[k] for k in ("kernel", "memcpy", "memset") if summ[k]})
copies = collections.Counter(x["copy"] for x in gpu if x["kind"] == "memcpy")
want("jsonl copies", dict(copies), {k[5:]: v for k, v in summ.items() if k.startswith("copy ") and v})
names = collections.Counter(x["name"] for x in gpu if x["kind"] == "kernel")
# report --gpu
rows = {r["name"]: int(r["count"]) for r in csv.DictReader(open(d + ".csv"))}
for k, v in names.items():
    want("report --gpu " + k, rows.get(k), v)
for k, v in copies.items():
    want("report --gpu copies " + k, rows.get("[CUDA memcpy %s]" % k), v)
want("report --gpu memsets", rows.get("[CUDA memset]"), summ["memset"])
want("report --gpu json rows", len(json.load(open(d + ".json"))), len(rows))
# dump: [gpu] lines, each right after a call line or another [gpu] line
lines = open(d + ".dump").read().splitlines()
g = [i for i, l in enumerate(lines) if " [gpu] " in l]
want("dump [gpu] lines", len(g), total)
want("dump [gpu] kernels", sum(" [gpu] kernel " in lines[i] for i in g), summ["kernel"])
for i in g:
    j = i - 1
    while j >= 0 and " [gpu] " in lines[j]:
        j -= 1
    if j < 0 or "(" not in lines[j]:
        bad.append("dump: a [gpu] line not after a call: " + lines[i][:80])
        break
# Perfetto JSON
ev = json.load(open(d + ".pf.json"))["traceEvents"]
sl = [e for e in ev if e.get("cat") == "gpu" and e["ph"] == "X"]
want("perfetto gpu slices", len(sl), total)
s = collections.Counter(e["id"] for e in ev if e["ph"] == "s")
f = collections.Counter(e["id"] for e in ev if e["ph"] == "f")
want("perfetto flows", (len(s), s == f), (summ["joined"], True))
tracks = {(e["pid"], e["tid"]) for e in ev if e.get("name") == "thread_name" and e["args"]["name"].startswith("GPU ")}
want("perfetto gpu slices on GPU tracks", all((e["pid"], e["tid"]) in tracks for e in sl), True)
# SQLite
if sq:
    c = sqlite3.connect(d + ".db")
    want("sqlite gpu rows", c.execute("select count(*), count(call_id) from gpu").fetchone(), (total, summ["joined"]))
    got = dict(c.execute("select s.value, count(*) from gpu g join calls k on k.id = g.call_id"
                         " join strings s on s.id = k.name_id group by 1").fetchall())
    want("sqlite launching calls", got, {k[3:]: v for k, v in summ.items() if k.startswith("by ") and v})
if bad:
    print("\n".join("  " + b for b in bad[:12]), file=sys.stderr)
    sys.exit(1)
PY
