#!/usr/bin/env bash
# report in text, CSV (the exact header, with --by process, thread and rank)
# and JSON; in call records every call is timed; an unknown format is
# refused.
. "$(dirname "$0")/../../lib/init.sh"

"$CUTAP" trace -o "$WORK/rf" -- $T/t_record errors >/dev/null 2>&1 || exit 1
"$CUTAP" report --format csv "$WORK/rf" >"$WORK/rf.csv" || exit 1
hdr=layer,name,calls,errors,total_ns,avg_ns,min_ns,max_ns,med_ns,time_pct,unfinished,timed
[ "$(head -1 "$WORK/rf.csv")" = "$hdr" ] || { say "  header: $(head -1 "$WORK/rf.csv")"; exit 1; }
[ "$("$CUTAP" report --by process --format csv "$WORK/rf" | head -1)" = "$hdr,host,pid" ] || exit 1
[ "$("$CUTAP" report --by thread --format csv "$WORK/rf" | head -1)" = "$hdr,host,pid,tid" ] || exit 1
[ "$("$CUTAP" report --by rank --format csv "$WORK/rf" | head -1)" = "$hdr,rank" ] || exit 1
# call records: every call is timed (timed = calls)
grep -q '^driver,cuMemAlloc_v2,3,2,.*,0,3$' "$WORK/rf.csv" && grep -q '^driver,cuGetErrorName,2,1,.*,0,2$' "$WORK/rf.csv" \
    || { cat "$WORK/rf.csv" >&2; exit 1; }
"$CUTAP" report --format json "$WORK/rf" >"$WORK/rf.json" || exit 1
python3 "$TL/report_formats_json.py" "$WORK/rf.json" || exit 1
"$CUTAP" report "$WORK/rf" | grep -q 'cuDriverGetVersion' || exit 1
"$CUTAP" report --format xml "$WORK/rf" 2>/dev/null; [ $? = 2 ]
