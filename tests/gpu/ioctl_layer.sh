#!/usr/bin/env bash
# Issue #15 on the GPU: cutap's ioctl layer against an independent count.
#   tests/gpu/ioctl_layer.sh [WORKLOAD...]      (or IOCTL_WORKLOADS="...")
# For each workload of the GPU suite (tests/gpu/run.sh's, plus jax_step and
# torch_conv_graph; torchrun_2gpu with 2 or more GPUs):
#   1. bare: the reference output and status;
#   2. with only build/gpu/libioctl_count.so preloaded (tests/gpu/ioctl_count.c,
#      no cutap): its counts, to show the traced run's are of the same order
#      (a run's requests vary a little from run to run);
#   3. `cutap trace` with the counter in cutap's environment, so that the
#      traced processes get LD_PRELOAD=libcutap.so:libioctl_count.so
#      (cli/run/launch.c puts libcutap first): the counter is the "kernel" libcutap
#      passes every request on to, in the same processes;
# then exports that trace (SQLite, and JSON lines of the ioctl layer) and
# compares, process by process (same pid) and per (device, request key), the
# counter's counts with cutap's records (tests/gpu/ioctl_layer.py compare):
#   WORKLOAD requests=N (counter) recorded=N equal=yes/no procs=K nested=P% output_same=yes/no
# nested: the share of the ioctl layer's requests (open/close/mmap/munmap
# left out) whose parent is a call of another layer; then the top 3 parents,
# the counter-alone run, the wrapped requests, RM controls and classes, and
# the differences. At the end, across workloads, the ten most frequent RM
# controls and RM_ALLOC classes as cutap named them (any left in hex
# flagged) and the requests left unnamed; then the cost on PyTorch steps
# (bench/gpu/torch_steps.py): bare, `cutap trace`, `cutap trace -e
# '!layer=ioctl'`, 3 alternating runs each, medians in ms per step.
# Environment: IOCTL_WORKLOADS (the list), IOCTL_COST=0 (no cost runs),
# IOCTL_COST_STEPS (steps per window, default 300), IOCTL_COST_RUNS (alternating runs, default 3), IOCTL_COUNTER_ALONE=0 (no
# run 2), IOCTL_JSONL=0 (no JSON-lines export: SQLite only), IOCTL_TIMEOUT (seconds per run, default 300), IOCTL_KEEP=1 (keep the
# work directory). Results (small files, no traces) go to
# ${OUT:-/tmp/cutap-gpu}/ioctl-results.tgz. Exit status 1 when a workload's
# counts differ or its output changed.
set -u
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
B=$ROOT/build/gpu W=$ROOT/tests/gpu/workloads C=$ROOT/build/cutap
OUTDIR=${OUT:-/tmp/cutap-gpu}
export PATH=/usr/local/cuda/bin:$PATH
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p "$B" "$OUTDIR"
gcc -O2 -shared -fPIC -Wall -Wextra tests/gpu/ioctl_count.c -o "$B/libioctl_count.so" -ldl ||
  { echo "libioctl_count.so: build failed"; exit 1; }
CNT=$B/libioctl_count.so
need=0
for f in vecadd_static vecadd_shared driverapi ptds cublas_gemm nccl_allreduce entrypoint; do
  [ -x "$B/$f" ] || need=1
done
if [ $need = 1 ] || [ ! -x "$C" ]; then
  tests/gpu/build.sh || exit 1
else
  make -s lib cli >"$B/ioctl_make.log" 2>&1 || { echo "cutap: build failed"; tail -20 "$B/ioctl_make.log"; exit 1; }
fi
R=$(mktemp -d /tmp/cutap-ioctl.XXXXXX)
if [ "${IOCTL_KEEP:-0}" = 1 ]; then echo "work directory: $R"; else trap 'rm -rf "$R"' EXIT; fi
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
echo "== $(date -u +%Y-%m-%dT%H:%MZ) $NGPU x $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"

declare -A CMD=(
  [vecadd_static]="$B/vecadd_static" [vecadd_shared]="$B/vecadd_shared" [driverapi]="$B/driverapi"
  [ptds]="$B/ptds" [cublas_gemm]="$B/cublas_gemm"
  [torch_step]="python3 $W/torch_step.py" [torch_graph]="python3 $W/torch_graph.py"
  [torch_dataloader]="python3 $W/torch_dataloader.py" [nccl_allreduce]="$B/nccl_allreduce"
  [entrypoint]="$B/entrypoint" [jax_step]="python3 $W/jax_step.py"
  [torch_conv_graph]="python3 $W/torch_conv_graph.py"
  [torchrun_2gpu]="torchrun --standalone --nproc_per_node=2 $W/ddp_allreduce.py")
ORDER="vecadd_static vecadd_shared driverapi ptds cublas_gemm torch_step torch_graph torch_dataloader
  nccl_allreduce entrypoint jax_step torch_conv_graph"
[ "$NGPU" -ge 2 ] && ORDER="$ORDER torchrun_2gpu"
[ -n "${IOCTL_WORKLOADS:-}" ] && ORDER=$IOCTL_WORKLOADS
[ $# -gt 0 ] && ORDER="$*"

# Runs workload $1 in mode $2 (the rest: a prefix command): stdout
# $R/$1.$2.out (sorted for torchrun, whose ranks print in any order),
# stderr .err, status .rc, wall time .ms.
run() {
  local n=$1 m=$2 t0; shift 2
  t0=$(date +%s%N)
  timeout "${IOCTL_TIMEOUT:-300}" "$@" ${CMD[$n]} >"$R/$n.$m.raw" 2>"$R/$n.$m.err"
  echo $? >"$R/$n.$m.rc"
  echo $(( ($(date +%s%N) - t0) / 1000000 )) >"$R/$n.$m.ms"
  if [ "$n" = torchrun_2gpu ]; then sort "$R/$n.$m.raw" >"$R/$n.$m.out"; else cp "$R/$n.$m.raw" "$R/$n.$m.out"; fi
  rm -f "$R/$n.$m.raw"
}
same() { cmp -s "$R/$1.bare.out" "$R/$1.$2.out" && [ "$(cat "$R/$1.bare.rc")" = "$(cat "$R/$1.$2.rc")" ] && echo yes || echo no; }
PRE=$CNT${LD_PRELOAD:+:$LD_PRELOAD}   # the counter preloaded (cutap puts libcutap.so in front)

FAIL=0
for n in $ORDER; do
  [ -n "${CMD[$n]:-}" ] || { echo "$n: unknown workload"; continue; }
  [ "$n" = torchrun_2gpu ] && [ "$NGPU" -lt 2 ] && { echo "$n: needs 2 GPUs ($NGPU here): skipped"; continue; }
  run "$n" bare
  if [ "$(cat "$R/$n.bare.rc")" != 0 ] || grep -qx NOGPU "$R/$n.bare.out"; then
    echo "$n: bare run failed (status $(cat "$R/$n.bare.rc")) or no GPU: skipped"
    grep -m3 -i error "$R/$n.bare.err" | cut -c1-200
    continue
  fi
  alone=
  if [ "${IOCTL_COUNTER_ALONE:-1}" = 1 ]; then
    run "$n" cnt env IOCTL_COUNT_OUT="$R/$n.cnt.jsonl" LD_PRELOAD="$PRE"
    alone="--bare-counter $R/$n.cnt.jsonl --counter-output-same $(same "$n" cnt)"
  fi
  run "$n" trace env IOCTL_COUNT_OUT="$R/$n.tcnt.jsonl" LD_PRELOAD="$PRE" "$C" trace -o "$R/$n.tr" --
  touch "$R/$n.tcnt.jsonl"
  "$C" export --format sqlite -o "$R/$n.db" "$R/$n.tr" 2>>"$R/$n.export.err"
  jl=
  if [ "${IOCTL_JSONL:-1}" = 1 ]; then
    "$C" export --format jsonl -e layer=ioctl -o "$R/$n.export.jsonl" "$R/$n.tr" 2>>"$R/$n.export.err"
    jl="--jsonl $R/$n.export.jsonl"
  fi
  python3 tests/gpu/ioctl_layer.py compare "$n" --counter "$R/$n.tcnt.jsonl" --sqlite "$R/$n.db" $jl $alone \
    --output-same "$(same "$n" trace)" --summary "$R/$n.sum.json" >"$R/$n.cmp" 2>&1
  cat "$R/$n.cmp"
  echo "  wall ms: bare $(cat "$R/$n.bare.ms"), counter alone $(cat "$R/$n.cnt.ms" 2>/dev/null || echo -)," \
    "trace+counter $(cat "$R/$n.trace.ms"); trace status $(cat "$R/$n.trace.rc")"
  head -1 "$R/$n.cmp" | grep -q ' equal=yes .* output_same=yes$' || FAIL=1
  if [ "$(same "$n" trace)" != yes ]; then
    echo "  -- output under trace differs from bare:"; diff "$R/$n.bare.out" "$R/$n.trace.out" | head -5
    grep -v '^cutap: ' "$R/$n.trace.err" | tail -3
  fi
  grep -h -i 'error\|warning' "$R/$n.export.err" 2>/dev/null | head -3 | sed 's/^/  export: /'
  grep -h '^cutap: ' "$R/$n.trace.err" | tail -2 | sed 's/^/  /'
  [ "${IOCTL_KEEP:-0}" = 1 ] || rm -rf "$R/$n.tr" "$R/$n.db" "$R/$n.export.jsonl"
done

echo
echo "== across workloads"
ls "$R"/*.sum.json >/dev/null 2>&1 && python3 tests/gpu/ioctl_layer.py summary "$R"/*.sum.json

if [ "${IOCTL_COST:-1}" = 1 ]; then
  echo
  echo "== cost on PyTorch steps (bench/gpu/torch_steps.py ${IOCTL_COST_STEPS:-300}: the fastest of 7 windows)"
  PIN="taskset -c 4-11"
  $PIN true 2>/dev/null || PIN=
  rate() { grep -o 'steps_per_s [0-9.]*' | awk '{print $2}' | tail -1; }
  S=${IOCTL_COST_STEPS:-300} TB="" TT="" TX=""
  for i in $(seq "${IOCTL_COST_RUNS:-3}"); do
    TB+=" $(timeout 300 $PIN python3 bench/gpu/torch_steps.py "$S" 2>>"$R/cost.err" | rate)"
    TT+=" $(timeout 300 $PIN "$C" trace -o "$R/cost.t$i" -- python3 bench/gpu/torch_steps.py "$S" 2>>"$R/cost.err" |
      rate)"
    TX+=" $(timeout 300 $PIN "$C" trace -e '!layer=ioctl' -o "$R/cost.x$i" -- python3 bench/gpu/torch_steps.py "$S" \
      2>>"$R/cost.err" | rate)"
    echo "  run $i steps/s: bare ${TB##* } trace ${TT##* } trace-no-ioctl ${TX##* } ($(date +%T))"
  done
  [ "$(echo $TB $TT $TX | wc -w)" = $((3 * ${IOCTL_COST_RUNS:-3})) ] || { echo "  some runs failed:"; grep -v '^cutap: ' "$R/cost.err" | tail -5; }
  calls() { "$C" report --format csv "$1" 2>/dev/null | awk -F, 'NR > 1 {a += $3; if ($1 == "ioctl") i += $3}
    END {print i + 0, a + 0}'; }
  python3 tests/gpu/ioctl_layer.py cost --bare $TB --trace $TT --noioctl $TX \
    --records $(calls "$R/cost.t1") $(calls "$R/cost.x1")
  rm -rf "$R"/cost.*
fi

tar czf "$OUTDIR/ioctl-results.tgz" -C "$R" --exclude='*.tr' --exclude='*.db' --exclude='*.export.jsonl' \
  --exclude='cost.*' . 2>/dev/null
echo "results: $OUTDIR/ioctl-results.tgz; ioctl layer $([ $FAIL = 0 ] && echo PASSED || echo FAILED)"
exit $FAIL
