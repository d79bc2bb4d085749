#!/usr/bin/env bash
# cutap trace of a command that cannot run: its message and status 127,
# no summary, no trace directory left behind.
. "$(dirname "$0")/../../lib/init.sh"

rm -rf "$WORK/cnf"
"$CUTAP" trace -o "$WORK/cnf" -- "$WORK/no-such-program" >/dev/null 2>"$WORK/cnf.err"; [ $? = 127 ] || exit 1
[ "$(cat "$WORK/cnf.err")" = "cutap: cannot run $WORK/no-such-program: No such file or directory" ] \
    || { say "  stderr:"; cat "$WORK/cnf.err" >&2; exit 1; }
[ ! -e "$WORK/cnf" ] || { say "  $WORK/cnf left behind"; exit 1; }
