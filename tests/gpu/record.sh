#!/usr/bin/env bash
# GPU suite for the recorder and the cutap command (issue #3); run on the
# device machine, never in CI:
#   tests/gpu/record.sh
# Traces real workloads with `cutap trace` and `cutap stat`, checks that
# their output and status are unchanged, that every kernel launch in the
# PyTorch step's dump carries a kernel name, that the exports parse and
# hold one event/row per call, and runs bench/passthrough on the real
# driver. Prints a short table; files go to $OUT (or /tmp/cutap-gpu-rec).
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUTDIR=${OUT:-/tmp/cutap-gpu-rec}
R=$(mktemp -d /tmp/cutap-rec.XXXXXX)
B=$ROOT/build/gpu
W=$ROOT/tests/gpu/workloads
C=$ROOT/build/cutap
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p "$B" "$OUTDIR"

echo "== $(date -u +%Y-%m-%dT%H:%MZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
make -s lib >"$R/build.log" 2>&1 || { cat "$R/build.log"; exit 1; }
make -s cli >>"$R/build.log" 2>&1 || { cat "$R/build.log"; exit 1; }
(
  cd "$W"
  nvcc -O2 -arch=sm_90 vecadd.cu -o "$B/vecadd_static" &&
  nvcc -O2 -arch=sm_90 cublas_gemm.cu -lcublas -o "$B/cublas_gemm" &&
  nvcc -O2 -arch=sm_90 --default-stream per-thread ptds.cu -o "$B/ptds"
) >"$R/nvcc.log" 2>&1 || { echo "workload build failed"; tail -20 "$R/nvcc.log"; }
make -s build/bench/passthrough >/dev/null 2>&1

declare -A CMD=([vecadd_static]="$B/vecadd_static" [cublas_gemm]="$B/cublas_gemm" [ptds]="$B/ptds"
  [torch_step]="python3 $W/torch_step.py")
ORDER="vecadd_static ptds cublas_gemm torch_step"
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

printf '%-14s %4s %6s %6s %9s %9s %8s %8s %8s %s\n' workload rc t_same s_same calls launches named procs files 'ms bare/trace/stat'
for n in $ORDER; do
  t=$(date +%s%N); ${CMD[$n]} >"$R/$n.bare.out" 2>"$R/$n.bare.err"; rcb=$?; mb=$(ms $t)
  t=$(date +%s%N); "$C" trace -o "$R/$n.trace" -- ${CMD[$n]} >"$R/$n.trace.out" 2>"$R/$n.trace.err"; rct=$?; mt=$(ms $t)
  t=$(date +%s%N); "$C" stat -o "$R/$n.stat.txt" -- ${CMD[$n]} >"$R/$n.stat.out" 2>"$R/$n.stat.err"; rcs=$?; msx=$(ms $t)
  ts=no; cmp -s "$R/$n.bare.out" "$R/$n.trace.out" && [ $rcb = $rct ] && ts=yes
  ss=no; cmp -s "$R/$n.bare.out" "$R/$n.stat.out" && [ $rcb = $rcs ] && ss=yes
  "$C" report --format csv "$R/$n.trace" >"$R/$n.csv" 2>"$R/$n.report.err"
  "$C" dump "$R/$n.trace" >"$R/$n.dump" 2>"$R/$n.dump.err"
  calls=$(awk -F, 'NR>1 {s+=$3} END {print s+0}' "$R/$n.csv")
  launches=$(grep -c ' cuLaunchKernel\(Ex\)\?\(_ptsz\)\?(' "$R/$n.dump")
  named=$(grep ' cuLaunchKernel\(Ex\)\?\(_ptsz\)\?(' "$R/$n.dump" | grep -c 'f=0x[0-9a-f]*<')
  printf '%-14s %4s %6s %6s %9s %9s %8s %8s %8s %s/%s/%s\n' "$n" $rcb $ts $ss "$calls" "$launches" "$named" \
    "$(ls "$R/$n.trace" | wc -l)" "$(du -sh "$R/$n.trace" | cut -f1)" $mb $mt $msx
done

n=torch_step
echo
echo "== $n: report (top 15 by total time)"
"$C" report "$R/$n.trace" | head -17
echo "== $n: stat table (top 8)"
head -10 "$R/$n.stat.txt"
echo "== $n: launches in the dump (first 4, distinct kernels)"
grep ' cuLaunchKernel\(Ex\)\?\(_ptsz\)\?(' "$R/$n.dump" | awk -F'<' '!seen[$2]++' | head -4 | cut -c1-300
echo "== $n: distinct kernel names: $(grep -o 'f=0x[0-9a-f]*<[^>]*>' "$R/$n.dump" | sed 's/f=0x[0-9a-f]*//' | sort -u | wc -l)"
echo "== $n: other call lines (samples)"
grep -m1 ' cuGetProcAddress_v2(' "$R/$n.dump" | cut -c1-250
grep -m1 ' cuMemAlloc\(Async\)\?\(_v2\)\?\(_ptsz\)\?(' "$R/$n.dump" | cut -c1-250
grep -m1 ' cuGetExportTable(' "$R/$n.dump" | cut -c1-250
grep -m1 '#[0-9]*(' "$R/$n.dump" | cut -c1-250
echo "== $n: exports"
t=$(date +%s%N); "$C" export --format perfetto -o "$R/$n.json" "$R/$n.trace" 2>&1 | tail -2; echo "perfetto $(ms $t) ms $(du -h "$R/$n.json" | cut -f1)"
t=$(date +%s%N); "$C" export --format sqlite -o "$R/$n.db" "$R/$n.trace" 2>&1 | tail -2; echo "sqlite $(ms $t) ms $(du -h "$R/$n.db" | cut -f1)"
"$C" export --format jsonl -o "$R/$n.jsonl" "$R/$n.trace" 2>&1 | tail -2
python3 - "$R/$n.json" "$R/$n.db" "$R/$n.jsonl" "$R/$n.csv" <<'EOF'
import csv, json, sqlite3, sys
j, db, jl, c = sys.argv[1:]
calls = sum(int(r["calls"]) for r in csv.DictReader(open(c)))
ev = json.load(open(j))["traceEvents"]
x = sum(1 for e in ev if e.get("ph") == "X")
n = sqlite3.connect(db).execute("select count(*) from calls where dur_ns is not null").fetchone()[0]
l = sum(1 for line in open(jl) if json.loads(line).get("type") == "call" and "unfinished" not in line)
print("report calls %d, perfetto X events %d, sqlite rows %d, jsonl lines %d: %s" %
      (calls, x, n, l, "PASS" if calls == x == n == l else "FAIL"))
EOF
echo "== bench/passthrough on the real driver"
build/bench/passthrough 2>&1 | tail -8
(cd "$R" && tar czf "$OUTDIR/gpu-record.tgz" --exclude='*.trace' --exclude='*.db' --exclude='*.json' --exclude='*.jsonl' . 2>/dev/null)
cp "$R/$n.dump" "$OUTDIR/torch_step.dump.txt" 2>/dev/null; gzip -f "$OUTDIR/torch_step.dump.txt" 2>/dev/null
echo "results: $OUTDIR"
