#!/usr/bin/env bash
# Under trace, a function's first call names it in the file and then
# hands out its fast path, also when it came while another thread's
# refresh held the lock (issue #27: a plain trylock there left an id on
# the general path for good in about 1 run of 12; now the holder
# refreshes it before and after it lets go). t_first_names: 8 threads
# make the first and second calls of 50 functions at once, then the main
# thread 3 more of each; 30 runs, CUTAP_DIAG_PATHS counting each
# function's calls on the general path: the first, perhaps the second
# (made before the holder got to it), never the main thread's.
. "$(dirname "$0")/../../lib/init.sh"

for i in $(seq 30); do
    rm -rf "$WORK/t" "$WORK/d"
    CUTAP_DIAG_PATHS="$WORK/d" CUTAP_TRACE="$WORK/t" LD_PRELOAD=$LIB $T/t_first_names 8 >"$WORK/out" 2>&1 \
        || { say "  run $i: status $?"; cat "$WORK/out" >&2; exit 1; }
    n=$(sed -n 's/^\([0-9]*\) functions$/\1/p' "$WORK/out")
    [ "${n:-0}" -ge 40 ] || { say "  run $i: only ${n:-0} functions found"; exit 1; }
    named=$(awk '$3 == "general"' "$WORK/d" | wc -l)
    [ "$named" -ge "$n" ] || { say "  run $i: $named functions on the general path, want each of $n once (its first call)"; cat "$WORK/d" >&2; exit 1; }
    stuck=$(awk '$3 == "general" && $4 != "cuInit" && $5 > 2 { printf " %s=%s", $4, $5 }' "$WORK/d")
    [ -z "$stuck" ] || { say "  run $i: the main thread's calls on the general path (of 5 a function):$stuck"; exit 1; }
done
exit 0
