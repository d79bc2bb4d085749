#!/usr/bin/env bash
# Where `cutap trace`'s time goes in the CPU-bound PyTorch step (issue #27:
# about 160 ns a call there against about 55 in bench/gpu/overhead's loop).
#   tests/gpu/step_profile.sh [STEPS]
# The step (bench/gpu/torch_steps.py STEPS, default 300) pinned to core 4,
# bare and under cutap trace, each under `perf record` where the host has
# perf and lets it sample: the share of each object (libcutap_core.so,
# libcuda, libtorch, python, the kernel) and the top symbols of cutap and
# of the kernel; then the traced run's calls per name (cutap report).
# Without perf: only the steps/s of both and the report.
set -u
cd "$(dirname "$0")/../.."
tests/gpu/build.sh >/dev/null || exit 1
steps=${1:-300}
T=$(mktemp -d /tmp/cutap-stepprof.XXXXXX)
trap 'rm -rf "$T"' EXIT
PERF=$(command -v perf 2>/dev/null || ls /usr/lib/linux-tools*/perf /usr/bin/perf* 2>/dev/null | head -1)
echo "== $(date -u +%Y-%m-%dT%H:%MZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1), perf: ${PERF:-none}"
if [ -n "$PERF" ] && ! "$PERF" record -o "$T/probe.data" -- true >/dev/null 2>&1; then
  echo "perf cannot sample here ($(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null))"; PERF=
fi
for m in bare trace; do
  cmd=(python3 bench/gpu/torch_steps.py "$steps")
  [ $m = trace ] && cmd=(build/cutap trace -o "$T/tr" -- "${cmd[@]}")
  if [ -n "$PERF" ]; then
    taskset -c 4 "$PERF" record -F 4999 -g -o "$T/$m.data" -- "${cmd[@]}" 2>/dev/null | grep steps_per_s | sed "s/^/$m /"
    echo "-- $m: share by object"
    "$PERF" report -i "$T/$m.data" --no-children --sort dso --stdio 2>/dev/null | grep -E '^ +[0-9]' | head -12
    echo "-- $m: top symbols (cutap, libcuda, kernel)"
    "$PERF" report -i "$T/$m.data" --no-children --sort dso,sym --stdio 2>/dev/null | grep -E '^ +[0-9]' |
      grep -E 'cutap|libcuda|\[k\]' | head -30
  else
    taskset -c 4 "${cmd[@]}" 2>/dev/null | grep steps_per_s | sed "s/^/$m /"
  fi
done
build/cutap report "$T/tr" 2>/dev/null | head -25
