#!/usr/bin/env bash
# Issue #30 on the GPU machine: `cutap trace --print` over real workloads.
# Per workload: stdout and exit status with --print=FILE equal to the bare
# run's; the printed lines, per thread and in order, the same calls as
# `cutap dump`'s of the same trace (tests/lib/same_lines.py: times left
# out, durations to the digit printed, dump's NVTX range lines left out,
# started/resumed joined, kernel names --print could not know yet); with
# --print alone (stderr), at least as many call lines on stderr as the
# trace holds calls. Then (ROUNDS=0: not) the cost on the CPU-bound PyTorch
# step's whole process: bare, trace, trace --print=/dev/null, trace
# --print=FILE, ROUNDS alternating rounds (default 3), wall seconds.
#   tests/gpu/print.sh [WORKLOAD...]
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD B=$ROOT/build/gpu W=$ROOT/tests/gpu/workloads C=$ROOT/build/cutap
R=$(mktemp -d /tmp/cutap-print.XXXXXX)
export PATH=/usr/local/cuda/bin:$PATH
tests/gpu/build.sh >/dev/null || exit 1
declare -A CMD=([vecadd_static]="$B/vecadd_static" [vecadd_shared]="$B/vecadd_shared" [cublas_gemm]="$B/cublas_gemm"
  [torch_step]="python3 $W/torch_step.py" [torch_graph]="python3 $W/torch_graph.py"
  [torch_dataloader]="python3 $W/torch_dataloader.py" [nccl_allreduce]="$B/nccl_allreduce"
  [jax_step]="python3 $W/jax_step.py" [cupy_step]="python3 $W/cupy_step.py")
ORDER=${*:-"vecadd_static vecadd_shared cublas_gemm torch_step torch_graph torch_dataloader nccl_allreduce jax_step cupy_step"}
fail=0
printf '%-17s %9s %9s %8s %7s %10s\n' workload lines dump same-out per-thread stderr-too
for n in $ORDER; do
  ${CMD[$n]} >"$R/$n.bare" 2>/dev/null; brc=$?
  "$C" trace --print="$R/$n.print" -o "$R/$n.t" -- ${CMD[$n]} >"$R/$n.out" 2>"$R/$n.err"; rc=$?
  "$C" dump "$R/$n.t" >"$R/$n.dump" 2>/dev/null
  so=no; { [ $rc = $brc ] && cmp -s "$R/$n.bare" "$R/$n.out"; } && so=yes
  pt=no; python3 tests/lib/same_lines.py "$R/$n.print" "$R/$n.dump" >"$R/$n.diff" && pt=yes
  # --print alone: on stderr, beside the program's own stderr
  "$C" trace --print -o "$R/$n.t2" -- ${CMD[$n]} >/dev/null 2>"$R/$n.err2"
  "$C" dump "$R/$n.t2" >"$R/$n.dump2" 2>/dev/null
  st=no; [ "$(grep -c '^[0-9]*\.[0-9]* \[' "$R/$n.err2")" -ge "$(grep -vcE '^[0-9.]+ \[[^]]*\] *(range|mark) ' "$R/$n.dump2")" ] && st=yes
  printf '%-17s %9s %9s %8s %7s %10s\n' "$n" "$(wc -l <"$R/$n.print")" "$(wc -l <"$R/$n.dump")" $so $pt $st
  [ $so = yes ] && [ $pt = yes ] && [ $st = yes ] || { fail=1; head -5 "$R/$n.diff"; }
done
# cost on the CPU-bound step
ROUNDS=${ROUNDS:-3}
echo "torch_step (CPU-bound), $ROUNDS rounds alternating: wall s"
for i in $(seq "$ROUNDS"); do
  for m in bare trace print-null print-file; do
    rm -rf "$R/c.t" "$R/c.p"
    case $m in
      bare) pre=() ;; trace) pre=("$C" trace -o "$R/c.t" --) ;;
      print-null) pre=("$C" trace --print=/dev/null -o "$R/c.t" --) ;;
      print-file) pre=("$C" trace --print="$R/c.p" -o "$R/c.t" --) ;;
    esac
    s=$(date +%s%N); "${pre[@]}" python3 "$W/torch_step.py" >/dev/null 2>&1; e=$(date +%s%N)
    echo "$m $(( (e - s) / 1000000 ))" >>"$R/cost"
  done
done
[ -f "$R/cost" ] && for m in bare trace print-null print-file; do
  echo "  $m: $(awk -v m=$m '$1 == m {printf "%s ", $2 / 1000}' "$R/cost")"
done
"$C" report --by layer --top 3 "$R/torch_step.t" 2>/dev/null | head -30
[ $fail = 0 ] && echo "print: PASSED" || echo "print: FAILED"
exit $fail
