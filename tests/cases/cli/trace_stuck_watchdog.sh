#!/usr/bin/env bash
# Issue #16: cutap trace --stuck S. A call that hangs longer than S seconds
# (the fake driver's FAKE_BLOCK) makes the cutap command, not the traced
# program, write the cutap ps view into DIR/cutap-stuck-TIME.txt, once,
# and say so, and nothing else (looks made before the first trace file
# exists say nothing); the program's output is unchanged. A run where nothing hangs
# writes no such file; cutap stat refuses --stuck.
. "$(dirname "$0")/../../lib/init.sh"

export LD_LIBRARY_PATH=$FL:$LD_LIBRARY_PATH
rel=$WORK/release
$T/t_ranks 2 >"$WORK/bare.out" 2>&1 || exit 1
# released as soon as the view is written (30 s at most); the program
# starts its CUDA calls only after 1.5 s, so the first looks find no trace
# file yet, and must say nothing
( for _ in $(seq 300); do ls "$WORK"/s/cutap-stuck-* >/dev/null 2>&1 && break; sleep 0.1; done; touch "$rel" ) &
FAKE_BLOCK=cuCtxSynchronize:$rel "$CUTAP" trace --stuck 0.5 -o "$WORK/s" -- sh -c "sleep 1.5; exec $T/t_ranks 2" \
    >"$WORK/s.out" 2>"$WORK/s.err" || exit 1
wait
diff "$WORK/bare.out" "$WORK/s.out" >&2 || exit 1
n=$(ls "$WORK"/s/cutap-stuck-*.txt 2>/dev/null | wc -l)
[ "$n" = 1 ] || { say "  $n stuck files"; cat "$WORK/s.err" >&2; exit 1; }
grep -Eq 'cuCtxSynchronize\(\) <running [0-9.]+ (ms|s)>' "$WORK"/s/cutap-stuck-*.txt \
    && grep -q 'a call has been running longer than 0.5 s' "$WORK/s.err" || { cat "$WORK"/s/cutap-stuck-*.txt "$WORK/s.err" >&2; exit 1; }
# nothing else said than that line and the summary
! grep -v -e 'a call has been running longer' -e ' traced into ' -e '^cutap: note:' "$WORK/s.err" | grep -q . \
    || { say "  other messages:"; cat "$WORK/s.err" >&2; exit 1; }
"$CUTAP" report "$WORK/s" >/dev/null || exit 1   # the directory still reads as a trace
"$CUTAP" trace --stuck 0.5 -o "$WORK/n" -- $T/t_ranks 2 >/dev/null 2>&1 || exit 1
[ -z "$(ls "$WORK"/n/cutap-stuck-* 2>/dev/null)" ] || { say "  a stuck file without a hang"; exit 1; }
"$CUTAP" stat --stuck 1 -- true 2>/dev/null; [ $? = 2 ] || { say "  stat took --stuck"; exit 1; }
