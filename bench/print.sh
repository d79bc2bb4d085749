#!/bin/sh
# What cutap trace --print costs (issue #30), side by side in one run: a
# program making 7 x N/7 driver calls (bench/passthrough --child:
# cuCtxGetCurrent on the fake driver; it prints its median ns per call)
# bare, under cutap trace, and under cutap trace --print to /dev/null and
# to a file, R rounds alternating the modes (default 7): the program's ns
# per call and the command's wall time (which includes printing what was
# left when the program ended), medians with min..max. The printer is a
# thread of the cutap command at nice +10, never of the program: on a
# machine with a core to spare the program's cost is trace's.
#   bench/print.sh [N] [R]
set -eu
cd "$(dirname "$0")/.."
N=${1:-1000000}
R=${2:-7}
B=$PWD/build
W=$(mktemp -d /tmp/cutap-print.XXXXXX)
trap 'rm -rf "$W"' EXIT
export LD_LIBRARY_PATH="$B/fake"
P="$B/bench/passthrough --child $((N / 7))"
run() {   # MODE COMMAND...: "MODE ns-per-call wall-seconds" into the log
    m=$1; shift
    rm -rf "$W/t" "$W/p.txt"
    s=$(date +%s.%N)
    ns=$("$@" 2>/dev/null | awk 'NF == 2 {print $1}')
    e=$(date +%s.%N)
    [ -n "$ns" ] || { echo "failed: $*" >&2; exit 1; }
    awk -v m="$m" -v n="$ns" -v s="$s" -v e="$e" 'BEGIN {printf "%s %s %.4f\n", m, n, e - s}' >>"$W/log"
}
for i in $(seq "$R"); do
    run bare $P
    run trace "$B/cutap" trace -o "$W/t" -- $P
    run print-null "$B/cutap" trace --print=/dev/null -o "$W/t" -- $P
    run print-file "$B/cutap" trace --print="$W/p.txt" -o "$W/t" -- $P
done
echo "cutap trace --print: $N calls a run, $R rounds; median (min..max)"
printf "  %-11s %22s %26s\n" mode "program ns/call" "command wall s"
for m in bare trace print-null print-file; do
    awk -v m="$m" '$1 == m {print $2}' "$W/log" | sort -n >"$W/a"
    awk -v m="$m" '$1 == m {print $3}' "$W/log" | sort -n >"$W/b"
    paste "$W/a" "$W/b" | awk -v m="$m" '{a[NR] = $1; b[NR] = $2} END {
        k = int((NR + 1) / 2); printf "  %-11s %7.1f (%5.1f..%5.1f) %9.3f (%6.3f..%6.3f)\n", m, a[k], a[1], a[NR], b[k], b[1], b[NR] }'
done
