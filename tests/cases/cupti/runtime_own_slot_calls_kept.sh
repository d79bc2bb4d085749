#!/usr/bin/env bash
# Issue #25: the TOOLS_TLS#2 calls a program makes itself stay recorded
# beside a runtime copy's reports (t_tls_between: libfakednn.so's copy
# reports 10 cudaMalloc, each bringing its own TOOLS_TLS#2 calls, and the
# program calls TOOLS_TLS#2 5 times between them). cutap learns only the
# call sites near the copy's #4 call, in its object: the program's 50
# calls are all in the trace, with at most 4 of the reports' own (before
# their sites are learned). Shown to fail when any TOOLS_TLS slot call
# last before a #4 is learned, wherever it was made (12 recorded).
. "$(dirname "$0")/../../lib/init.sh"

"$CUTAP" trace -o "$WORK/t" -- $T/t_tls_between >"$WORK/t.out" 2>"$WORK/t.err" || { cat "$WORK/t.err" >&2; exit 1; }
grep -qx 'CALLS TOOLS_TLS#2 50' "$WORK/t.out" || exit 1
n=$("$CUTAP" report --format csv "$WORK/t" | awk -F, '$2 == "TOOLS_TLS#2" { print $3 }')
m=$("$CUTAP" report --format csv "$WORK/t" | awk -F, '$2 == "cudaMalloc" { print $3 }')
[ "$m" = 10 ] && [ "${n:-0}" -ge 50 ] && [ "${n:-0}" -le 54 ] \
    || { say "  recorded: $n TOOLS_TLS#2 (want 50 to 54), $m cudaMalloc (want 10)"; exit 1; }
