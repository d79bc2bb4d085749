#!/usr/bin/env bash
# Issue #14's cost per runtime call, side by side in one run: cudaGetDevice
# of a static and of a shared cudart (bench/gpu/rtcall.cu), bare, under a
# bare CUPTI callback subscriber (tests/gpu/cupti_ref.c), under `cutap
# trace` (symbols only: a static copy's calls are not seen) and under
# `cutap trace --runtime=all` (also without the export-table hook calls
# it records, -e '!layer=hidden', and under cutap stat); CYCLES (default 3)
# alternating cycles (RTCALL_MODES picks the modes),
# median ns per call.   bench/gpu/rtcall.sh [CYCLES]
set -u
cd "$(dirname "$0")/../.."
B=build/gpu C=build/cutap
[ -x $B/rtcall_static ] || tests/gpu/build.sh >/dev/null || exit 1
T=$(mktemp -d /tmp/cutap-rtcall.XXXXXX)
cycles=${1:-3}
declare -A V
run() {   # BIN MODE
  case $2 in
    bare) $1 ;;
    cupti) CUDA_INJECTION64_PATH=$PWD/$B/libcupti_ref.so CUTAP_REF_DIR=$T/ref $1 ;;
    trace) $C trace -o "$T/t$RANDOM$RANDOM" -- $1 2>/dev/null ;;
    all) $C trace --runtime=all -o "$T/a$RANDOM$RANDOM" -- $1 2>/dev/null ;;
    allnohidden) $C trace --runtime=all -e '!layer=hidden' -o "$T/h$RANDOM$RANDOM" -- $1 2>/dev/null ;;
    allstat) $C stat --runtime=all -o "$T/s$RANDOM$RANDOM" -- $1 2>/dev/null ;;
  esac | tail -1
}
MODES=${RTCALL_MODES:-bare cupti trace all allnohidden allstat}
mkdir -p "$T/ref"
for c in $(seq "$cycles"); do
  for b in static shared; do
    for m in $MODES; do V[$b.$m]+=" $(run $B/rtcall_$b $m)"; done
  done
done
med() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
echo "cudaGetDevice, ns per call (median of $cycles cycles x 7 rounds; min..max of the cycles' medians)"
declare -A TITLE=([bare]=bare [cupti]="CUPTI subscriber" [trace]="cutap trace" [all]="trace --runtime=all"
  [allnohidden]="... -e '!layer=hidden'" [allstat]="stat --runtime=all")
printf "%-8s" runtime; for m in $MODES; do printf " %24s" "${TITLE[$m]}"; done; echo
for b in static shared; do
  printf "%-8s" $b
  for m in $MODES; do
    v=$(echo ${V[$b.$m]} | med); lo=$(echo ${V[$b.$m]} | tr ' ' '\n' | sort -g | head -1); hi=$(echo ${V[$b.$m]} | tr ' ' '\n' | sort -g | tail -1)
    printf " %8s (%s..%s)" "$v" "$lo" "$hi"
  done
  echo
done
rm -rf "$T"
