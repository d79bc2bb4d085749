#!/usr/bin/env bash
# Trace files are mode 0600.
. "$(dirname "$0")/../../lib/init.sh"

"$CUTAP" trace -o "$WORK/fm" -- $T/t_record many 3 >/dev/null 2>&1 || exit 1
[ "$(stat -c %a "$WORK/fm"/*.cutap)" = 600 ]
