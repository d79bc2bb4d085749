#!/usr/bin/env bash
# CUDA calls from a signal handler while its thread makes its own, under
# trace and stat (never harm): t_sig_calls makes 2,000,000 cuCtxGetCurrent
# (hundreds of chunk changes) with a timer at the main thread every 20 us,
# whose handler calls cuDeviceGetCount and one of 50 other functions in
# turn (their first calls name the ids from the handler: a name that
# could not be written is written by the id's next call, never left out). The run ends (no hang: 60 s at most), every call succeeds,
# and the trace holds every call of both, each once: a handler's record
# written beyond its thread's chunk, into a chunk given away, or into the
# slots of the call it interrupted is lost or overwritten (helper-25's
# review found the first; this case found the others and a hang: the
# handler's call waited on a lock its thread held). Where a handler's call
# interrupts the thread's own taking of slots it takes none: counted lost,
# so the trace's calls plus its losses make the handler's. Then a handler
# that makes 100 more calls a tick (t_sig_calls burst100: its calls change
# the thread's chunk often, between the thread's own steps of taking
# slots): the same sum. A version that took slots by xadd left slots taken
# and unwritten there, which hid every later record of the chunk from the
# readers, uncounted (helper-28's review: 7 of 18 runs of a 10 M-call
# probe).
. "$(dirname "$0")/../../lib/init.sh"

for mode in trace stat; do
    rm -rf "$WORK/$mode"
    timeout 60 "$CUTAP" $mode -o "$WORK/$mode" -- $T/t_sig_calls 2000000 >"$WORK/$mode.out" 2>"$WORK/$mode.err" \
        || { say "  $mode: status $?"; cat "$WORK/$mode.out" "$WORK/$mode.err" >&2; exit 1; }
    h=$(sed -n 's/^main 2000000 handler \([0-9]*\)$/\1/p' "$WORK/$mode.out")
    [ "${h:-0}" -ge 20 ] || { say "  $mode: the handler ran ${h:-0} times (want 20 or more)"; cat "$WORK/$mode.out" >&2; exit 1; }
    # cuCtxGetCurrent's calls, and all calls (cuInit, the main thread's,
    # the handler's 2 a tick)
    if [ $mode = trace ]; then
        "$CUTAP" report --format csv "$WORK/$mode" >"$WORK/$mode.csv" 2>/dev/null || { say "  $mode: report failed"; exit 1; }
        ! grep -q 'id#' "$WORK/$mode.csv" || { say "  $mode: calls under an id the file never names:"; grep 'id#' "$WORK/$mode.csv" >&2; exit 1; }
        got=$(awk -F, 'NR > 1 { t += $3 } $2 == "cuCtxGetCurrent" { a = $3 } END { print a + 0, t + 0 }' "$WORK/$mode.csv")
    else   # the summary: ... Calls ... Name
        got=$(awk '$NF ~ /^cu/ && $3 ~ /^[0-9]+$/ { t += $3 } $NF == "cuCtxGetCurrent" { a = $3 } END { print a + 0, t + 0 }' "$WORK/$mode")
    fi
    want=$((2000000 + 2 * h + 1))
    if [ $mode = trace ]; then
        lost=$("$CUTAP" report "$WORK/$mode" 2>&1 >/dev/null | sed -n 's/.*: \([0-9,]*\) calls\{0,1\} not recorded.*/\1/p' | tr -d , | head -1)
        a=${got% *}; b=${got#* }
        [ "$a" = 2000000 ] && [ $((b + ${lost:-0})) = "$want" ] \
            || { say "  $mode: recorded (cuCtxGetCurrent, all) $got, lost ${lost:-0}, made 2000000, $want"; exit 1; }
    else
        [ "$got" = "2000000 $want" ] || { say "  $mode: counted (cuCtxGetCurrent, all) $got, made 2000000 $want"; exit 1; }
    fi
done

rm -rf "$WORK/burst"
timeout 60 "$CUTAP" trace -o "$WORK/burst" -- $T/t_sig_calls 5000000 burst100 >"$WORK/burst.out" 2>"$WORK/burst.err" \
    || { say "  burst: status $?"; cat "$WORK/burst.out" "$WORK/burst.err" >&2; exit 1; }
h=$(sed -n 's/^main 5000000 handler \([0-9]*\)$/\1/p' "$WORK/burst.out")
[ "${h:-0}" -ge 20 ] || { say "  burst: the handler ran ${h:-0} times (want 20 or more)"; exit 1; }
"$CUTAP" report --format csv "$WORK/burst" >"$WORK/burst.csv" 2>"$WORK/burst.rep" || { say "  burst: report failed"; exit 1; }
got=$(awk -F, 'NR > 1 { t += $3 } END { print t + 0 }' "$WORK/burst.csv")
lost=$(sed -n 's/.*: \([0-9,]*\) calls\{0,1\} not recorded.*/\1/p' "$WORK/burst.rep" | tr -d , | head -1)
want=$((5000000 + 102 * h + 1))
[ $((got + ${lost:-0})) = "$want" ] || { say "  burst: recorded $got, lost ${lost:-0}, made $want"; exit 1; }
exit 0
