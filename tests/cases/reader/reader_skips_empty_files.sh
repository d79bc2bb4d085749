#!/usr/bin/env bash
# A process killed between making its file and writing the header
# leaves an empty file: skipped with a note, not an error.
. "$(dirname "$0")/../../lib/init.sh"

"$CUTAP" trace -o "$WORK/em" -- $T/t_record many 3 >/dev/null 2>&1 || exit 1
: >"$WORK/em/host.1.cutap"; head -c 8192 /dev/zero >"$WORK/em/host.2.cutap"
"$CUTAP" report --format csv "$WORK/em" >"$WORK/em.csv" 2>"$WORK/em.err" || { cat "$WORK/em.err" >&2; exit 1; }
[ "$(grep -c 'empty trace file' "$WORK/em.err")" = 2 ] && grep -q '^driver,cuCtxGetCurrent,3,0,' "$WORK/em.csv"
