#!/usr/bin/env bash
# Issue #25's benchmark anchor (bench/gpu/rtcall.sh "reports, ignored"):
# CUTAP_RUNTIME=floor asks the copies for their reports (t_static_rt's copy
# reports all its 275 calls: 562 TOOLS_TLS#2 calls before them, as with
# the default) and records none of them: the trace holds the program's
# driver calls only, and its output is the bare run's.
. "$(dirname "$0")/../../lib/init.sh"

CUTAP_TRACE=$WORK/fl CUTAP_RUNTIME=floor LD_PRELOAD=$LIB $T/t_static_rt >"$WORK/fl.out" 2>"$WORK/fl.err" \
    || { say "  run failed"; tail -5 "$WORK/fl.err" >&2; exit 1; }
[ "$(grep -c '^RTCALL' "$WORK/fl.err")" = 275 ] && [ "$(sed -n 's/^TLS2 //p' "$WORK/fl.err")" = 562 ] \
    || { say "  the copy did not report every call: $(grep -c '^RTCALL' "$WORK/fl.err") reported"; exit 1; }
srt_recorded fl 0 && srt_same_output fl || exit 1
! "$CUTAP" report --format csv "$WORK/fl" | grep -q '^runtime,' || { say "  runtime calls recorded"; exit 1; }
