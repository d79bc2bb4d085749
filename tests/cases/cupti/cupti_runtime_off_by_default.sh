#!/usr/bin/env bash
# Without --runtime=cupti (or with =symbols) nothing subscribes: only
# the driver calls; CUTAP_RUNTIME from the caller's environment does not
# override the option's default. A bad value is refused; all is the
# documented name of cupti.
. "$(dirname "$0")/../../lib/init.sh"

srt_run co1 && srt_recorded co1 0 && srt_same_output co1 || exit 1
CUTAP_RUNTIME=cupti srt_run co2 --runtime=symbols && srt_recorded co2 0 || exit 1
CUTAP_RUNTIME=cupti srt_run co3 && srt_recorded co3 0 || exit 1
! grep -q 'runtime=cupti' "$WORK/co1.err" "$WORK/co2.err" "$WORK/co3.err" || exit 1
"$CUTAP" trace --runtime=bogus -o "$WORK/co4" -- true 2>"$WORK/co4.err"; [ $? = 2 ] || exit 1
grep -q -- '--runtime=bogus: takes all, symbols or cupti' "$WORK/co4.err" || exit 1
"$CUTAP" trace --help | grep -q -- '--runtime=all|symbols' || exit 1
# the library warns about a bad CUTAP_RUNTIME (into the directory's
# registry, not on the program's stderr) and goes on
CUTAP_RUNTIME=bogus CUTAP_TRACE=$WORK/co5 LD_PRELOAD=$LIB $T/t_static_rt >"$WORK/co5.out" 2>"$WORK/co5.err" || exit 1
reg_says "$WORK/co5" 'CUTAP_RUNTIME=bogus: takes all, symbols or cupti' && ! grep -q cutap "$WORK/co5.err" && srt_same_output co5
# --runtime=all is --runtime=cupti
srt_run co6 --runtime=all && srt_recorded co6 1 || exit 1
