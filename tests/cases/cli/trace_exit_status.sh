#!/usr/bin/env bash
# cutap trace exits with the command's status (3, 143 for SIGTERM, 127 when
# it cannot run, with a message); an existing trace is never overwritten.
. "$(dirname "$0")/../../lib/init.sh"

"$CUTAP" trace -o "$WORK/es1" -- sh -c 'exit 3' 2>/dev/null; [ $? = 3 ] || exit 1
"$CUTAP" trace -o "$WORK/es2" -- sh -c 'kill -TERM $$' 2>/dev/null; [ $? = 143 ] || exit 1
"$CUTAP" trace -o "$WORK/es3" -- "$WORK/no-such-program" 2>"$WORK/es3.err"; [ $? = 127 ] || exit 1
grep -q 'cannot run' "$WORK/es3.err" || exit 1
# An existing trace is never overwritten.
"$CUTAP" trace -o "$WORK/es4" -- $T/t_record many 1 >/dev/null 2>&1 || exit 1
"$CUTAP" trace -o "$WORK/es4" -- true 2>"$WORK/es4.err"; [ $? = 1 ] && grep -q 'already holds a trace' "$WORK/es4.err"
