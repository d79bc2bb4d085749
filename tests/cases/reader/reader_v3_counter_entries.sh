#!/usr/bin/env bash
# Version 3 counting mode: COUNTER_ENTRIES chunks, entries of any
# thread; one without its magic is not counted. lost_calls alone warns.
. "$(dirname "$0")/../../lib/init.sh"

[ -x $MK ] || exit 77
d=$WORK/v3c; rm -rf "$d"; mkdir -p "$d"
$MK v3counts "$d" || exit 1
"$CUTAP" report --by thread --format csv "$d" >"$WORK/v3c.csv" 2>"$WORK/v3c.err" || exit 1
want='layer,name,calls,errors,total_ns,avg_ns,min_ns,max_ns,med_ns,time_pct,unfinished,timed,host,pid,tid
driver,cuMemAlloc_v2,10,0,1000,100,100,100,,66.67,0,10,host,4321,10
driver,cuInit,1,0,500,500,500,500,,33.33,0,1,host,4321,10
driver,cuMemAlloc_v2,40,2,4000,100,100,100,,100.00,0,40,host,4321,11'
[ "$(cat "$WORK/v3c.csv")" = "$want" ] || { say "  report:"; cat "$WORK/v3c.csv" >&2; exit 1; }
grep -Fxq 'cutap: warning: process 4321 (host): 7 calls not recorded' "$WORK/v3c.err" \
    || { say "  stderr:"; cat "$WORK/v3c.err" >&2; exit 1; }
