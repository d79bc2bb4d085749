#!/usr/bin/env bash
# Issue #16 on the GPU. Parts (RP_PARTS, default all, in this order):
#   hang     a job that hangs, diagnosed by cutap ps while it hangs: one GPU,
#            two "ranks" as processes (RANK=0/1; hang_rank.cu: each its own
#            one-rank NCCL communicator). Rank 0 issues 3 all-reduces and
#            hangs in cudaDeviceSynchronize on a kernel that waits for a
#            flag nobody sets; rank 1 issues 2 and sleeps outside CUDA.
#            Traced with --ring 64M --stuck 5: the watchdog's file, cutap ps
#            (text, JSON, --stuck exit status) while it hangs, and after the
#            kill.
#   nvtx     NCCL's own NVTX ranges in nccl_allreduce: every NVTX call, to
#            see how ncclCommInitRankConfig's range ends (issue #16's
#            phantom unfinished range).
#   nvtxref  the same program with tests/gpu/nvtx_count.c as the NVTX
#            injection library instead of cutap: pushes, pops and the ranges
#            left open per thread, counted independently.
#   nsys     the same program under nsys (-t nvtx), its NVTX_EVENTS table: an
#            independent account of which ranges NCCL ends.
#   capture  PyTorch with torch.cuda.profiler.start/stop and an NVTX range:
#            --capture-range cudaProfilerApi and nvtx:NAME record only inside.
#   exact    torch_step.py traced plain and with --ring 8M: kept + overwritten
#            against the plain trace's calls.
#   cost     bench/gpu/torch_steps.py bare, cutap trace, cutap trace --ring 64M,
#            RP_RUNS (5) alternating runs: steps/s, fastest window of each run.
#   ioctl    tests/gpu/ioctl_layer.sh on three workloads (no cost runs): the
#            ioctl layer after the self-review edits.
set -u
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD B=$ROOT/build/gpu W=$ROOT/tests/gpu/workloads C=$ROOT/build/cutap
R=${OUT:-/tmp/cutap-gpu}/ring; rm -rf "$R"; mkdir -p "$R"
PARTS=${RP_PARTS:-hang nvtx nsys capture exact cost ioctl}
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0
has() { case " $PARTS " in *" $1 "*) return 0;; esac; return 1; }
[ -x "$B/hang_rank" ] && [ -x "$C" ] || tests/gpu/build.sh || exit 1
total() { "$C" report --format csv "$1" 2>/dev/null | awk -F, 'NR > 1 { s += $3 } END { print s + 0 }'; }
echo "== $(date -u +%F' '%T) UTC, $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"

if has hang; then
  echo; echo "== hang: cutap trace --ring 64M --stuck 5, rank 0: 3 all-reduces then a kernel that never ends; rank 1: 2, then sleep"
  D=$R/hang
  "$C" trace --ring 64M --stuck 5 -o "$D" -- sh -c "RANK=0 $B/hang_rank 3 spin & RANK=1 $B/hang_rank 2 sleep & wait" \
    >"$R/hang.out" 2>"$R/hang.err" &
  CP=$!
  for _ in $(seq 120); do [ "$(grep -c issued "$R/hang.out" 2>/dev/null)" = 2 ] && break; sleep 0.5; done
  sleep 8
  "$C" ps "$D" >"$R/ps.txt" 2>&1; echo "cutap ps: exit $?"; cat "$R/ps.txt"
  "$C" ps --stuck 5 "$D" >/dev/null 2>&1; echo "cutap ps --stuck 5: exit $? (1: a call has run longer)"
  "$C" ps --format json "$D" >"$R/ps.json" 2>"$R/ps.json.err"
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('ps json:', [(p['rank'], [[c['name'] for c in t['in_progress']] for t in p['threads'] if t['in_progress']]) for p in d['processes']])" "$R/ps.json" 2>&1 | head -3
  ls "$D"/cutap-stuck-*.txt 2>/dev/null | sed 's/^/watchdog wrote: /'
  pkill -f "$B/hang_rank"; wait $CP
  echo "-- after the kill:"; "$C" ps "$D" 2>&1 | head -20
  grep -v '^cutap: note' "$R/hang.err" | head -5
fi

if has nvtx; then
  echo; echo "== nvtx: NCCL's NVTX calls in nccl_allreduce"
  "$C" trace -o "$R/nv" -- "$B/nccl_allreduce" >/dev/null 2>"$R/nv.err"
  "$C" dump "$R/nv" 2>/dev/null | grep -n 'nvtx' >"$R/nv.dump"
  echo "NVTX calls by name:"; sed 's/.*] *\(nvtx[A-Za-z]*\)(.*/\1/' "$R/nv.dump" | sort | uniq -c
  echo "first 40:"; head -40 "$R/nv.dump" | cut -c1-220
  echo "-- CommInit lines:"; grep -i 'comminit' "$R/nv.dump" | head -10 | cut -c1-260
  "$C" export --format jsonl -o "$R/nv.jsonl" "$R/nv" 2>/dev/null
  python3 - "$R/nv.jsonl" <<'PY'
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
rs = [x for x in rs if x.get("type") == "range"]
print("ranges:", len(rs), "unfinished:", [(x.get("name"), x.get("tid"), x.get("domain")) for x in rs if x.get("unfinished")][:10])
PY
fi

if has nvtxref; then
  echo; echo "== nvtxref: NCCL's NVTX push/pop per thread, counted by an injection library of its own (no cutap)"
  gcc -O2 -shared -fPIC -I/usr/local/cuda/include tests/gpu/nvtx_count.c -o "$B/libnvtx_count.so" -lpthread &&
    NVTX_INJECTION64_PATH=$B/libnvtx_count.so "$B/nccl_allreduce" 2>&1 | grep -E 'nvtx_count|OK|FAIL'
  echo "-- the same under cutap trace (cutap is the injection library):"
  "$C" trace -o "$R/nv2" -- "$B/nccl_allreduce" >/dev/null 2>&1
  "$C" export --format jsonl -o "$R/nv2.jsonl" "$R/nv2" 2>/dev/null
  python3 - "$R/nv2.jsonl" <<'PY'
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
rs = [x for x in rs if x.get("type") == "range"]
print("ranges:", len(rs), "unfinished:", [(x.get("name"), x.get("tid")) for x in rs if x.get("unfinished")])
PY
fi

if has nsys; then
  echo; echo "== nsys: NCCL's NVTX ranges in nccl_allreduce, as nsys records them"
  NSYS=$(command -v nsys || find /opt/nvidia /usr/local -name nsys -type f -perm -u+x 2>/dev/null | head -1)
  if [ -z "$NSYS" ]; then echo "no nsys"; else
    echo "nsys: $NSYS"
    timeout 200 "$NSYS" profile -t nvtx -o "$R/nsys_nccl" --force-overwrite true "$B/nccl_allreduce" >"$R/nsys.log" 2>&1
    timeout 100 "$NSYS" export --type sqlite -o "$R/nsys_nccl.sqlite" --force-overwrite true "$R/nsys_nccl.nsys-rep" >>"$R/nsys.log" 2>&1
    python3 - "$R/nsys_nccl.sqlite" <<'PY' || tail -5 "$R/nsys.log"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT e.eventType, COALESCE(e.text, s.value), e.start, e.end, e.globalTid FROM NVTX_EVENTS e "
                  "LEFT JOIN StringIds s ON e.textId = s.id WHERE e.eventType IN (59, 60) ORDER BY e.start").fetchall()
print("ranges:", len(rows))
for r in rows:
    print("  type %d %-24s start %d end %s tid %d" % (r[0], r[1], r[2], r[3], r[4] & 0xffffff))
PY
  fi
fi

if has capture; then
  echo; echo "== capture: PyTorch, profiler start/stop around steps 20-24, NVTX range 'step30' around step 30"
  cat >"$R/cap.py" <<'PY'
import torch
x = torch.randn(512, 512, device="cuda"); w = torch.randn(512, 512, device="cuda", requires_grad=True)
def step():
    (x @ w).relu().sum().backward()
for i in range(40):
    if i == 20: torch.cuda.profiler.start()
    if i == 30: torch.cuda.nvtx.range_push("step30")
    step()
    if i == 30: torch.cuda.nvtx.range_pop()
    if i == 24: torch.cuda.profiler.stop()
torch.cuda.synchronize(); print("ok")
PY
  "$C" trace -o "$R/c0" -- python3 "$R/cap.py" 2>/dev/null | tail -1
  "$C" trace --capture-range cudaProfilerApi -o "$R/c1" -- python3 "$R/cap.py" 2>/dev/null | tail -1
  "$C" trace --capture-range nvtx:step30 -o "$R/c2" -- python3 "$R/cap.py" 2>/dev/null | tail -1
  for d in c0 c1 c2; do
    "$C" export --format jsonl -o "$R/$d.jsonl" "$R/$d" 2>/dev/null; rec=$(grep -c '"type":"call"' "$R/$d.jsonl")
    echo "$d: calls recorded or counted $(total "$R/$d"), records $rec, launches recorded $("$C" dump "$R/$d" 2>/dev/null | grep -c 'cudaLaunchKernel\|cuLaunchKernel')"
    "$C" report "$R/$d" 2>&1 >/dev/null | grep 'capture range' | sed 's/^/   /'
  done
  "$C" dump "$R/c1" 2>/dev/null | grep -E 'ProfilerSt' | cut -c1-120
  "$C" dump "$R/c2" 2>/dev/null | grep -E 'nvtxRangePush|nvtxRangePop' | cut -c1-120 | head -4
fi

if has exact; then
  echo; echo "== exact: torch_step.py plain and --ring 8M"
  "$C" trace -o "$R/e0" -- python3 "$W/torch_step.py" >/dev/null 2>&1
  "$C" trace --ring 8M -o "$R/e1" -- python3 "$W/torch_step.py" >/dev/null 2>&1
  over=0; for f in "$R"/e1/*.cutap; do over=$((over + $(python3 tests/lib/hdr_field.py "$f" overwritten_calls))); done
  echo "plain: $(total "$R/e0") calls; ring: kept $(total "$R/e1") + overwritten $over = $(( $(total "$R/e1") + over )); ring file $(du -sh "$R"/e1/*.cutap | cut -f1 | tr '\n' ' ')"
  rm -rf "$R/e0" "$R/e1"
fi

if has cost; then
  echo; echo "== cost: bench/gpu/torch_steps.py 300, steps/s (fastest of 7 windows), ${RP_RUNS:-5} alternating runs"
  PIN="taskset -c 4-11"; $PIN true 2>/dev/null || PIN=
  rate() { grep -o 'steps_per_s [0-9.]*' | awk '{print $2}' | tail -1; }
  TB="" TT="" TR=""
  for i in $(seq "${RP_RUNS:-5}"); do
    TB+=" $(timeout 300 $PIN python3 bench/gpu/torch_steps.py 300 2>/dev/null | rate)"
    TT+=" $(timeout 300 $PIN "$C" trace -o "$R/k.t$i" -- python3 bench/gpu/torch_steps.py 300 2>/dev/null | rate)"
    TR+=" $(timeout 300 $PIN "$C" trace --ring 64M -o "$R/k.r$i" -- python3 bench/gpu/torch_steps.py 300 2>/dev/null | rate)"
    echo "  run $i: bare ${TB##* } trace ${TT##* } ring ${TR##* }"
    [ "$i" = 1 ] || rm -rf "$R/k.t$i" "$R/k.r$i"
  done
  over=0; for f in "$R"/k.r1/*.cutap; do over=$((over + $(python3 tests/lib/hdr_field.py "$f" overwritten_calls))); done
  echo "  run 1: trace $(total "$R/k.t1") calls ($(du -sh "$R/k.t1" | cut -f1)); ring kept $(total "$R/k.r1"), overwritten $over ($(du -sh "$R/k.r1" | cut -f1))"
  python3 - $TB -- $TT -- $TR <<'PY'
import statistics, sys
a = " ".join(sys.argv[1:]).split("--")
b, t, r = [[float(v) for v in s.split()] for s in a]
ms = lambda v: 1000.0 / v
for name, xs in (("bare", b), ("trace", t), ("ring 64M", r)):
    m = statistics.median(xs)
    print("  %-9s %.3f ms/step [%.3f..%.3f]  %+.1f %% vs bare" % (name, ms(m), ms(max(xs)), ms(min(xs)), (ms(m) / ms(statistics.median(b)) - 1) * 100))
print("  ring vs trace (median per step): %+.1f %%" % ((ms(statistics.median(r)) / ms(statistics.median(t)) - 1) * 100))
PY
  rm -rf "$R"/k.*
fi

if has costab; then
  echo; echo "== costab: cutap trace against cutap trace --ring 64M only, ${RP_RUNS:-12} alternating runs (order swapped every run)"
  PIN="taskset -c 4-11"; $PIN true 2>/dev/null || PIN=
  rate() { grep -o 'steps_per_s [0-9.]*' | awk '{print $2}' | tail -1; }
  TT="" TR=""
  for i in $(seq "${RP_RUNS:-12}"); do
    for m in $( [ $((i % 2)) = 1 ] && echo "t r" || echo "r t"); do
      if [ $m = t ]; then TT+=" $(timeout 300 $PIN "$C" trace -o "$R/k.t" -- python3 bench/gpu/torch_steps.py 300 2>/dev/null | rate)"
      else TR+=" $(timeout 300 $PIN "$C" trace --ring 64M -o "$R/k.r" -- python3 bench/gpu/torch_steps.py 300 2>/dev/null | rate)"; fi
      rm -rf "$R/k.t" "$R/k.r"
    done
    echo "  run $i: trace ${TT##* } ring ${TR##* }"
  done
  python3 - $TT -- $TR <<'PY'
import statistics, sys
a = " ".join(sys.argv[1:]).split("--")
t, r = [[1000.0 / float(v) for v in s.split()] for s in a]
for name, xs in (("trace", t), ("ring 64M", r)):
    print("  %-9s %.3f ms/step median [%.3f..%.3f], mean %.3f" % (name, statistics.median(xs), min(xs), max(xs), statistics.mean(xs)))
# rank-sum: how often a ring run was slower than a trace run
pairs = [(x > y) - (x < y) for x in r for y in t]
print("  ring slower in %d of %d (ring, trace) pairs; median ring/trace %.3f" % (sum(p > 0 for p in pairs), len(pairs),
      statistics.median(r) / statistics.median(t)))
PY
fi

if has ioctl; then
  echo; echo "== ioctl layer after the self-review edits"
  IOCTL_WORKLOADS="vecadd_static torch_step nccl_allreduce" IOCTL_COST=0 IOCTL_COUNTER_ALONE=0 IOCTL_JSONL=0 \
    tests/gpu/ioctl_layer.sh 2>&1 | tail -25
fi
tar czf "${OUT:-/tmp/cutap-gpu}/ring-results.tgz" -C "$R" --exclude='*.cutap' . 2>/dev/null
echo "done $(date -u +%T)"
