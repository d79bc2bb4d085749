#!/usr/bin/env bash
# The GPU suite (run on the device machine, never in CI):
#   tests/gpu/run.sh [WORKLOAD...]
# Builds what it needs (tests/gpu/build.sh), then runs each workload
#   bare;
#   under `cutap trace` with the CUPTI referee loaded by the driver
#     (CUDA_INJECTION64_PATH=libcupti_ref.so) in the same process, kernel
#     naming and the integrity self-check off (CUTAP_KERNEL_NAMES=0,
#     CUTAP_INTEGRITY=0) so that cutap makes no driver call of its own;
#   under plain `cutap trace` and under `cutap stat`;
# compares stdout and exit status with the bare run, and compares, process
# by process and API by API, the driver calls CUPTI counted with the ones
# cutap recorded (tests/gpu/compare.py). Prints a table, then the details:
# mismatches, calls CUPTI cannot see, export tables asked for and slots
# called. With 2 or more GPUs it also runs `torchrun --nproc_per_node=2`.
# Everything made goes to $OUT (or /tmp/cutap-gpu) as one tarball.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUTDIR=${OUT:-/tmp/cutap-gpu}
R=$(mktemp -d /tmp/cutap-gpu.XXXXXX)
B=$ROOT/build/gpu
W=$ROOT/tests/gpu/workloads
C=$ROOT/build/cutap
export PATH=/usr/local/cuda/bin:$PATH
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p "$OUTDIR"
NGPU=$(nvidia-smi -L | grep -c '^GPU')
echo "== $(date -u +%Y-%m-%dT%H:%MZ) $NGPU x $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
tests/gpu/build.sh || exit 1
[ -f "$B/libcupti_ref.so" ] || { echo "no CUPTI referee (build/gpu/libcupti_ref.so): cannot compare"; exit 1; }

# The version table against the real driver (no cutap).
"$B/procaddr_check" tests/gpu/generated/procaddr_table.tsv gen/libcuda-580.159.04-exports.txt >"$R/procaddr.txt" 2>&1
echo "cuGetProcAddress table vs driver: $(tail -1 "$R/procaddr.txt")"

declare -A CMD=(
  [vecadd_static]="$B/vecadd_static" [vecadd_shared]="$B/vecadd_shared" [driverapi]="$B/driverapi"
  [driverapi_procaddr]="$B/driverapi procaddr" [ptds]="$B/ptds" [cublas_gemm]="$B/cublas_gemm"
  [torch_step]="python3 $W/torch_step.py" [torch_graph]="python3 $W/torch_graph.py"
  [torch_dataloader]="python3 $W/torch_dataloader.py" [nccl_allreduce]="$B/nccl_allreduce"
  [entrypoint]="$B/entrypoint"
  [torchrun_2gpu]="torchrun --standalone --nproc_per_node=2 $W/ddp_allreduce.py")
ORDER="vecadd_static vecadd_shared driverapi driverapi_procaddr ptds cublas_gemm torch_step torch_graph
  torch_dataloader nccl_allreduce entrypoint"
[ "$NGPU" -ge 2 ] && ORDER="$ORDER torchrun_2gpu"
[ $# -gt 0 ] && ORDER="$*"

# Runs CMD of workload $1 in mode $2 (the rest: a prefix command);
# leaves $R/$1.$2.{out,err,rc,ms}. Output of torchrun is sorted: its
# ranks print in any order.
run() {
  local n=$1 m=$2 t0; shift 2
  t0=$(date +%s%N)
  "$@" ${CMD[$n]} >"$R/$n.$m.raw" 2>"$R/$n.$m.err"
  echo $? >"$R/$n.$m.rc"
  echo $(( ($(date +%s%N) - t0) / 1000000 )) >"$R/$n.$m.ms"
  if [ "$n" = torchrun_2gpu ]; then sort "$R/$n.$m.raw" >"$R/$n.$m.out"; else cp "$R/$n.$m.raw" "$R/$n.$m.out"; fi
}
same() { cmp -s "$R/$1.bare.out" "$R/$1.$2.out" && [ "$(cat "$R/$1.bare.rc")" = "$(cat "$R/$1.$2.rc")" ] && echo yes || echo no; }
kv() { sed -n "s/.* $2=\([0-9]*\).*/\1/p" "$R/$1.compare" | head -1; }

fmt='%-18s %3s %-11s %6s %6s %7s %7s %5s %7s %6s %7s %7s %7s %s\n'
printf "$fmt" workload rc 'same r/t/s' 'APIs:C' cutap 'calls:C' cutap mism getproc exptbl hidden preinit postexit 'ms bare/trace'
FAIL=0
for n in $ORDER; do
  [ -n "${CMD[$n]:-}" ] || { echo "$n: unknown workload"; continue; }
  mkdir -p "$R/$n.cupti"
  run "$n" bare
  run "$n" ref env CUDA_INJECTION64_PATH="$B/libcupti_ref.so" CUTAP_REF_DIR="$R/$n.cupti" CUTAP_KERNEL_NAMES=0 CUTAP_INTEGRITY=0 \
    "$C" trace -o "$R/$n.reftrace" --
  run "$n" trace "$C" trace -o "$R/$n.trace" --
  run "$n" stat "$C" stat -o "$R/$n.stat.txt" --
  "$C" export --format sqlite -o "$R/$n.ref.sqlite" "$R/$n.reftrace" 2>"$R/$n.export.err"
  python3 tests/gpu/compare.py "$n" "$R/$n.cupti" "$R/$n.ref.sqlite" >"$R/$n.compare" 2>&1 || FAIL=1
  "$C" dump "$R/$n.trace" >"$R/$n.dump" 2>/dev/null
  "$C" report --format csv "$R/$n.trace" >"$R/$n.csv" 2>/dev/null
  # A program whose only cudart is the shared one: every runtime call
  # CUPTI saw, cutap saw (and none more: compare.py fails on those).
  if [ "$n" = vecadd_shared ] && { [ "$(kv "$n" rt_cupti_more)" != 0 ] || [ "$(kv "$n" rt_equal)" = 0 ]; }; then
    echo "$n: runtime calls differ from CUPTI's"; FAIL=1
  fi
  s="$(same "$n" ref)/$(same "$n" trace)/$(same "$n" stat)"
  [ "$s" = yes/yes/yes ] && [ "$(cat "$R/$n.bare.rc")" = 0 ] || FAIL=1
  printf "$fmt" "$n" "$(cat "$R/$n.bare.rc")" "$s" "$(kv "$n" cupti_apis)" "$(kv "$n" cutap_apis)" \
    "$(kv "$n" cupti_calls)" "$(kv "$n" cutap_calls)" "$(kv "$n" mismatches)" "$(kv "$n" getproc)" \
    "$(kv "$n" exptbl)" "$(kv "$n" hidden)" "$(kv "$n" preinit)" "$(kv "$n" postexit)" \
    "$(cat "$R/$n.bare.ms")/$(cat "$R/$n.trace.ms")"
done
echo
echo "columns: rc = the bare run's exit status (must be 0);"
echo "same r/t/s = stdout and status equal to the bare run under trace+CUPTI / trace / stat;"
echo "APIs, calls: distinct driver APIs and calls CUPTI (C) counted, and cutap recorded while CUPTI was"
echo "active; mism: (process, API) pairs whose counts differ; getproc: cuGetProcAddress* calls (all, also"
echo "compared); exptbl: cuGetExportTable calls (CUPTI reports none); hidden: export-table slot calls;"
echo "preinit, postexit: calls cutap saw before the driver loaded CUPTI / after CUPTI's last callback"
echo
echo "== runtime API calls: cutap's runtime layer vs CUPTI's runtime domain (while CUPTI was active;"
echo "   equal/cupti_more/cutap_more: APIs; CUPTI also sees statically linked cudart copies)"
for n in $ORDER; do
  printf '%-18s cutap calls %6s  APIs equal %4s  CUPTI more %4s  cutap more %4s  no cbid %4s\n' "$n" \
    "$(kv "$n" rt_cutap_calls)" "$(kv "$n" rt_equal)" "$(kv "$n" rt_cupti_more)" "$(kv "$n" rt_cutap_more)" \
    "$(kv "$n" rt_nocbid)"
done
echo
echo "== details"
for n in $ORDER; do
  [ -s "$R/$n.compare" ] && sed -n '2,$p' "$R/$n.compare" | head -30 | sed "s/^/$n /"
  [ "$(same "$n" ref)$(same "$n" trace)$(same "$n" stat)" = yesyesyes ] || {
    for m in ref trace stat; do
      [ "$(same "$n" $m)" = yes ] || { echo "-- $n $m: rc $(cat "$R/$n.$m.rc")"; diff "$R/$n.bare.out" "$R/$n.$m.out" | head -5; tail -5 "$R/$n.$m.err"; }
    done
  }
done
if [[ " $ORDER " == *" entrypoint "* ]]; then
  k=$(grep -c ' cuDeviceGetPCIBusId(' "$R/entrypoint.dump" 2>/dev/null)
  if [ "$k" = 3 ]; then r=PASS; else r=FAIL; FAIL=1; fi
  echo "cudaGetDriverEntryPointByVersion: cuDeviceGetPCIBusId calls recorded: ${k:-none} (program made 3): $r"
fi
if [[ " $ORDER " == *" torchrun_2gpu "* ]]; then
  echo "== torchrun, 2 ranks: cutap report --by rank (driver APIs called on both ranks / on one only)"
  "$C" report --format csv --by rank "$R/torchrun_2gpu.trace" >"$R/torchrun_2gpu.byrank.csv"
  python3 - "$R/torchrun_2gpu.byrank.csv" <<'EOF'
import csv, sys, collections
rows = list(csv.DictReader(open(sys.argv[1])))
by = collections.defaultdict(dict)
for r in rows:
    by[r["rank"]][r["name"]] = int(r["calls"])
ranks = sorted(k for k in by if k not in ("", "-"))
print("ranks:", ", ".join("%s (%d calls, %d APIs)" % (k, sum(by[k].values()), len(by[k])) for k in ranks))
both = set.intersection(*(set(by[k]) for k in ranks)) if len(ranks) >= 2 else set()
print("APIs on every rank: %d; only some: %s" % (len(both), sorted(set.union(*(set(by[k]) for k in ranks)) - both) if ranks else "-"))
for name in ("cuMemCreate", "cuMemMap", "cuMemExportToShareableHandle", "cuMemImportFromShareableHandle",
             "cuIpcGetMemHandle", "cuIpcOpenMemHandle_v2", "cuMemGetHandleForAddressRange", "cuLaunchKernelEx"):
    print("  %-32s %s" % (name, " ".join("rank%s=%d" % (k, by[k].get(name, 0)) for k in ranks)))
EOF
  ls "$R/torchrun_2gpu.trace" | sed 's/^/  file /'
fi
echo "== export tables asked for (all workloads, plain trace): requests per table"
cat "$R"/*.dump 2>/dev/null | grep ' cuGetExportTable(' | sed -n 's/.*}<\([^>]*\)>.*/\1/p' | sort | uniq -c | sort -rn
echo "== export-table slots called (all workloads): calls per slot"
cat "$R"/*.csv 2>/dev/null | awk -F, '$1=="hidden" {n[$2]+=$3} END {for (k in n) print n[k], k}' | sort -rn | head -40
echo "== runtime and library layers (tests/gpu/layers.sh)"
tests/gpu/layers.sh || FAIL=1
tar czf "$OUTDIR/gpu-results.tgz" -C "$R" --exclude='*.reftrace' --exclude='*.trace' . 2>/dev/null
echo "results: $OUTDIR/gpu-results.tgz ($(du -h "$OUTDIR/gpu-results.tgz" | cut -f1)); suite $([ $FAIL = 0 ] && echo PASSED || echo FAILED)"
exit $FAIL
