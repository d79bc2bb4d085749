#!/usr/bin/env bash
# Issues #14 and #25 on the GPU: for each workload, the runtime calls an
# independent CUPTI counting run saw (the referee alone) against those
# plain `cutap trace` (the runtime copies' own reports, no CUPTI; RTCOV_OPT
# adds options, e.g. --runtime=cupti) recorded in a run of its own
# (tests/gpu/runtime_coverage.py), summed over processes and process by
# process (the processes of the two runs matched by their place in the
# process tree), and the outputs of both runs against the bare run's.
# Prints a line per workload, then one per process and the differences.
#   tests/gpu/runtime_coverage.sh [WORKLOAD...]
# Multi-process workloads: torch_dataloader (forked workers), ptds (4
# threads, one process), torchrun_2gpu (launcher + 2 ranks; only with 2 or
# more GPUs; its ranks print in any order, so outputs are compared sorted).
# RTCOV_REPEAT=1: a second referee run per workload, and a "repeat" line:
# how much two referee runs differ, and whether cutap is within that.
# rt118_static, rt118_shared, rt124_static, rt124_shared: CUDA 11.8's and
# 12.4's runtimes, static and shared (tests/gpu/workloads/rt118_static.c,
# built on the development machine and carried as build/rtold/, the shared
# libcudart.so.11.0 and .so.12 beside them); rt118t_*, rt124t_*: the same
# with the functions whose signature changed since (rtold_typed.c, #28).
# RTCOV_BOTH=1: also a run with cutap and the referee in the same process
# (a CUPTI client beside cutap, as nsys or a profiler is): a "both" line,
# cutap's calls in that run against the referee alone, and the referee's
# counts in that run against the referee alone (its "repeat" line: ref_diff
# is how much the referee's counts changed with cutap beside it).
set -u
cd "$(dirname "$0")/../.."
B=build/gpu W=tests/gpu/workloads C=build/cutap
export PATH=/usr/local/cuda/bin:$PATH
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
for f in libcupti_ref.so vecadd_static vecadd_shared ptds cublas_gemm nccl_allreduce; do
  [ -f $B/$f ] || { tests/gpu/build.sh >/dev/null || exit 1; break; }
done
[ -x $C ] || { echo "no $C: run make"; exit 1; }
R=$(mktemp -d /tmp/cutap-rtcov.XXXXXX)
trap 'rm -rf "$R"' EXIT
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
declare -A CMD=([vecadd_static]="$B/vecadd_static" [vecadd_shared]="$B/vecadd_shared" [cublas_gemm]="$B/cublas_gemm"
  [ptds]="$B/ptds" [torch_step]="python3 $W/torch_step.py" [torch_graph]="python3 $W/torch_graph.py"
  [torch_dataloader]="python3 $W/torch_dataloader.py"
  [torch_conv_graph]="python3 $W/torch_conv_graph.py" [torch_compile]="python3 $W/torch_compile.py"
  [jax_step]="python3 $W/jax_step.py" [nccl_allreduce]="$B/nccl_allreduce" [cupy_step]="python3 $W/cupy_step.py"
  [rt118_static]="build/rtold/rt118_static" [rt118_shared]="build/rtold/rt118_shared"
  [rt124_static]="build/rtold/rt124_static" [rt124_shared]="build/rtold/rt124_shared"
  [rt118t_static]="build/rtold/rt118t_static" [rt118t_shared]="build/rtold/rt118t_shared"
  [rt124t_static]="build/rtold/rt124t_static" [rt124t_shared]="build/rtold/rt124t_shared"
  [torchrun_2gpu]="torchrun --standalone --nproc_per_node=2 $W/ddp_allreduce.py")
ORDER="vecadd_static vecadd_shared ptds cublas_gemm torch_step torch_graph torch_dataloader torch_conv_graph
  torch_compile jax_step cupy_step nccl_allreduce"
[ "$NGPU" -ge 2 ] && ORDER="$ORDER torchrun_2gpu"
[ $# -gt 0 ] && ORDER="$*"
echo "== $(date -u +%Y-%m-%dT%H:%MZ) $NGPU x $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"

# Runs workload $1's command with stdout to $2 (sorted for torchrun, whose
# ranks print in any order), stderr to $3; the rest: a prefix command.
# Returns the command's status.
run() {
  local n=$1 out=$2 err=$3 rc; shift 3
  timeout 300 "$@" ${CMD[$n]} >"$out.raw" 2>"$err"; rc=$?
  if [ "$n" = torchrun_2gpu ]; then sort "$out.raw" >"$out"; else mv "$out.raw" "$out"; fi
  rm -f "$out.raw"
  return $rc
}
ref() {   # a referee run of workload $1 into directory $2, stdout to $3
  mkdir -p "$2"
  run "$1" "$3" /dev/null env CUDA_INJECTION64_PATH="$PWD/$B/libcupti_ref.so" CUTAP_REF_DIR="$2"
}

for n in $ORDER; do
  [ -n "${CMD[$n]:-}" ] || { echo "$n: unknown workload"; continue; }
  [ "$n" = torchrun_2gpu ] && [ "$NGPU" -lt 2 ] && { echo "$n: needs 2 GPUs ($NGPU here): skipped"; continue; }
  run "$n" "$R/$n.bare" "$R/$n.bare.err"; brc=$?
  if [ $brc != 0 ] || grep -qx NOGPU "$R/$n.bare"; then echo "$n: bare run failed or no GPU ($brc): skipped"; grep -m3 -i 'error' "$R/$n.bare.err"; continue; fi
  ref "$n" "$R/$n.ref" "$R/$n.refout"
  run "$n" "$R/$n.out" "$R/$n.err" $C trace ${RTCOV_OPT:-} -o "$R/$n.tr" --
  same=no; cmp -s "$R/$n.bare" "$R/$n.out" && cmp -s "$R/$n.bare" "$R/$n.refout" && same=yes
  ref2=
  if [ "${RTCOV_REPEAT:-0}" = 1 ]; then
    ref "$n" "$R/$n.ref2" "$R/$n.refout2"
    cmp -s "$R/$n.bare" "$R/$n.refout2" || same=no
    ref2=$R/$n.ref2
  fi
  $C export --format sqlite -o "$R/$n.db" "$R/$n.tr" 2>>"$R/$n.err"
  python3 tests/gpu/runtime_coverage.py "$n" "$R/$n.ref" "$R/$n.db" $ref2 >"$R/$n.cov" 2>&1
  echo "$(head -1 "$R/$n.cov") output_same=$same"
  tail -n +2 "$R/$n.cov"
  grep -i 'cupti' "$R/$n.err" | head -2
  if [ "${RTCOV_BOTH:-0}" = 1 ]; then
    mkdir -p "$R/$n.bref"
    run "$n" "$R/$n.bout" "$R/$n.berr" env CUDA_INJECTION64_PATH="$PWD/$B/libcupti_ref.so" CUTAP_REF_DIR="$R/$n.bref" \
      $C trace ${RTCOV_OPT:-} -o "$R/$n.btr" --
    bsame=no; cmp -s "$R/$n.bare" "$R/$n.bout" && bsame=yes
    $C export --format sqlite -o "$R/$n.bdb" "$R/$n.btr" 2>>"$R/$n.berr"
    python3 tests/gpu/runtime_coverage.py "$n" "$R/$n.ref" "$R/$n.bdb" "$R/$n.bref" >"$R/$n.bcov" 2>&1
    echo "  both: $(head -1 "$R/$n.bcov") output_same=$bsame"
    grep -E '^  (repeat|less|more)' "$R/$n.bcov" | head -8 | sed 's/^/  both:/'
  fi
done
echo "columns: procs = processes with runtime calls matched between the referee's run and cutap's / all"
echo "(per side, processes without runtime calls are counted as idle); pp_coverage = coverage per"
echo "process and API; role: main, rankN (cutap's RANK), rootN, .../childN (by ppid, in the tree of"
echo "processes with runtime calls); match=fit: siblings paired by least difference (start order"
echo "is a race between ranks), match=only: the one candidate."
[ "${RTCOV_REPEAT:-0}" = 1 ] && echo "repeat: ref_diff = sum over APIs of |referee2 - referee| (summed over processes; _pp_: per
matched process), cutap_diff the same for cutap against the first referee run; within: cutap_diff <= ref_diff
in both; apis_beyond: APIs where |cutap - referee| > |referee2 - referee|."
exit 0
