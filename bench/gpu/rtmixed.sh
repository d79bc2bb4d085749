#!/usr/bin/env bash
# Issue #25's ratio measured inside one process: bench/gpu/rtcall.cu's
# "mixed" run alternates batches of cudaGetDevice of the program's own
# static runtime copy (recorded from its reports) and of the shared
# libcudart (recorded by cutap's symbol wrapper), so both pay for the same
# trace file, helper thread and interference; separate processes on the
# device hosts differ by up to 1.5x in the same mode (docs/BENCHMARKS.md).
# CYCLES (default 7) alternating cycles of the modes (RTMIXED_MODES,
# default "bare trace"; trace2: plain `cutap trace` of the build whose
# command RTCALL_CUTAP2 names), each process pinned to RTCALL_PIN (taskset
# -c; default 0). Prints per mode the medians (and min..max over the
# cycles) of the best batch of each runtime, then each cycle's ratio
# (static added) / (shared added) over that cycle's bare run: median and
# min..max. RTMIXED_NOASLR=1 runs every process without address-space
# randomisation (setarch -R): whether the spread between processes comes
# from where things land in memory.   bench/gpu/rtmixed.sh [CYCLES]
set -u
cd "$(dirname "$0")/../.."
B=build/gpu C=build/cutap
[ -x $B/rtcall_static ] || tests/gpu/build.sh >/dev/null || exit 1
T=$(mktemp -d /tmp/cutap-rtmixed.XXXXXX)
trap 'rm -rf "$T"' EXIT
cycles=${1:-7}
P="taskset -c ${RTCALL_PIN:-0}"
$P true 2>/dev/null || P=
[ -n "${RTMIXED_NOASLR:-}" ] && P="setarch $(uname -m) -R $P"
MODES=${RTMIXED_MODES:-bare trace}
run() {   # MODE -> "STATIC SHARED"
  case $1 in
    bare) $P $B/rtcall_static 200000 mixed ;;
    trace) $P $C trace -o "$T/a$RANDOM$RANDOM" -- $B/rtcall_static 200000 mixed 2>/dev/null ;;
    trace2) $P "$RTCALL_CUTAP2" trace -o "$T/b$RANDOM$RANDOM" -- $B/rtcall_static 200000 mixed 2>/dev/null ;;
    stat) $P $C stat -o "$T/s$RANDOM$RANDOM" -- $B/rtcall_static 200000 mixed 2>/dev/null ;;
  esac | tail -1
  rm -rf "$T"/[abs]*
}
declare -A S D
for c in $(seq "$cycles"); do
  for m in $MODES; do
    read -r s d <<<"$(run $m)"
    case $s in NOGPU|NOSHARED|'') echo "rtcall_static mixed ($m): ${s:-no output}"; exit 1 ;; esac
    S[$m]+=" $s" D[$m]+=" $d"
  done
done
med() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
span() { tr ' ' '\n' | grep -v '^$' | sort -g | awk 'NR == 1 {lo=$1} {hi=$1} END {printf "%s..%s", lo, hi}'; }
echo "cudaGetDevice in one process, static copy and shared libcudart alternating, pinned to cores ${RTCALL_PIN:-0}${RTMIXED_NOASLR:+, no ASLR}"
echo "(ns per call: median over $cycles cycles of each process's best of 7 batches; min..max over the cycles)"
printf "%-16s %26s %26s\n" mode "static copy" "shared libcudart"
for m in $MODES; do
  printf "%-16s %12s (%s) %12s (%s)\n" "$m" "$(echo ${S[$m]} | med)" "$(echo ${S[$m]} | span)" "$(echo ${D[$m]} | med)" "$(echo ${D[$m]} | span)"
done
read -ra SB <<<"${S[bare]:-}"; read -ra DB <<<"${D[bare]:-}"
for m in $MODES; do
  [ "$m" = bare ] && continue
  [ ${#SB[@]} -gt 0 ] || break
  read -ra SM <<<"${S[$m]}"; read -ra DM <<<"${D[$m]}"
  r="" as="" ad=""
  for i in "${!SM[@]}"; do
    r+=" $(awk -v a="${SM[$i]}" -v b="${SB[$i]}" -v c="${DM[$i]}" -v d="${DB[$i]}" 'BEGIN {printf "%.3f", (c - d > 0 ? (a - b) / (c - d) : 0)}')"
    as+=" $(awk -v a="${SM[$i]}" -v b="${SB[$i]}" 'BEGIN {printf "%.1f", a - b}')"
    ad+=" $(awk -v a="${DM[$i]}" -v b="${DB[$i]}" 'BEGIN {printf "%.1f", a - b}')"
  done
  echo "$m: added over the same cycle's bare: static copy +$(echo $as | med) ns ($(echo $as | span)), shared libcudart +$(echo $ad | med) ns ($(echo $ad | span));" \
       "ratio $(echo $r | med) ($(echo $r | span)) (issue #25's goal: <= 1.5)"
  echo "  each cycle's ratio:$r"
done
