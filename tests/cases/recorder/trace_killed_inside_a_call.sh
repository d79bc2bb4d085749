#!/usr/bin/env bash
# Killed inside cuCtxSynchronize: every completed call is there, the
# one in progress is shown as unfinished and not counted.
. "$(dirname "$0")/../../lib/init.sh"

FAKE_SYNC_DIES=1 "$CUTAP" trace -o "$WORK/di" -- $T/t_record die_inside 300 >/dev/null 2>&1; [ $? = 137 ] || exit 1
"$CUTAP" report --format csv "$WORK/di" >"$WORK/di.csv" || exit 1
grep -q '^driver,cuCtxGetCurrent,300,0,' "$WORK/di.csv" && grep -q '^driver,cuProfilerStart,1,0,' "$WORK/di.csv" \
    && grep -q '^driver,cuDriverGetVersion,1,0,' "$WORK/di.csv" && grep -q '^driver,cuCtxSynchronize,0,0,.*,1,0$' "$WORK/di.csv" \
    || { cat "$WORK/di.csv" >&2; exit 1; }
"$CUTAP" dump "$WORK/di" | tail -1 | grep -q ' cuCtxSynchronize() = ? <unfinished>$' || exit 1
"$CUTAP" report "$WORK/di" | grep -q '(+1 unfinished)'
