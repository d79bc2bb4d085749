#!/usr/bin/env bash
# A signal handler's call of the same function as the call it interrupted
# (never harm: exact counts). t_sig_calls 2000000 same: the main thread
# makes 2,000,000 cuCtxGetCurrent, a timer at it every 20 us calls
# cuCtxGetCurrent too (and cuDeviceGetCount, one of 50 others). Under
# stat the count of cuCtxGetCurrent is exactly 2,000,000 + the handler's:
# the thread's counter was added to by a load, an add and a store, and a
# handler's call that came between them had its count overwritten (33 and
# 80 of about 5,000 lost in two runs before; each add is one instruction
# now). Under trace, the calls recorded and those counted lost make as
# many.
. "$(dirname "$0")/../../lib/init.sh"

for mode in stat trace; do
    rm -rf "$WORK/$mode"
    timeout 60 "$CUTAP" $mode -o "$WORK/$mode" -- $T/t_sig_calls 2000000 same >"$WORK/$mode.out" 2>"$WORK/$mode.err" \
        || { say "  $mode: status $?"; cat "$WORK/$mode.out" "$WORK/$mode.err" >&2; exit 1; }
    h=$(sed -n 's/^main 2000000 handler \([0-9]*\)$/\1/p' "$WORK/$mode.out")
    [ "${h:-0}" -ge 20 ] || { say "  $mode: the handler ran ${h:-0} times (want 20 or more)"; exit 1; }
    want=$((2000000 + h))
    if [ $mode = stat ]; then
        got=$(awk '$NF == "cuCtxGetCurrent" { print $3 }' "$WORK/$mode")
        [ "$got" = "$want" ] || { say "  stat: cuCtxGetCurrent counted ${got:-none}, made $want"; exit 1; }
    else
        "$CUTAP" report --format csv "$WORK/$mode" >"$WORK/$mode.csv" 2>"$WORK/$mode.rep" || { say "  report failed"; exit 1; }
        got=$(awk -F, '$2 == "cuCtxGetCurrent" { print $3 }' "$WORK/$mode.csv")
        lost=$(sed -n 's/.*: \([0-9,]*\) calls\{0,1\} not recorded.*/\1/p' "$WORK/$mode.rep" | tr -d , | head -1)
        [ "${got:-0}" -le "$want" ] && [ $((got + ${lost:-0})) -ge "$want" ] \
            || { say "  trace: cuCtxGetCurrent recorded ${got:-0}, lost ${lost:-0}, made $want"; exit 1; }
    fi
done
exit 0
