#!/usr/bin/env bash
# Issue #31: where the CPU of an empty launch goes under cutap. Runs
# tests/gpu/launch_probe.c (rounds of 20,000 cuLaunchKernel of an empty
# kernel, synchronised every 100; the launching thread's CPU a launch)
# pinned to core 4 in each mode, in turn, CYCLES times: bare, trace, trace
# with no page helper (CUTAP_PREFAULT=0), trace --gpu. Then, once per
# mode, under perf record (where the host lets it sample; a perf carried
# as build/perf.tar.xz otherwise) the share of each object and the top
# symbols, and for trace the calls cutap recorded per launch (cutap
# report): what a launch makes besides cuLaunchKernel. With
# LPROBE_OLD=DIR (a libcutap.so and its libcutap_core.so of another build,
# carried), the modes trace_old and tgpu_old run that build beside this one.
#   tests/gpu/launch_probe.sh [CYCLES] [ROUNDS]
set -u
cd "$(dirname "$0")/../.."
tests/gpu/build.sh >/dev/null || exit 1
B=build/gpu
gcc -O2 -Iinclude -Isrc/common -Isrc/front -o $B/launch_probe tests/gpu/launch_probe.c -ldl || exit 1
cycles=${1:-3}
rounds=${2:-10}
T=$(mktemp -d /tmp/cutap-lprobe.XXXXXX)
trap 'rm -rf "$T"' EXIT
PERF=$(command -v perf 2>/dev/null)
[ -z "$PERF" ] && [ ! -x build/perf/perf ] && [ -f build/perf.tar.xz ] && tar xJf build/perf.tar.xz -C build
if [ -z "$PERF" ] && [ -x build/perf/perf ]; then
  printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$PWD/build/perf" "$PWD/build/perf/perf" >"$T/perf"
  chmod +x "$T/perf"; PERF=$T/perf
fi
[ -n "$PERF" ] && ! "$PERF" record -o "$T/probe.data" -- true >/dev/null 2>&1 && PERF=
echo "== $(date -u +%Y-%m-%dT%H:%MZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), perf: ${PERF:+yes}"
run() {   # MODE [WRAPPER...]: the probe in that mode
  local m=$1; shift
  local env=()
  case $m in
    trace) env=(CUTAP_TRACE="$T/tr.$m" LD_PRELOAD="$PWD/build/libcutap.so") ;;
    trace_nohelper) env=(CUTAP_TRACE="$T/tr.$m" CUTAP_PREFAULT=0 LD_PRELOAD="$PWD/build/libcutap.so") ;;
    tgpu) env=(CUTAP_TRACE="$T/tr.$m" CUTAP_GPU=1 LD_PRELOAD="$PWD/build/libcutap.so") ;;
    trace_old) env=(CUTAP_TRACE="$T/tr.$m" LD_PRELOAD="$LPROBE_OLD/libcutap.so") ;;
    tgpu_old) env=(CUTAP_TRACE="$T/tr.$m" CUTAP_GPU=1 LD_PRELOAD="$LPROBE_OLD/libcutap.so") ;;
  esac
  rm -rf "$T/tr.$m"
  "$@" env "${env[@]}" taskset -c 4 $B/launch_probe "$rounds"
}
modes="bare trace trace_nohelper tgpu"
[ -n "${LPROBE_OLD:-}" ] && LPROBE_OLD=$(cd "$LPROBE_OLD" && pwd) && modes="bare trace trace_old tgpu tgpu_old"
for c in $(seq "$cycles"); do
  for m in $modes; do
    run $m | awk -v m=$m '{print m, $4, $6}' >>"$T/all"
  done
done
echo "mode: launching thread's CPU a launch, median of $cycles x $rounds rounds (min..max); wall a launch"
for m in $modes; do
  awk -v m=$m '$1 == m {print $2, $3}' "$T/all" | sort -n | awk -v m=$m '{c[NR] = $1; w[NR] = $2} END {
    printf "  %-15s %8.1f ns (%.1f..%.1f)   wall %.1f ns\n", m, c[int((NR + 1) / 2)], c[1], c[NR], w[int((NR + 1) / 2)] }'
done
rm -rf "$T/tr.trace"
run trace >/dev/null
echo "== the calls one traced probe recorded ($((rounds * 20000)) launches)"
build/cutap report "$T/tr.trace" 2>&1 | head -30
if [ -n "$PERF" ]; then
  for m in bare trace tgpu; do
    echo "== perf: $m (objects, then the top symbols)"
    run $m "$PERF" record -F 20000 -o "$T/p.$m" -- >/dev/null 2>"$T/perf.err" || { tail -3 "$T/perf.err"; continue; }
    "$PERF" report -i "$T/p.$m" --sort dso --stdio 2>/dev/null | grep -v '^#' | grep -v '^$' | head -8
    "$PERF" report -i "$T/p.$m" --sort dso,sym --stdio 2>/dev/null | grep -v '^#' | grep -v '^$' | head -25
  done
fi
