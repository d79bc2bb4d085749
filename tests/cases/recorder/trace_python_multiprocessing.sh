#!/usr/bin/env bash
# Python children by fork and by spawn (a fresh interpreter): each
# process that calls the driver has its file, with its calls.
. "$(dirname "$0")/../../lib/init.sh"

command -v python3 >/dev/null || exit 77
"$CUTAP" trace -o "$WORK/mp" -- python3 "$TL/mp_driver_calls.py" 2>"$WORK/mp.err" || { cat "$WORK/mp.err" >&2; exit 1; }
# 3+4 calls per method in the pool workers, 5 in the parent
"$CUTAP" report --format csv "$WORK/mp" | grep -q '^driver,cuDriverGetVersion,19,0,' \
    || { "$CUTAP" report "$WORK/mp" >&2; exit 1; }
[ "$(ls "$WORK/mp" | wc -l)" -ge 3 ]
