#!/usr/bin/env bash
# report --by thread over 16 threads; export never replaces an existing file
# without --force.
. "$(dirname "$0")/../../lib/init.sh"

"$CUTAP" trace -o "$WORK/bt" -- $T/t_threads >/dev/null 2>&1 || exit 1
"$CUTAP" report --by thread --format csv "$WORK/bt" >"$WORK/bt.csv" || exit 1
# 16 threads x (cuCtxGetCurrent, cuDriverGetVersion, cuMemAlloc_v2), 500 each
[ "$(grep -c '^driver,cu[A-Za-z_0-9]*,500,0,' "$WORK/bt.csv")" = 48 ] || { head "$WORK/bt.csv" >&2; exit 1; }
# columns: ...,unfinished,timed,host,pid,tid
[ "$(cut -d, -f15 "$WORK/bt.csv" | sed 1d | sort -u | wc -l)" = 16 ] || exit 1
echo old >"$WORK/bt.json"
"$CUTAP" export --format perfetto -o "$WORK/bt.json" "$WORK/bt" 2>/dev/null; [ $? = 1 ] || exit 1
grep -qx old "$WORK/bt.json" || exit 1
"$CUTAP" export --format perfetto --force -o "$WORK/bt.json" "$WORK/bt" && grep -q traceEvents "$WORK/bt.json"
