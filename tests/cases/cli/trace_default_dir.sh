#!/usr/bin/env bash
# Without -o, cutap trace records into cutap-YYYYMMDD-HHMMSS* in the working
# directory and names it.
. "$(dirname "$0")/../../lib/init.sh"

(cd "$WORK" && "$CUTAP" trace -- $T/t_record many 3 >/dev/null 2>"$WORK/dd.err") || exit 1
d=$(sed -n 's/.*traced into \([^ ]*\) .*/\1/p' "$WORK/dd.err")
[[ $d == cutap-20[0-9][0-9][01][0-9][0-3][0-9]-[0-9][0-9][0-9][0-9][0-9][0-9]* ]] && [ -d "$WORK/$d" ] \
    || { cat "$WORK/dd.err" >&2; exit 1; }
