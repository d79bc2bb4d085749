#!/bin/sh
# Instructions added per call, counted by valgrind (callgrind), side by side
# in one run: bench/passthrough's child makes N and then 2N calls of
# cuCtxGetCurrent in each mode; the difference divided by N is the cost of
# one call, start-up excluded. Deterministic, unlike time, and available
# where perf counters are not.   usage: bench/instructions.sh [N]
# Under valgrind a call runs some 50 times slower, so counting mode would
# find cuCtxGetCurrent slow (>= 1 us) and time every call: the stat row is
# run with the slow mean out of reach (CUTAP_STAT_SLOW_NS), as a cheap call
# is on real hardware; "stat --time-all" times every call.
# Then the same for a static runtime copy's cudaGetDevice (bench/rtreport:
# reported through the driver's hooks as a real copy reports, issue #25):
# bare (not asked for reports), reports asked for and ignored
# (CUTAP_RUNTIME=floor), stat and trace.
set -eu
cd "$(dirname "$0")/.."
N=${1:-70000}
command -v valgrind >/dev/null || { echo "bench/instructions.sh: valgrind not installed"; exit 77; }
B=$PWD/build
W=$(mktemp -d /tmp/cutap-instr.XXXXXX)
trap 'rm -rf "$W"' EXIT
count() {  # mode calls [rt] -> instructions of the whole run (rt: bench/rtreport, else bench/passthrough)
    rm -rf "$W/t"; mkdir -p "$W/t"
    local pre="" env=""
    case $1 in
        bare) ;;
        pass) pre=$B/libcutap.so ;;
        stat) pre=$B/libcutap.so env="CUTAP_COUNT=$W/t CUTAP_STAT_SLOW_NS=1000000000" ;;
        statall) pre=$B/libcutap.so env="CUTAP_COUNT=$W/t CUTAP_STAT_TIMING=all" ;;
        trace) pre=$B/libcutap.so env="CUTAP_TRACE=$W/t" ;;
        floor) pre=$B/libcutap.so env="CUTAP_COUNT=$W/t CUTAP_FILTER=layer=runtime CUTAP_RUNTIME=floor" ;;
    esac
    set -- "$2" "${3:-}"
    if [ -n "$2" ]; then set -- "$B/bench/rtreport" "$1"; else set -- "$B/bench/passthrough" --child $(( $1 / 7 )); fi
    # shellcheck disable=SC2086
    env LD_LIBRARY_PATH="$B/fake" ${pre:+LD_PRELOAD="$pre"} $env valgrind --tool=callgrind --callgrind-out-file="$W/cg" "$@" \
        2>&1 >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
per_call() {   # MODE N [rt] -> instructions one call adds to the run (nearest: 114.998 is 115)
    a=$(count "$1" "$2" ${3:-}); b=$(count "$1" $((2 * $2)) ${3:-}); echo $(( (b - a + $2 / 2) / $2 ))
}
row() { printf '%-34s %8d %8s\n' "$1" "$2" "$3"; }   # LABEL INSTR ADDED
bare=$(per_call bare "$N"); pass=$(per_call pass "$N"); stat=$(per_call stat "$N"); statall=$(per_call statall "$N")
trace=$(per_call trace "$N")
echo "instructions per cuCtxGetCurrent call (valgrind, fake driver, N=$N)"
printf '%-34s %8s %8s\n' mode instr added
row "bare driver" "$bare" -
row "cutap, no client (pass-through)" "$pass" $((pass - bare))
row "cutap stat (counters)" "$stat" $((stat - bare))
row "cutap stat --time-all" "$statall" $((statall - bare))
row "cutap trace (records)" "$trace" $((trace - bare))
# issue #13's targets, instructions added per call
mark() { [ "$2" -le "$3" ] && echo "met" || echo "NOT met"; }
echo "targets (issue #13): trace <= 100 added: $(mark trace $((trace - bare)) 100); stat <= 15 added: $(mark stat $((stat - bare)) 15)"

# A static runtime copy's reported call (bench/rtreport)
RN=$((N / 3))
rbare=$(per_call bare "$RN" rt); rfloor=$(per_call floor "$RN" rt); rstat=$(per_call stat "$RN" rt)
rtrace=$(per_call trace "$RN" rt)
echo "instructions per reported cudaGetDevice of a static copy (bench/rtreport, N=$RN; its cuCtxGetDevice included)"
printf '%-34s %8s %8s\n' mode instr added
row "bare (no reports asked for)" "$rbare" -
row "reports, ignored (floor)" "$rfloor" $((rfloor - rbare))
row "cutap stat" "$rstat" $((rstat - rbare))
row "cutap trace" "$rtrace" $((rtrace - rbare))
