#!/usr/bin/env bash
# GPU suite (run on the device machine, never in CI):
#   tests/gpu/run.sh            build cutap and the workloads, run each with
#                               and without cutap, print a table
# Results (logs, stat tables) go to $OUT (or /tmp/cutap-gpu) as one tarball.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUTDIR=${OUT:-/tmp/cutap-gpu}
R=$(mktemp -d /tmp/cutap-gpu.XXXXXX)
B=$ROOT/build/gpu
W=$ROOT/tests/gpu/workloads
LIB=$ROOT/build/libcutap.so
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p "$B" "$OUTDIR"

echo "== $(date -u +%Y-%m-%dT%H:%MZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
make -s lib >"$R/build.log" 2>&1 || { cat "$R/build.log"; exit 1; }
(
  cd "$W"
  nvcc -O2 -arch=sm_90 vecadd.cu -o "$B/vecadd_static" &&
  nvcc -O2 -arch=sm_90 -cudart shared vecadd.cu -o "$B/vecadd_shared" &&
  gcc -O2 -I/usr/local/cuda/include driverapi.c -o "$B/driverapi" -L/usr/local/cuda/lib64/stubs -lcuda &&
  nvcc -O2 -arch=sm_90 --default-stream per-thread ptds.cu -o "$B/ptds" &&
  nvcc -O2 -arch=sm_90 cublas_gemm.cu -lcublas -o "$B/cublas_gemm" &&
  nvcc -O2 -arch=sm_90 entrypoint.cu -o "$B/entrypoint"
) >"$R/nvcc.log" 2>&1 || { echo "workload build failed"; tail -20 "$R/nvcc.log"; }
gcc -O2 -o "$B/procaddr_check" tests/gpu/procaddr_check.c -ldl

# Real driver vs the generated tables.
DRV=$(ldconfig -p | awk '/libcuda.so.1 / {print $NF; exit}')
"$B/procaddr_check" tests/gpu/generated/procaddr_table.tsv gen/libcuda-580.159.04-exports.txt >"$R/procaddr.txt" 2>&1
tail -1 "$R/procaddr.txt"; grep -c MISMATCH "$R/procaddr.txt" >/dev/null && grep -m 20 'MISMATCH\|ALIAS' "$R/procaddr.txt"
nm -D --defined-only "$DRV" | awk '{print $3}' | grep '^cu' | sort >"$R/drv_exports.txt"
grep -v '^cudbg' gen/libcuda-580.159.04-exports.txt | sort >"$R/ref_exports.txt"
echo "driver $DRV: $(wc -l <"$R/drv_exports.txt") cu* exports; not in cutap's list: $(comm -23 <(grep -v ^cudbg "$R/drv_exports.txt") "$R/ref_exports.txt" | tr '\n' ' ')"

declare -A CMD=(
  [vecadd_static]="$B/vecadd_static" [vecadd_shared]="$B/vecadd_shared" [driverapi]="$B/driverapi"
  [driverapi_procaddr]="$B/driverapi procaddr" [ptds]="$B/ptds" [cublas_gemm]="$B/cublas_gemm"
  [torch_step]="python3 $W/torch_step.py" [entrypoint]="$B/entrypoint")
ORDER="vecadd_static vecadd_shared driverapi driverapi_procaddr ptds cublas_gemm torch_step entrypoint"
[ -n "${GPU_ONLY:-}" ] && ORDER=$GPU_ONLY

run() {  # name mode -> files in $R
  local n=$1 m=$2; shift 2
  local t0 t1
  t0=$(date +%s%N)
  case $m in
    bare) ${CMD[$n]} >"$R/$n.$m.out" 2>"$R/$n.$m.err" ;;
    *) env "$@" LD_PRELOAD=$LIB ${CMD[$n]} >"$R/$n.$m.out" 2>"$R/$n.$m.err" ;;
  esac
  echo $? >"$R/$n.$m.rc"
  t1=$(date +%s%N)
  echo $(( (t1 - t0) / 1000000 )) >"$R/$n.$m.ms"
}
calls() { awk '$NF=="total" {s+=$3} END {print s+0}' "$@" 2>/dev/null; }

printf '%-20s %5s %9s %9s %9s %9s %7s %7s %9s %s\n' workload rc same stat_same calls getproc exptbl hidden all_same 'ms(bare/trace)'
# hidden: calls through wrapped export-table slots under the default policy
for n in $ORDER; do
  run "$n" bare
  run "$n" trace CUTAP_LOG="$R/$n.log.%p" CUTAP_STAT="$R/$n.stat.%p" CUTAP_DEBUG=1
  run "$n" stat CUTAP_STAT="$R/$n.statonly.%p"
  run "$n" all CUTAP_HIDDEN=all CUTAP_LOG="$R/$n.all.%p"
  same=no; cmp -s "$R/$n.bare.out" "$R/$n.trace.out" && [ "$(cat "$R/$n.bare.rc")" = "$(cat "$R/$n.trace.rc")" ] && same=yes
  ssame=no; cmp -s "$R/$n.bare.out" "$R/$n.stat.out" && ssame=yes
  asame=no; cmp -s "$R/$n.bare.out" "$R/$n.all.out" && [ "$(cat "$R/$n.all.rc")" = 0 ] && asame=yes
  c=$(calls "$R/$n".stat.*)
  g=$(cat "$R/$n".log.* 2>/dev/null | grep -c ' cuGetProcAddress')
  e=$(cat "$R/$n".log.* 2>/dev/null | grep -c ' cuGetExportTable(')
  h=$(cat "$R/$n".log.* 2>/dev/null | grep -c '#[0-9]*(')
  printf '%-20s %5s %9s %9s %9s %9s %7s %7s %9s %s/%s\n' "$n" "$(cat "$R/$n.bare.rc")" $same $ssame "$c" "$g" "$e" "$h" $asame \
    "$(cat "$R/$n.bare.ms")" "$(cat "$R/$n.trace.ms")"
done
echo
if [[ " $ORDER " == *" entrypoint "* ]]; then
  n=$(cat "$R"/entrypoint.log.* 2>/dev/null | grep -c ' cuDeviceGetPCIBusId(')
  echo "cudaGetDriverEntryPointByVersion: cuDeviceGetPCIBusId calls recorded: $n (program made 3): $([ "$n" = 3 ] && echo PASS || echo FAIL)"
fi
echo "== export tables requested (uuid, name, count) over all workloads"
cat "$R"/*.log.* 2>/dev/null | grep -o 'uuid=[0-9a-f]* table=[A-Z_?0-9]*' | sort | uniq -c | sort -rn
echo "== export tables: word 0 as seen (CUTAP_DEBUG)"
cat "$R"/*.trace.err 2>/dev/null | grep -o 'export table [^ ]* at [^:]*: word 0 = 0x[0-9a-f]*' | sed 's/ at [^:]*//' | sort | uniq -c
echo "== hidden slots called by default (top 40)"
cat "$R"/*.log.* 2>/dev/null | sed -n 's/.* \([A-Za-z_0-9]*#[0-9]*\)(.*/\1/p' | sort | uniq -c | sort -rn | head -40
echo "== hidden slots called with CUTAP_HIDDEN=all (top 30)"
cat "$R"/*.all.* 2>/dev/null | sed -n 's/.* \([A-Za-z_0-9]*#[0-9]*\)(.*/\1/p' | sort | uniq -c | sort -rn | head -30
echo "== differences (first lines)"
for n in $ORDER; do
  cmp -s "$R/$n.bare.out" "$R/$n.trace.out" || { echo "-- $n trace"; diff "$R/$n.bare.out" "$R/$n.trace.out" | head -5; tail -3 "$R/$n.trace.err"; }
  cmp -s "$R/$n.bare.out" "$R/$n.all.out" || { echo "-- $n hidden=all"; diff "$R/$n.bare.out" "$R/$n.all.out" | head -5; tail -3 "$R/$n.all.err"; }
done
tar czf "$OUTDIR/gpu-results.tgz" -C "$R" . 2>/dev/null
echo "results: $OUTDIR/gpu-results.tgz"
