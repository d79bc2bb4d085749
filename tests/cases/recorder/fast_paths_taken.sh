#!/usr/bin/env bash
# Calls that need no callback take a fast path (issue #27), as
# CUTAP_DIAG_PATHS says (the calls a client wanted that took the general
# path or the generic trampoline's callbacks, per function, at exit): in
# counting mode with every id slow (each call timed), cuCtxGetCurrent's
# 1,000 calls take the general path only before the thread has a counter
# and a countdown (the timed fast path: each went there before); in trace
# mode an export-table slot's 300 calls never take the callbacks (the
# trampoline records them itself); with a second client they all do (the
# diagnostic sees them).
. "$(dirname "$0")/../../lib/init.sh"

general() {   # FILE KIND NAME -> the count (0 when not listed)
    awk -v k="$2" -v n="$3" '$3 == k && $4 == n { c = $5 } END { print c + 0 }' "$1"
}
rm -rf "$WORK/c" "$WORK/t" "$WORK/t2" "$WORK"/d*
CUTAP_DIAG_PATHS="$WORK/dc" CUTAP_STAT_SLOW_NS=1 CUTAP_COUNT="$WORK/c" LD_PRELOAD=$LIB $T/t_record many 1000 >/dev/null || exit 1
n=$(general "$WORK/dc" general cuCtxGetCurrent)
calls=$("$CUTAP" report --format csv "$WORK/c" | awk -F, '$2 == "cuCtxGetCurrent" { print $3 }')
[ "${calls:-0}" -ge 1000 ] || { say "  counting: $calls calls of cuCtxGetCurrent, not 1,000"; exit 1; }
[ "$n" -le 2 ] || { say "  counting, every id slow: $n of $calls calls of cuCtxGetCurrent took the general path"; exit 1; }

CUTAP_DIAG_PATHS="$WORK/dt" CUTAP_TRACE="$WORK/t" LD_PRELOAD=$LIB $T/t_record slots 300 >/dev/null || exit 1
slots=$("$CUTAP" report --format csv "$WORK/t" | awk -F, '$2 == "FAKE_SIZED#1" { print $3 }')
[ "${slots:-0}" -ge 300 ] || { say "  trace: $slots slot calls recorded, not 300"; exit 1; }
n=$(general "$WORK/dt" untyped 'FAKE_SIZED#1')
[ "$n" = 0 ] || { say "  trace: $n of $slots slot calls took the trampoline's callbacks"; exit 1; }

# the control: a second client (CUTAP_LOG) makes every call take them
CUTAP_LOG="$WORK/log" CUTAP_DIAG_PATHS="$WORK/d2" CUTAP_TRACE="$WORK/t2" LD_PRELOAD=$LIB $T/t_record slots 300 >/dev/null || exit 1
n=$(general "$WORK/d2" untyped 'FAKE_SIZED#1')
[ "$n" -ge 300 ] || { say "  with a second client, only $n slot calls took the callbacks: the diagnostic misses them"; exit 1; }
exit 0
