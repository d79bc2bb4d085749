#!/usr/bin/env bash
# SIGKILL, abort, a segfault and _exit after 5000 calls: all 5000 are
# in the trace, and cutap exits with the program's status.
. "$(dirname "$0")/../../lib/init.sh"

for how in kill:137 abort:134 segv:139 _exit:0; do
    want=${how#*:}; how=${how%:*}
    rm -rf "$WORK/die"
    "$CUTAP" trace -o "$WORK/die" -- $T/t_record die 5000 $how >/dev/null 2>&1
    rc=$?
    [ $rc = "$want" ] || { say "  $how: exit $rc, want $want"; exit 1; }
    "$CUTAP" report --format csv "$WORK/die" >"$WORK/die.csv" || exit 1
    grep -q '^driver,cuCtxGetCurrent,5000,0,' "$WORK/die.csv" || { say "  $how:"; cat "$WORK/die.csv" >&2; exit 1; }
done
