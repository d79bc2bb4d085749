#!/usr/bin/env bash
# Issue #14 on the GPU: for each workload, the runtime calls an independent
# CUPTI counting run saw (the referee alone: CUPTI allows one subscriber)
# against those `cutap trace --runtime=cupti` recorded in a run of its own
# (tests/gpu/runtime_coverage.py), and the outputs of both runs against the
# bare run's. Prints a line per workload.   tests/gpu/runtime_coverage.sh [WORKLOAD...]
set -u
cd "$(dirname "$0")/../.."
B=build/gpu W=tests/gpu/workloads C=build/cutap
[ -f $B/libcupti_ref.so ] || tests/gpu/build.sh >/dev/null || exit 1
R=$(mktemp -d /tmp/cutap-rtcov.XXXXXX)
declare -A CMD=([vecadd_static]="$B/vecadd_static" [vecadd_shared]="$B/vecadd_shared" [cublas_gemm]="$B/cublas_gemm"
  [torch_step]="python3 $W/torch_step.py" [torch_graph]="python3 $W/torch_graph.py"
  [torch_conv_graph]="python3 $W/torch_conv_graph.py" [torch_compile]="python3 $W/torch_compile.py"
  [jax_step]="python3 $W/jax_step.py" [nccl_allreduce]="$B/nccl_allreduce")
ORDER=${*:-vecadd_static vecadd_shared cublas_gemm torch_step torch_graph torch_conv_graph torch_compile jax_step nccl_allreduce}
echo "== $(date -u +%Y-%m-%dT%H:%MZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
for n in $ORDER; do
  timeout 300 ${CMD[$n]} >"$R/$n.bare" 2>"$R/$n.bare.err"; brc=$?
  if [ $brc != 0 ] || grep -qx NOGPU "$R/$n.bare"; then echo "$n: bare run failed or no GPU ($brc): skipped"; grep -m3 -i 'error' "$R/$n.bare.err"; continue; fi
  mkdir -p "$R/$n.ref"
  CUDA_INJECTION64_PATH=$PWD/$B/libcupti_ref.so CUTAP_REF_DIR="$R/$n.ref" timeout 300 ${CMD[$n]} >"$R/$n.refout" 2>/dev/null
  timeout 300 $C trace --runtime=cupti -o "$R/$n.tr" -- ${CMD[$n]} >"$R/$n.out" 2>"$R/$n.err"
  same=no; cmp -s "$R/$n.bare" "$R/$n.out" && cmp -s "$R/$n.bare" "$R/$n.refout" && same=yes
  $C export --format sqlite -o "$R/$n.db" "$R/$n.tr" 2>>"$R/$n.err"
  python3 tests/gpu/runtime_coverage.py "$n" "$R/$n.ref" "$R/$n.db" >"$R/$n.cov" 2>&1
  echo "$(head -1 "$R/$n.cov") output_same=$same"
  tail -n +2 "$R/$n.cov"
  grep -i 'cupti' "$R/$n.err" | head -2
done
rm -rf "$R"
