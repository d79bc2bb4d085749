#!/usr/bin/env bash
# Issue #25: with no option, cutap records the runtime calls of a runtime
# copy no symbol can stand in for (t_static_rt's own), from the copy's own
# reports through the driver's TOOLS_RUNTIME_CALLBACK_HOOKS, with no CUPTI
# loaded: each exactly once, the first one (made before cuInit) included,
# the output unchanged; --runtime=all is the same. The TOOLS_TLS#2 call a
# copy makes before each report (one per report: 2 per runtime call, 562 here) is the
# instrument's: its call sites are learned (two sightings each) and its
# calls then pass unrecorded: at most 4 recorded (under --runtime=cupti,
# which does not learn, all 2 per report are). --runtime=symbols
# records none (the copy is handed the driver's words: it reports nothing);
# CUTAP_RUNTIME from the caller's environment does not override the
# option. A bad value is refused by the command, warned about by the
# library (which then takes symbols only). With no client at all, or a
# filter that leaves the runtime layer out, no report is asked for.
. "$(dirname "$0")/../../lib/init.sh"

srt_run co1 && srt_recorded co1 1 && srt_same_output co1 || exit 1
grep -q '^RTCALL cudaGetDeviceCount$' "$WORK/co1.err" || { say "  the first call (before cuInit) was not reported"; exit 1; }
[ "$(srt_tls2 co1)" -le 4 ] && [ "$(sed -n 's/^TLS2 //p' "$WORK/co1.err")" = 562 ] \
    || { say "  $(srt_tls2 co1) TOOLS_TLS#2 calls recorded of $(sed -n 's/^TLS2 //p' "$WORK/co1.err") (the reports' own: at most 4 of 562)"; exit 1; }
[ "$(grep -c '^RTCALL' "$WORK/co1.err")" = 275 ] || { say "  not 275 runtime calls reported"; exit 1; }
# no CUPTI in the process (and under --runtime=cupti there is: the check can tell)
! grep -q '^CUPTI loaded$' "$WORK/co1.err" || { say "  libcupti loaded by default"; exit 1; }
srt_run co8 --runtime=cupti && grep -q '^CUPTI loaded$' "$WORK/co8.err" || { say "  --runtime=cupti: no libcupti seen"; exit 1; }
srt_recorded co8 1 && [ "$(srt_tls2 co8)" = "$(sed -n 's/^TLS2 //p' "$WORK/co8.err")" ] \
    || { say "  --runtime=cupti: $(srt_tls2 co8) TOOLS_TLS#2 calls recorded of $(sed -n 's/^TLS2 //p' "$WORK/co8.err")"; exit 1; }
CUTAP_RUNTIME=symbols srt_run co6 --runtime=all && srt_recorded co6 1 || exit 1
CUTAP_RUNTIME=cupti srt_run co2 --runtime=symbols && srt_recorded co2 0 || exit 1
! grep -q RTCALL "$WORK/co2.err" || { say "  reports made under --runtime=symbols"; exit 1; }
CUTAP_RUNTIME=symbols srt_run co3 && srt_recorded co3 1 || exit 1
"$CUTAP" trace --runtime=bogus -o "$WORK/co4" -- true 2>"$WORK/co4.err"; [ $? = 2 ] || exit 1
grep -q -- '--runtime=bogus: takes all, symbols or cupti' "$WORK/co4.err" || exit 1
"$CUTAP" trace --help | grep -q -- '--runtime=all|symbols|cupti' || exit 1
# the library warns about a bad CUTAP_RUNTIME (into the directory's
# registry, not on the program's stderr) and goes on, symbols only
CUTAP_RUNTIME=bogus CUTAP_TRACE=$WORK/co5 LD_PRELOAD=$LIB $T/t_static_rt >"$WORK/co5.out" 2>"$WORK/co5.err" || exit 1
reg_says "$WORK/co5" 'CUTAP_RUNTIME=bogus: takes all, symbols or cupti' && ! grep -q cutap "$WORK/co5.err" && srt_same_output co5 || exit 1
! grep -q RTCALL "$WORK/co5.err" || { say "  reports made with a bad CUTAP_RUNTIME"; exit 1; }
# the library alone (LD_PRELOAD, no command): the default is the same
CUTAP_TRACE=$WORK/co7 LD_PRELOAD=$LIB $T/t_static_rt >"$WORK/co7.out" 2>"$WORK/co7.err" || exit 1
srt_recorded co7 1 || exit 1
# nobody wants runtime calls (no client at all; a filter leaving the layer
# out): the copy is handed the driver's words and reports nothing
LD_PRELOAD=$LIB $T/t_static_rt >"$WORK/co9.out" 2>"$WORK/co9.err" || exit 1
! grep -q '^RTCALL' "$WORK/co9.err" && srt_same_output co9 || { say "  reports made with no client"; exit 1; }
srt_run co10 -e 'layer=driver' && ! grep -q '^RTCALL' "$WORK/co10.err" || { say "  reports made with the runtime filtered out"; exit 1; }
