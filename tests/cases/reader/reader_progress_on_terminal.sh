#!/usr/bin/env bash
# Long commands draw a progress line on stderr when it is a terminal
# (erased at the end), and print nothing of it otherwise.
. "$(dirname "$0")/../../lib/init.sh"

command -v python3 >/dev/null || exit 77
d=$WORK/pg
rm -rf "$d"
"$CUTAP" trace -o "$d" -- $T/t_record many 600000 >/dev/null 2>&1 || exit 1
"$CUTAP" dump "$d" 2>"$WORK/pg.err" >/dev/null || exit 1
[ ! -s "$WORK/pg.err" ] || { say "  stderr not a terminal, yet:"; cat -v "$WORK/pg.err" >&2; exit 1; }
python3 "$TL/pty_progress.py" "$CUTAP" "$d" || exit 1
