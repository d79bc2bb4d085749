#!/usr/bin/env bash
# Issue #16, part 2: cutap trace --ring SIZE. Four threads make 48,004
# calls (all-reduces with five launches nested in each) into a 1 MiB ring:
# the file stays about 1 MiB; the calls kept plus those the header counts
# as overwritten are exactly the calls a plain trace records; the ring was
# overwritten many times over; every call is named (names live outside
# the ring); report and the JSON lines export say how many were
# overwritten. A call still open (the main thread inside an all-reduce
# whose 300 launches filled several chunks, then hanging in
# cuCtxSynchronize) survives 500,000 overwritten calls: cutap ps shows it
# live (read while chunks are reused), and after SIGKILL the trace still
# holds it, unfinished, with the hanging call nested; released instead, it
# ends, and its end lands in its own record. More threads inside calls
# than the ring has chunks: the program is unharmed and the calls not
# recorded are counted. Bad sizes are refused.
. "$(dirname "$0")/../../lib/init.sh"

export LD_LIBRARY_PATH=$FL:$LD_LIBRARY_PATH
calls() { python3 "$TL/jsonl_count.py" "$1" type=call; }
jsonl() { "$CUTAP" export --format jsonl -o "$2" "$1" 2>/dev/null || { say "  export of $1 failed"; exit 1; }; }

# 1. exact accounting
export FAKE_NCCL_LAUNCHES=5
$T/t_ring 4 2000 >"$WORK/bare.out" 2>&1 || exit 1
"$CUTAP" trace -o "$WORK/all" -- $T/t_ring 4 2000 >/dev/null 2>&1 || exit 1
"$CUTAP" trace --ring 1M -o "$WORK/r" -- $T/t_ring 4 2000 >"$WORK/r.out" 2>"$WORK/r.err" || exit 1
diff "$WORK/bare.out" "$WORK/r.out" >&2 || exit 1
jsonl "$WORK/all" "$WORK/all.jsonl"; jsonl "$WORK/r" "$WORK/r.jsonl"
total=$(calls "$WORK/all.jsonl"); kept=$(calls "$WORK/r.jsonl")
[ "$total" = 48005 ] || { say "  plain trace: $total calls, want 48005"; exit 1; }
f=$(ls "$WORK"/r/*.cutap)
size=$(stat -c %s "$f")
[ "$size" -le $((1024 * 1024 + 4096 + 4 * 16384)) ] || { say "  ring file of $size bytes"; exit 1; }
over=$(python3 "$TL/hdr_field.py" "$f" overwritten_calls) || exit 1
[ $((kept + over)) = "$total" ] || { say "  kept $kept + overwritten $over != $total"; exit 1; }
[ "$over" -gt $((5 * kept)) ] || { say "  only $over overwritten ($kept kept)"; exit 1; }
"$CUTAP" report "$WORK/r" >"$WORK/r.rep" 2>"$WORK/r.rep.err" || exit 1
grep -q "ring of 1 MiB: $over older calls overwritten" "$WORK/r.rep.err" || { cat "$WORK/r.rep.err" >&2; exit 1; }
! grep -q 'id#' "$WORK/r.rep" || { say "  unnamed ids in a ring trace"; cat "$WORK/r.rep" >&2; exit 1; }
python3 "$TL/jsonl_count.py" "$WORK/r.jsonl" type=process overwritten_calls="$over" ring_bytes=1048576 | grep -qx 1 \
    || { say "  no process line with the overwritten calls"; grep '"process"' "$WORK/r.jsonl" >&2; exit 1; }
if python3 -c 'import sqlite3' 2>/dev/null && ldconfig -p | grep -q 'libsqlite3.so.0'; then
    "$CUTAP" export --format sqlite -o "$WORK/r.db" "$WORK/r" 2>/dev/null || exit 1
    python3 -c 'import sqlite3, sys; r = sqlite3.connect(sys.argv[1]).execute("SELECT ring_bytes, overwritten_calls, frozen FROM processes").fetchall(); assert r == [(1048576, int(sys.argv[2]), None)], r' \
        "$WORK/r.db" "$over" || exit 1
fi
# every record kept is one the program made: all-reduces on its
# communicators, launches with their one grid
python3 - "$WORK/r.jsonl" <<'PY' || exit 1
import json, sys
for l in open(sys.argv[1]):
    x = json.loads(l)
    if x.get("type") != "call":
        continue
    n, a = x["name"], x.get("decoded", "")
    assert n in ("ncclAllReduce", "cuLaunchKernelEx", "cuDeviceGetCount", "cuInit"), x
    if n == "ncclAllReduce":
        assert "count=256," in a and any("comm=0xc000%d," % k in a for k in range(4)), x
PY

# 2. a call open across many overwrites; SIGKILL
rel=$WORK/release
export FAKE_NCCL_LAUNCHES=300
FAKE_BLOCK=cuCtxSynchronize:$rel "$CUTAP" trace --ring 1M -o "$WORK/h" -- $T/t_ring 4 500 hold >"$WORK/h.out" 2>&1 &
for _ in $(seq 300); do grep -q 'workers done' "$WORK/h.out" 2>/dev/null && break; sleep 0.05; done
grep -q 'workers done' "$WORK/h.out" || { say "  workers never done"; cat "$WORK/h.out" >&2; exit 1; }
"$CUTAP" ps "$WORK/h" >"$WORK/h.ps" 2>&1 || true
grep -Eq 'ncclAllReduce\(.*comm=0xb10c.*<running [0-9.]+ (ms|s)> > cuCtxSynchronize\(\) <running' "$WORK/h.ps" \
    || { say "  ps does not show the open call"; cat "$WORK/h.ps" >&2; exit 1; }
pkill -KILL -f "$T/t_ring 4 500 hold"; wait
"$CUTAP" report --tree "$WORK/h" >"$WORK/h.tree" 2>"$WORK/h.err" || exit 1
grep -Eq '^ +1 +[0-9]+ +[0-9]+ +nccl +ncclAllReduce \(1 unfinished\)' "$WORK/h.tree" || true
jsonl "$WORK/h" "$WORK/h.jsonl"
python3 - "$WORK/h.jsonl" <<'PY' || { cat "$WORK/h.tree" >&2; exit 1; }
import json, sys
calls = [json.loads(l) for l in open(sys.argv[1])]
calls = [x for x in calls if x.get("type") == "call"]
held = [x for x in calls if x["name"] == "ncclAllReduce" and "comm=0xb10c," in x.get("decoded", "")]
assert len(held) == 1 and held[0].get("unfinished"), held
sync = [x for x in calls if x["name"] == "cuCtxSynchronize"]
assert len(sync) == 1 and sync[0].get("unfinished") and sync[0]["parent"] == held[0]["id"], sync
# its launches are done: their chunks went back to the ring, only the
# chunk holding the open call itself is kept
inside = [x for x in calls if x.get("parent") == held[0]["id"]]
assert 1 <= len(inside) <= 301, len(inside)
PY
over=$(python3 "$TL/hdr_field.py" "$WORK"/h/*.cutap overwritten_calls) || exit 1
[ "$over" -gt 500000 ] || { say "  only $over calls overwritten"; exit 1; }

# released: the open call ends in its own record
FAKE_BLOCK=cuCtxSynchronize:$rel "$CUTAP" trace --ring 1M -o "$WORK/e" -- $T/t_ring 4 500 hold >"$WORK/e.out" 2>&1 &
for _ in $(seq 300); do grep -q 'workers done' "$WORK/e.out" 2>/dev/null && break; sleep 0.05; done
touch "$rel"; wait || { cat "$WORK/e.out" >&2; exit 1; }
jsonl "$WORK/e" "$WORK/e.jsonl"
python3 - "$WORK/e.jsonl" <<'PY' || exit 1
import json, sys
calls = [json.loads(l) for l in open(sys.argv[1])]
held = [x for x in calls if x.get("name") == "ncclAllReduce" and "comm=0xb10c," in x.get("decoded", "")]
assert len(held) == 1 and not held[0].get("unfinished") and held[0].get("status") == "ncclSuccess", held
assert 1 <= len([x for x in calls if x.get("parent") == held[0]["id"]]) <= 301
PY
rm -f "$rel"

# 3. more threads inside calls than chunks: unharmed, losses counted
export FAKE_NCCL_LAUNCHES=1
$T/t_ring 64 300 >"$WORK/m.bare" 2>&1 || exit 1
"$CUTAP" trace --ring 1M -o "$WORK/m" -- $T/t_ring 64 300 >"$WORK/m.out" 2>"$WORK/m.err" || { cat "$WORK/m.err" >&2; exit 1; }
diff "$WORK/m.bare" "$WORK/m.out" >&2 || exit 1

# threads calling CUDA from a destructor that runs after cutap's own exit
# destructor: their chunks go back to the ring too (100 threads, 64
# chunks: nothing lost, the main thread's 1000 later calls recorded)
"$CUTAP" trace --ring 1M -o "$WORK/d" -- $T/t_ring 100 1000 dtor >"$WORK/d.out" 2>"$WORK/d.err" || exit 1
n=$(python3 "$TL/hdr_loss.py" "$WORK"/d/*.cutap | awk '{print $5}')
[ "$n" = 0 ] && ! grep -q 'too small' "$WORK/d.err" "$WORK/d/.cutap-procs" 2>/dev/null \
    || { say "  calls lost ($n) with late destructors"; cat "$WORK/d.err" >&2; exit 1; }
kept=$("$CUTAP" report --format csv "$WORK/d" 2>/dev/null | awk -F, 'NR > 1 { s += $3 } END { print s + 0 }')
over=$(python3 "$TL/hdr_field.py" "$WORK"/d/*.cutap overwritten_calls)
[ $((kept + over)) = 1201 ] || { say "  kept $kept + overwritten $over, want 1201 (with cuInit)"; exit 1; }
main=$("$CUTAP" dump "$WORK/d" 2>/dev/null | grep -c '^[0-9.]* \[\([0-9]*\)/\1\] cuDeviceGetCount(')
[ "$main" = 1000 ] || { say "  $main of the main thread's 1000 later calls kept"; exit 1; }

# 4. refused before anything runs
for bad in 100K 0 abc 65G 1Q; do
    "$CUTAP" trace --ring "$bad" -o "$WORK/bad" -- true 2>"$WORK/bad.err"; rc=$?
    [ $rc = 2 ] && grep -q -- '--ring takes a size' "$WORK/bad.err" && [ ! -e "$WORK/bad" ] \
        || { say "  --ring $bad: exit $rc"; cat "$WORK/bad.err" >&2; exit 1; }
done
"$CUTAP" stat --ring 4M -- true 2>/dev/null; [ $? = 2 ] || { say "  stat took --ring"; exit 1; }
exit 0
