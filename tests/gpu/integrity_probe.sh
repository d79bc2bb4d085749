#!/usr/bin/env bash
# Issue #14: can the two tables the runtime verifies be wrapped? For each
# workload: the bare output, then `cutap trace --runtime=all` with
# CUTAP_HIDDEN=+CUDART_INTERFACE,+INTEGRITY_CHECK (the default tables and
# those two; resolve/integrity.c hands out copies only once it has matched
# the driver's integrity answer). Prints: output unchanged?, the calls of
# the two tables recorded, cutap's warnings.   tests/gpu/integrity_probe.sh [WORKLOAD...]
set -u
cd "$(dirname "$0")/../.."
B=build/gpu W=tests/gpu/workloads C=build/cutap
[ -x $B/vecadd_static ] || tests/gpu/build.sh >/dev/null || exit 1
R=$(mktemp -d /tmp/cutap-integrity.XXXXXX)
declare -A CMD=([vecadd_static]="$B/vecadd_static" [vecadd_shared]="$B/vecadd_shared" [cublas_gemm]="$B/cublas_gemm"
  [torch_step]="python3 $W/torch_step.py" [torch_conv_graph]="python3 $W/torch_conv_graph.py"
  [jax_step]="python3 $W/jax_step.py" [nccl_allreduce]="$B/nccl_allreduce")
ORDER=${*:-vecadd_static vecadd_shared cublas_gemm torch_step torch_conv_graph jax_step nccl_allreduce}
echo "== $(date -u +%Y-%m-%dT%H:%MZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
for n in $ORDER; do
  timeout 300 ${CMD[$n]} >"$R/$n.bare" 2>/dev/null; brc=$?
  CUTAP_HIDDEN=+CUDART_INTERFACE,+INTEGRITY_CHECK CUTAP_DEBUG=1 timeout 300 $C trace --runtime=all -o "$R/$n.tr" -- ${CMD[$n]} \
    >"$R/$n.out" 2>"$R/$n.err"; rc=$?
  same=no; cmp -s "$R/$n.bare" "$R/$n.out" && [ $rc = $brc ] && same=yes
  $C report -e 'CUDART_INTERFACE*,INTEGRITY_CHECK*' --format csv "$R/$n.tr" 2>/dev/null | awk -F, 'NR > 1 { printf " %s=%s", $2, $3 }' >"$R/$n.slots"
  rt=$($C report -e layer=runtime --format csv "$R/$n.tr" 2>/dev/null | awk -F, 'NR > 1 { s += $3; e += $4 } END { printf "%d calls, %d errors", s, e }')
  echo "$n: rc=$rc/$brc output_same=$same runtime: $rt; slots:$(cat "$R/$n.slots")"
  grep -i 'integrity\|103\|observed only' "$R/$n.err" | sort | uniq -c | head -4
done
rm -rf "$R"
