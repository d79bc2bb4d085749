#!/usr/bin/env bash
# Runtime and library layers on a real GPU (device machine only):
#   tests/gpu/layers.sh [WORKLOAD...]
# Runs workloads of the GPU suite bare and under `cutap trace` (the
# statically linked vecadd also under `cutap trace --runtime=cupti`),
# checks that output and status are unchanged, and checks with
# tests/gpu/layers.py that the runtime and library calls are recorded in
# their layers with the driver calls they made nested under them (the
# SQLite export's parent column). Prints one table; exits 1 on a failure.
# Assumes tests/gpu/build.sh has run (tests/gpu/run.sh runs it).
set -u
cd "$(dirname "$0")/../.."
B=$PWD/build/gpu W=$PWD/tests/gpu/workloads C=$PWD/build/cutap
R=$(mktemp -d /tmp/cutap-layers.XXXXXX)
OUTDIR=${OUT:-/tmp/cutap-gpu}
mkdir -p "$OUTDIR"
export NGPU=$(nvidia-smi -L | grep -c '^GPU')
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
[ -x "$C" ] && [ -x "$B/vecadd_shared" ] || tests/gpu/build.sh || exit 1
declare -A CMD=(
  [vecadd_shared]="$B/vecadd_shared" [vecadd_static_cupti]="$B/vecadd_static" [cublas_gemm]="$B/cublas_gemm"
  [nccl_allreduce]="$B/nccl_allreduce" [torch_step]="python3 $W/torch_step.py" [nvidia_smi]="nvidia-smi -L")
ORDER=${*:-vecadd_shared vecadd_static_cupti cublas_gemm nccl_allreduce torch_step nvidia_smi}
FAIL=0
printf '%-20s %4s %5s %8s  %s\n' workload rc same ms layers
for n in $ORDER; do
  opt=
  [ "$n" = vecadd_static_cupti ] && opt=--runtime=cupti
  ${CMD[$n]} >"$R/$n.bare" 2>"$R/$n.bare.err"; brc=$?
  t0=$(date +%s%N)
  "$C" trace $opt -o "$R/$n.trace" -- ${CMD[$n]} >"$R/$n.out" 2>"$R/$n.err"; rc=$?
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  same=no
  cmp -s "$R/$n.bare" "$R/$n.out" && [ "$brc" = "$rc" ] && [ "$brc" = 0 ] && same=yes
  "$C" export --format sqlite -o "$R/$n.sqlite" "$R/$n.trace" 2>>"$R/$n.err"
  "$C" report --tree "$R/$n.trace" >"$R/$n.tree" 2>&1
  "$C" dump "$R/$n.trace" >"$R/$n.dump" 2>&1
  python3 tests/gpu/layers.py "$n" "$R/$n.sqlite" >"$R/$n.check" 2>&1; crc=$?
  [ "$same" = yes ] && [ "$crc" = 0 ] || FAIL=1
  printf '%-20s %4s %5s %8s  %s\n' "$n" "$rc" "$same" "$ms" "$(head -1 "$R/$n.check" | cut -d' ' -f2-)"
done
echo "== details"
for n in $ORDER; do
  sed -n '2,$p' "$R/$n.check" | sed "s/^/$n /"
  grep -i 'cutap' "$R/$n.err" | head -3 | sed "s/^/$n stderr: /"
  [ "$(cmp -s "$R/$n.bare" "$R/$n.out" && echo y)" = y ] || { echo "$n: output differs"; diff "$R/$n.bare" "$R/$n.out" | head -5; }
done
echo "== an excerpt of cutap dump (vecadd_shared, first runtime calls with their driver calls)"
grep -m1 -n ' cudaMalloc(' "$R/vecadd_shared.dump" >/dev/null 2>&1 &&
  awk '/ cudaMalloc\(/ {p=1} p {print; if (++k == 12) exit}' "$R/vecadd_shared.dump" | cut -c1-160
echo "== cutap report --tree (torch_step), the first 40 lines"
head -40 "$R/torch_step.tree" 2>/dev/null | cut -c1-180
tar czf "$OUTDIR/layers-results.tgz" -C "$R" --exclude='*.trace' --exclude='*.sqlite' . 2>/dev/null
echo "layers: $([ $FAIL = 0 ] && echo PASSED || echo FAILED)"
exit $FAIL
