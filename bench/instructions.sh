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
per_call() { a=$(count "$1" "$N"); b=$(count "$1" $((2 * N))); echo $(( (b - a + N / 2) / N )); }   # nearest: 114.998 is 115
bare=$(per_call bare); pass=$(per_call pass); stat=$(per_call stat); statall=$(per_call statall); trace=$(per_call trace)
echo "instructions per cuCtxGetCurrent call (valgrind, fake driver, N=$N)"
printf '%-34s %8s %8s\n' mode instr added
printf '%-34s %8d %8s\n' "bare driver" "$bare" -
printf '%-34s %8d %8d\n' "cutap, no client (pass-through)" "$pass" $((pass - bare))
printf '%-34s %8d %8d\n' "cutap stat (counters)" "$stat" $((stat - bare))
printf '%-34s %8d %8d\n' "cutap stat --time-all" "$statall" $((statall - bare))
printf '%-34s %8d %8d\n' "cutap trace (records)" "$trace" $((trace - bare))
# issue #13's targets, instructions added per call
mark() { [ "$2" -le "$3" ] && echo "met" || echo "NOT met"; }
echo "targets (issue #13): trace <= 100 added: $(mark trace $((trace - bare)) 100); stat <= 15 added: $(mark stat $((stat - bare)) 15)"

# A static runtime copy's reported call (bench/rtreport)
RN=$((N / 3))
rt_per_call() { a=$(count "$1" "$RN" rt); b=$(count "$1" $((2 * RN)) rt); echo $(( (b - a + RN / 2) / RN )); }
rbare=$(rt_per_call bare); rfloor=$(rt_per_call floor); rstat=$(rt_per_call stat); rtrace=$(rt_per_call trace)
echo "instructions per reported cudaGetDevice of a static copy (bench/rtreport, N=$RN; its cuCtxGetDevice included)"
printf '%-34s %8s %8s\n' mode instr added
printf '%-34s %8d %8s\n' "bare (no reports asked for)" "$rbare" -
printf '%-34s %8d %8d\n' "reports, ignored (floor)" "$rfloor" $((rfloor - rbare))
printf '%-34s %8d %8d\n' "cutap stat" "$rstat" $((rstat - rbare))
printf '%-34s %8d %8d\n' "cutap trace" "$rtrace" $((rtrace - rbare))
