#!/usr/bin/env bash
# Issues #14 and #25: the cost per runtime call, side by side in one run:
# cudaGetDevice of a static and of a shared cudart (bench/gpu/rtcall.cu),
# bare, under a bare CUPTI callback subscriber (tests/gpu/cupti_ref.c),
# under `cutap trace --runtime=symbols` (symbols only: a static copy's
# calls are not seen), plain `cutap trace` (the default: every copy, by
# its own reports), `cutap trace --runtime=cupti` (through CUPTI, the
# mode issue #14 made), plain `cutap stat`, and "reports, ignored" (the
# copies asked for their reports, which cutap's hooks then ignore:
# CUTAP_RUNTIME=floor, what the runtime's own reporting costs); CYCLES (default 3)
# alternating cycles (RTCALL_MODES picks the modes), each process pinned
# to the cores RTCALL_PIN names (taskset -c; default 0), median ns per
# call. Mode trace2 is plain `cutap trace` of another build, the command
# RTCALL_CUTAP2 names (two versions side by side in one run).
#   bench/gpu/rtcall.sh [CYCLES]
set -u
cd "$(dirname "$0")/../.."
B=build/gpu C=build/cutap
[ -x $B/rtcall_static ] || tests/gpu/build.sh >/dev/null || exit 1
T=$(mktemp -d /tmp/cutap-rtcall.XXXXXX)
cycles=${1:-3}
declare -A V
P="taskset -c ${RTCALL_PIN:-0}"
$P true 2>/dev/null || P=
run() {   # BIN MODE
  case $2 in
    bare) $P $1 ;;
    cupti) CUDA_INJECTION64_PATH=$PWD/$B/libcupti_ref.so CUTAP_REF_DIR=$T/ref $P $1 ;;
    symbols) $P $C trace --runtime=symbols -o "$T/t$RANDOM$RANDOM" -- $1 2>/dev/null ;;
    trace) $P $C trace -o "$T/a$RANDOM$RANDOM" -- $1 2>/dev/null ;;
    trace2) $P "$RTCALL_CUTAP2" trace -o "$T/b$RANDOM$RANDOM" -- $1 2>/dev/null ;;
    tracecupti) $P $C trace --runtime=cupti -o "$T/c$RANDOM$RANDOM" -- $1 2>/dev/null ;;
    stat) $P $C stat -o "$T/s$RANDOM$RANDOM" -- $1 2>/dev/null ;;
    floor) local d=$T/f$RANDOM$RANDOM; mkdir -p $d
           LD_PRELOAD=$PWD/build/libcutap.so CUTAP_COUNT=$d CUTAP_FILTER=layer=runtime CUTAP_RUNTIME=floor $P $1 2>/dev/null ;;
  esac | tail -1
}
MODES=${RTCALL_MODES:-bare floor cupti symbols trace tracecupti stat}
mkdir -p "$T/ref"
for c in $(seq "$cycles"); do
  for b in static shared; do
    for m in $MODES; do V[$b.$m]+=" $(run $B/rtcall_$b $m)"; done
  done
done
med() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
echo "cudaGetDevice, ns per call, pinned to cores ${RTCALL_PIN:-0} (median over $cycles cycles of the best of 7 batches; min..max over the cycles)"
declare -A TITLE=([bare]=bare [cupti]="CUPTI subscriber" [symbols]="trace --runtime=symbols" [trace]="cutap trace" [trace2]="trace, build 2"
  [tracecupti]="trace --runtime=cupti" [stat]="cutap stat" [floor]="reports, ignored")
printf "%-8s" runtime; for m in $MODES; do printf " %24s" "${TITLE[$m]}"; done; echo
for b in static shared; do
  printf "%-8s" $b
  for m in $MODES; do
    v=$(echo ${V[$b.$m]} | med); lo=$(echo ${V[$b.$m]} | tr ' ' '\n' | sort -g | head -1); hi=$(echo ${V[$b.$m]} | tr ' ' '\n' | sort -g | tail -1)
    printf " %8s (%s..%s)" "$v" "$lo" "$hi"
  done
  echo
done
# added over bare, medians; issue #25's goal: a static copy's call under
# plain trace <= 1.5 x a shared cudart's under the symbol wrapper
echo "added over bare (ns, medians)"
declare -A ADD
for b in static shared; do
  printf "%-8s" $b
  bare=$(echo ${V[$b.bare]:-} | med)
  for m in $MODES; do
    ADD[$b.$m]=$(awk -v a="$(echo ${V[$b.$m]} | med)" -v b="$bare" 'BEGIN {printf "%.1f", a - b}')
    printf " %24s" "+${ADD[$b.$m]}"
  done
  echo
done
if [ -n "${ADD[static.trace]:-}" ] && [ -n "${ADD[shared.symbols]:-}" ]; then
  awk -v a="${ADD[static.trace]}" -v b="${ADD[shared.symbols]}" -v f="${ADD[static.floor]:-}" 'BEGIN {
    printf "static copy under cutap trace / shared cudart under the symbol wrapper: %.2f x (goal <= 1.5)", (b > 0 ? a / b : 0)
    if (f != "") printf "; the copy'"'"'s own reporting (cutap ignoring it): +%s ns of its +%s", f, a
    printf "\n" }'
  if [ -n "${ADD[static.trace2]:-}" ]; then
    awk -v a="${ADD[static.trace2]}" -v b="${ADD[shared.symbols]}" -v c="${ADD[shared.trace2]:-}" 'BEGIN {
      printf "build 2: static copy under its trace / shared cudart under the symbol wrapper: %.2f x (its shared cudart: +%s)\n",
             (b > 0 ? a / b : 0), c }'
  fi
fi
rm -rf "$T"
