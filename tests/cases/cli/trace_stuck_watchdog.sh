#!/usr/bin/env bash
# Issue #16: cutap trace --stuck S. A call that hangs longer than S seconds
# (the fake driver's FAKE_BLOCK) makes the cutap command, not the traced
# program, write the cutap ps view into DIR/cutap-stuck-TIME.txt, once,
# and say so; the program's output is unchanged. A run where nothing hangs
# writes no such file; cutap stat refuses --stuck.
. "$(dirname "$0")/../../lib/init.sh"

export LD_LIBRARY_PATH=$FL:$LD_LIBRARY_PATH
rel=$WORK/release
$T/t_ranks 2 >"$WORK/bare.out" 2>&1 || exit 1
( sleep 3; touch "$rel" ) &
FAKE_BLOCK=cuCtxSynchronize:$rel "$CUTAP" trace --stuck 0.5 -o "$WORK/s" -- $T/t_ranks 2 >"$WORK/s.out" 2>"$WORK/s.err" || exit 1
wait
diff "$WORK/bare.out" "$WORK/s.out" >&2 || exit 1
n=$(ls "$WORK"/s/cutap-stuck-*.txt 2>/dev/null | wc -l)
[ "$n" = 1 ] || { say "  $n stuck files"; cat "$WORK/s.err" >&2; exit 1; }
grep -Eq 'cuCtxSynchronize\(\) <running [0-9.]+ (ms|s)>' "$WORK"/s/cutap-stuck-*.txt \
    && grep -q 'a call has been running longer than 0.5 s' "$WORK/s.err" || { cat "$WORK"/s/cutap-stuck-*.txt "$WORK/s.err" >&2; exit 1; }
"$CUTAP" report "$WORK/s" >/dev/null || exit 1   # the directory still reads as a trace
"$CUTAP" trace --stuck 0.5 -o "$WORK/n" -- $T/t_ranks 2 >/dev/null 2>&1 || exit 1
[ -z "$(ls "$WORK"/n/cutap-stuck-* 2>/dev/null)" ] || { say "  a stuck file without a hang"; exit 1; }
"$CUTAP" stat --stuck 1 -- true 2>/dev/null; [ $? = 2 ] || { say "  stat took --stuck"; exit 1; }
