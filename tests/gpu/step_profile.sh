#!/usr/bin/env bash
# Where `cutap trace`'s time goes in the CPU-bound PyTorch step (issue #27:
# about 160 ns a call there against about 55 in bench/gpu/overhead's loop).
#   tests/gpu/step_profile.sh [STEPS]
# The step (bench/gpu/torch_steps.py STEPS, default 300) pinned to core 4,
# bare and under cutap trace, each under `perf record` where the host has
# perf and lets it sample: the share of each object (libcutap_core.so,
# libcuda, libtorch, python, the kernel) and the top symbols of cutap and
# of the kernel; then the traced run's calls per name (cutap report).
# STEP_STAT=1: perf stat instead (on-CPU time, context switches and page
# faults against the wall time of each run).
# Without perf: only the steps/s of both and the report.
set -u
cd "$(dirname "$0")/../.."
tests/gpu/build.sh >/dev/null || exit 1
steps=${1:-300}
modes=${STEP_MODES:-bare trace}   # also: pass (libcutap.so, no client), stat
T=$(mktemp -d /tmp/cutap-stepprof.XXXXXX)
trap 'rm -rf "$T"' EXIT
PERF=$(command -v perf 2>/dev/null || ls /usr/lib/linux-tools*/perf /usr/bin/perf* 2>/dev/null | head -1)
# a perf carried from the development machine (build/perf.tar.xz of
# build/perf: the binary and the libraries it needs but the C library's),
# where the host has none
[ -z "$PERF" ] && [ ! -x build/perf/perf ] && [ -f build/perf.tar.xz ] && tar xJf build/perf.tar.xz -C build
if [ -z "$PERF" ] && [ -x build/perf/perf ]; then
  printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$PWD/build/perf" "$PWD/build/perf/perf" >"$T/perf"
  chmod +x "$T/perf"; PERF=$T/perf
fi
echo "== $(date -u +%Y-%m-%dT%H:%MZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1), perf: ${PERF:-none}"
if [ -n "$PERF" ] && ! "$PERF" record -o "$T/probe.data" -- true >/dev/null 2>&1; then
  echo "perf cannot sample here ($(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null))"; PERF=
fi
k=0
for m in $modes; do
  k=$((k + 1))
  cmd=(python3 bench/gpu/torch_steps.py "$steps")
  case $m in
    trace) rm -rf "$T/tr"; cmd=(build/cutap trace -o "$T/tr" -- "${cmd[@]}") ;;
    stat) cmd=(build/cutap stat -o "$T/st$k.txt" -- "${cmd[@]}") ;;
    pass) cmd=(env LD_PRELOAD=$PWD/build/libcutap.so "${cmd[@]}") ;;
  esac
  if [ -n "$PERF" ] && [ -n "${STEP_STAT:-}" ]; then
    # on-CPU time against wall time: time lost off the CPU shows here
    # (the hardware counters where the host has them: instructions against
    # cycles tells work added from stalls added)
    taskset -c 4 "$PERF" stat -e task-clock,context-switches,page-faults,cycles,instructions,cache-misses,L1-dcache-load-misses,L1-icache-load-misses,dTLB-load-misses,iTLB-load-misses \
      -o "$T/$m.stat" -- "${cmd[@]}" 2>/dev/null | grep steps_per_s | sed "s/^/$m /"
    grep -E "task-clock|context-switches|page-faults|cycles|instructions|misses|elapsed" "$T/$m.stat" |
      sed "s/^ */  $m /"
  elif [ -n "$PERF" ]; then
    taskset -c 4 "$PERF" record -F 2999 -o "$T/$m.data" -- "${cmd[@]}" 2>/dev/null | grep steps_per_s | sed "s/^/$m /"
    echo "-- $m: samples by object (the whole process: start-up, warm-up and the timed windows)"
    "$PERF" report -i "$T/$m.data" -n --no-children --sort dso --stdio 2>/dev/null | grep -E '^ +[0-9]' | head -14
    echo "-- $m: top symbols"
    "$PERF" report -i "$T/$m.data" -n --no-children --sort dso,sym --stdio 2>/dev/null | grep -E '^ +[0-9]' |
      head -${STEP_SYMS:-25}
  else
    taskset -c 4 "${cmd[@]}" 2>/dev/null | grep steps_per_s | sed "s/^/$m /"
  fi
done
build/cutap report "$T/tr" 2>/dev/null | head -25
