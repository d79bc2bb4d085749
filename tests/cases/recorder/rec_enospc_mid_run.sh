#!/usr/bin/env bash
# The trace outgrows its filesystem: recording stops, the program goes
# on (same output and status as bare), the header says why and how
# many calls were lost (recorded + lost = made), cutap trace says so.
# Also without fallocate (zeros written first: no SIGBUS).
. "$(dirname "$0")/../../lib/init.sh"

m=$WORK/midfs; small_fs "$m" 4m || exit $?
for pre in "" ":$T/libnofalloc.so"; do
    rm -rf "$m"/*
    UNDER="CUTAP_TRACE=$m/p LD_PRELOAD=$LIB$pre" bare_same mr $T/t_record many 200000 || { say "  (preload $LIB$pre)"; exit 1; }
    f=$(ls "$m"/p/*.cutap) || exit 1
    read -r ver flags err reason lost <<<"$(hdr_loss "$f")"
    [ "$ver" -ge 3 ] && [ $((flags & 4)) = 4 ] && [ "$err" = 28 ] && [ "$reason" = 1 ] \
        || { say "  header: version $ver flags $flags errno $err reason $reason"; exit 1; }
    rec=$("$CUTAP" report --format csv "$m/p" 2>/dev/null | awk -F, '$2 == "cuCtxGetCurrent" {print $3}')
    [ -n "$rec" ] && [ $((rec + lost)) = 200000 ] && [ "$lost" -gt 0 ] \
        || { say "  recorded $rec + lost $lost != 200000"; exit 1; }
    rm -rf "$m"/*
    "$CUTAP" trace -o "$m/cli" -- env LD_PRELOAD="$LIB$pre" $T/t_record many 200000 >"$WORK/mr2.out" 2>"$WORK/mr2.err"
    rc=$?
    [ $rc = 0 ] && cmp -s "$WORK/mr.bo" "$WORK/mr2.out" || { say "  cutap trace: exit $rc"; cat "$WORK/mr2.err" >&2; exit 1; }
    grep -Eq "^cutap: process [0-9]+ \(.*t_record\): recording stopped after [0-9,]+ calls: the trace file could not be extended: No space left on device; [0-9,]+ calls not recorded$" \
        "$WORK/mr2.err" || { cat "$WORK/mr2.err" >&2; exit 1; }
done
