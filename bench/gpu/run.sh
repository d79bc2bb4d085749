#!/usr/bin/env bash
# Overhead on a real GPU, side by side in one run (device machine only):
#   bench/gpu/run.sh [CYCLES]
# 1. build/gpu/overhead: ns per cuCtxGetCurrent and per empty kernel launch,
#    bare / libcutap.so with no client / cutap stat / cutap trace / CUPTI.
# 2. PyTorch training steps per second (bench/gpu/torch_steps.py), bare,
#    under `cutap trace` and under `cutap stat`, in turn, CYCLES times
#    (default 6), each process pinned to the same 8 cores; the median over
#    cycles of each process's fastest window, and the change against bare;
#    then the same, bare and under `cutap trace`, for a GPU-bound MLP
#    (width 2048, batch 1024).
set -u
cd "$(dirname "$0")/../.."
B=build/gpu
CYC=${1:-6}
[ -x $B/overhead ] && [ -f $B/libcupti_ref.so ] && [ -x build/cutap ] || tests/gpu/build.sh || exit 1
echo "== $(date -u +%Y-%m-%dT%H:%MZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"
LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
  CUTAP_LIBRARY=$PWD/build/libcutap.so CUTAP_REF_LIB=$PWD/$B/libcupti_ref.so $B/overhead "$CYC" || BAD=1
echo
T=$(mktemp -d /tmp/cutap-bench.XXXXXX)
declare -A V
PIN="taskset -c 4-11"
$PIN true 2>/dev/null || PIN=
for c in $(seq "$CYC"); do
  V[bare]+=" $($PIN python3 bench/gpu/torch_steps.py | awk '{print $2}')"
  V[trace]+=" $($PIN build/cutap trace -o "$T/t$c" -- python3 bench/gpu/torch_steps.py | awk '{print $2}')"
  V[stat]+=" $($PIN build/cutap stat -o "$T/s$c.txt" -- python3 bench/gpu/torch_steps.py | awk '{print $2}')"
done
calls=$(build/cutap report --format csv "$T/t1" | awk -F, 'NR>1 {s+=$3} END {print s}')
med() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
for m in bare trace stat; do [ "$(echo ${V[$m]} | wc -w)" = "$CYC" ] || { echo "torch_steps: $m failed in some cycles"; BAD=1; }; done
b=$(echo ${V[bare]} | med)
echo "PyTorch MLP steps/s (median of $CYC processes' fastest windows; all: bare${V[bare]} | trace${V[trace]} | stat${V[stat]})"
for m in bare trace stat; do
  v=$(echo ${V[$m]} | med)
  awk -v m=$m -v v="$v" -v b="$b" 'BEGIN {printf "  %-6s %9.1f steps/s  %+6.2f %%\n", m, v, (v - b) / b * 100}'
done
echo "  calls recorded in one traced run (2,200 steps + start-up): $calls; the most frequent:"
build/cutap report --format csv "$T/t1" | awk -F, 'NR>1 {print $3, $1, $2, $6}' | sort -rn | head -8 |
  awk '{printf "    %8d %-7s %-34s avg %s ns\n", $1, $2, $3, $4}'
V=()
for c in $(seq "$CYC"); do
  V[bare]+=" $($PIN python3 bench/gpu/torch_steps.py 60 2048 1024 | awk '{print $2}')"
  V[trace]+=" $($PIN build/cutap trace -o "$T/g$c" -- python3 bench/gpu/torch_steps.py 60 2048 1024 | awk '{print $2}')"
done
b=$(echo ${V[bare]} | med)
echo "GPU-bound MLP (width 2048, batch 1024) steps/s (all: bare${V[bare]} | trace${V[trace]})"
for m in bare trace; do
  v=$(echo ${V[$m]} | med)
  awk -v m=$m -v v="$v" -v b="$b" 'BEGIN {printf "  %-6s %9.1f steps/s  %+6.2f %%\n", m, v, (v - b) / b * 100}'
done
rm -rf "$T"
[ -z "${BAD:-}" ] || { echo "bench/gpu: FAILED (see above)"; exit 1; }
