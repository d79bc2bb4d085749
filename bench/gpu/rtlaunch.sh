#!/usr/bin/env bash
# Issue #31: a runtime kernel launch's CPU cost on the launching thread
# (bench/gpu/rtlaunch.cu), bare and under each way of collecting GPU
# activity, CYCLES (default 5) alternating cycles, each process pinned to
# the cores RTLAUNCH_PIN names (default 4-7); medians of the processes'
# best batches, and the ns each mode adds to bare:
#   bare     no tool
#   tgpu     cutap trace --gpu (joined through CUPTI's callbacks of the
#            enqueuing functions, driver and runtime)
#   tgpunr   the same with the runtime's callbacks left out
#            (CUTAP_GPU_DIAG=nort: each runtime call joined through its
#            driver call's callback)
#   tgpunn   cutap trace --gpu joining nothing (CUTAP_GPU_DIAG="nopush
#            noapi": CUPTI's activity under cutap, no callbacks)
#   gpuref   the bare CUPTI activity client (tests/gpu/gpu_ref.c)
#   trace    cutap trace (no GPU activity)
#   bench/gpu/rtlaunch.sh [CYCLES]
set -u
cd "$(dirname "$0")/../.."
B=build/gpu C=build/cutap
[ -x $B/rtlaunch ] && [ -f $B/libgpu_ref.so ] || tests/gpu/build.sh >/dev/null || exit 1
T=$(mktemp -d /tmp/cutap-rtlaunch.XXXXXX)
trap 'rm -rf "$T"' EXIT
cycles=${1:-5}
modes=${RTLAUNCH_MODES:-bare tgpu tgpunr gpuref trace}
P="taskset -c ${RTLAUNCH_PIN:-4-7}"
$P true 2>/dev/null || P=
declare -A CPU WALL
failed=0
for c in $(seq "$cycles"); do
  for m in $modes; do
    case $m in
      bare) out=$($P $B/rtlaunch) ;;
      tgpu) out=$($P $C trace --gpu -o "$T/t$c$m" -- $B/rtlaunch 2>/dev/null) ;;
      tgpunr) out=$(CUTAP_GPU_DIAG=nort $P $C trace --gpu -o "$T/t$c$m" -- $B/rtlaunch 2>/dev/null) ;;
      tgpunn) out=$(CUTAP_GPU_DIAG="nopush noapi" $P $C trace --gpu -o "$T/t$c$m" -- $B/rtlaunch 2>/dev/null) ;;
      gpuref) mkdir -p "$T/r$c"; out=$(CUDA_INJECTION64_PATH=$PWD/$B/libgpu_ref.so GPU_REF_DIR=$T/r$c $P $B/rtlaunch) ;;
      trace) out=$($P $C trace -o "$T/t$c$m" -- $B/rtlaunch 2>/dev/null) ;;
      *) echo "unknown mode $m"; exit 2 ;;
    esac
    rc=$?
    read -r tag cpu wall <<<"$(echo "$out" | grep '^rtlaunch')"
    # a run that failed (cutap's status too) is left out, and said
    [ $rc = 0 ] && [ "$tag" = rtlaunch ] || { echo "$m: failed (status $rc): $out"; failed=1; continue; }
    CPU[$m]="${CPU[$m]:-} $cpu"; WALL[$m]="${WALL[$m]:-} $wall"
  done
done
med() { echo "$@" | tr ' ' '\n' | grep . | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
rng() { echo "$@" | tr ' ' '\n' | grep . | sort -g | awk 'NR == 1 {a = $1} {b = $1} END {printf "%s..%s", a, b}'; }
bc=$(med ${CPU[bare]:-}) bw=$(med ${WALL[bare]:-})
[ -n "${CPU[bare]:-}" ] || bc=nan bw=nan   # no bare run: nothing is "added" (awk prints nan)
printf '%-8s %12s %10s %18s %12s %10s\n' mode "thread CPU" added "(min..max)" wall added
for m in $modes; do
  [ -n "${CPU[$m]:-}" ] || continue
  c=$(med ${CPU[$m]}) w=$(med ${WALL[$m]})
  awk -v m=$m -v c="$c" -v bc="$bc" -v r="($(rng ${CPU[$m]}))" -v w="$w" -v bw="$bw" \
    'BEGIN {printf "%-8s %9.1f ns %+8.1f %18s %9.1f ns %+8.1f\n", m, c, c - bc, r, w, w - bw}' 
done
[ $failed = 0 ] || { echo "SOME RUNS FAILED: left out above"; exit 1; }
