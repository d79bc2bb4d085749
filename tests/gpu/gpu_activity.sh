#!/usr/bin/env bash
# GPU activity (issue #31) on the device machine: tests/gpu/gpu_activity.sh
# 1. workloads/gpu_activity.cu (static and shared cudart) under
#    `cutap trace --gpu`: every kernel, copy and memset of known counts,
#    each joined to its launching call (gpu_check.py --expect, an
#    independent reading of the files); its output as bare.
# 2. PyTorch workloads under --gpu: counts and joins (gpu_check.py), and
#    cutap report --gpu where the command has it.
# 3. Cost: the same program with many rounds, bare / trace / trace --gpu,
#    alternating, wall time medians.
set -u
cd "$(dirname "$0")/../.."
B=build/gpu W=tests/gpu/workloads
export PATH=/usr/local/cuda/bin:$PATH
[ -x build/cutap ] || tests/gpu/build.sh >/dev/null || exit 1
nvcc -O2 -arch=sm_90 $W/gpu_activity.cu -o $B/gpu_activity_static -lcuda || exit 1
nvcc -O2 -arch=sm_90 -cudart shared $W/gpu_activity.cu -o $B/gpu_activity_shared -lcuda || exit 1
T=$(mktemp -d /tmp/cutap-gpu.XXXXXX)
BAD=0
N=50
for v in static shared; do
  echo "== gpu_activity ($v cudart), $N rounds"
  bare=$($B/gpu_activity_$v $N)
  got=$(build/cutap trace --gpu -o $T/ga_$v -- $B/gpu_activity_$v $N 2>$T/ga_$v.err)
  [ "$got" = "$bare" ] || { echo "  OUTPUT CHANGED: $got"; BAD=1; }
  tail -3 $T/ga_$v.err | sed 's/^/  | /'
  python3 tests/gpu/gpu_check.py $T/ga_$v --expect "scale=$((3 * N)) add_one=$((2 * N)) memcpy=$((3 * N)) memset=$((2 * N))" || BAD=1
  build/cutap report --gpu $T/ga_$v 2>&1 | head -30
done
for w in ${GPU_WORKLOADS:-torch_step torch_graph}; do
  echo "== $w"
  timeout 300 build/cutap trace --gpu -o $T/$w -- python3 $W/$w.py >$T/$w.out 2>$T/$w.err || { echo "  failed"; tail -5 $T/$w.err; BAD=1; }
  python3 tests/gpu/gpu_check.py $T/$w | head -40
done
echo "== cost: gpu_activity 2000 rounds, wall s (median of 5 alternating)"
declare -A V
for i in 1 2 3 4 5; do
  for m in bare trace gpu; do
    s=$(date +%s.%N)
    case $m in
      bare) $B/gpu_activity_static 2000 >/dev/null ;;
      trace) build/cutap trace -o $T/c_$m$i -- $B/gpu_activity_static 2000 >/dev/null 2>&1 ;;
      gpu) build/cutap trace --gpu -o $T/c_$m$i -- $B/gpu_activity_static 2000 >/dev/null 2>&1 ;;
    esac
    V[$m]+=" $(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN {printf "%.3f", b - a}')"
  done
done
for m in bare trace gpu; do echo "  $m: $(echo ${V[$m]} | tr ' ' '\n' | sort -g | sed -n 3p) (${V[$m]})"; done
rm -rf "$T"
exit $BAD
