#!/usr/bin/env bash
# 2000 short-lived threads of one call each (one after another, and 20
# waves of 100 alive at once): every call recorded once, under its
# thread; the trace of the 2000 in sequence stays small (an exited
# thread's chunk passes to the next, marked by a THREAD meta record:
# it was 512 MiB), counting mode too. A call from a key destructor run
# after cutap's is recorded (a fresh chunk), not lost.
. "$(dirname "$0")/../../lib/init.sh"

# churn_check NAME DIR: every thread t_thread_churn named (TID lines in
# $WORK/NAME.out) has exactly its calls in DIR, and no other thread any.
churn_check() {
    sed -n 's/^TID \([0-9]*\) \([0-9]*\)$/\1 \2/p' "$WORK/$1.out" | sort >"$WORK/$1.want"
    "$CUTAP" report --by thread --format csv "$2" 2>/dev/null | awk -F, 'NR > 1 { print $15, $3 }' | sort >"$WORK/$1.got"
    [ -s "$WORK/$1.want" ] && diff "$WORK/$1.want" "$WORK/$1.got" >"$WORK/$1.diff" \
        || { say "  $1: calls per thread, made (<) and recorded (>):"; head -5 "$WORK/$1.diff" >&2; return 1; }
}

for mode in TRACE COUNT; do
    for args in "seq 2000" "waves 20 100" "seq 200 dtor" "waves 4 50 dtor"; do
        n=churn_${mode}_${args// /_}
        rm -rf "$WORK/$n"
        env CUTAP_$mode="$WORK/$n" LD_PRELOAD=$LIB $T/t_thread_churn $args >"$WORK/$n.out" 2>/dev/null \
            || { say "  $mode $args failed"; exit 1; }
        churn_check "$n" "$WORK/$n" || exit 1
        kib=$(du -sk --apparent-size "$WORK/$n" | cut -f1)
        if [ "$args" = "seq 2000" ] || [ $mode = COUNT ]; then
            [ "$kib" -le 8192 ] || { say "  $mode $args: $kib KiB of trace (at most 8 MiB)"; exit 1; }
        fi
    done
done
