#!/usr/bin/env bash
# A process with driver calls but no runtime call recorded: it calls the
# driver only, or was traced with --runtime=symbols, which cannot see a
# static cudart; the report says so.
. "$(dirname "$0")/../../lib/init.sh"

"$CUTAP" trace -o "$WORK/rn" -- $T/t_paths_pie plt >/dev/null 2>&1 || exit 1
pid=$("$CUTAP" report --by process --format csv "$WORK/rn" | awk -F, 'NR == 2 {print $14}')
want="^note: process $pid made CUDA driver calls but no runtime (cudart) call was recorded: either it calls the driver only, or .*--runtime=symbols"
"$CUTAP" report "$WORK/rn" >"$WORK/rn.txt" 2>"$WORK/rn.err" || exit 1
tail -1 "$WORK/rn.txt" | grep -q "$want" || { cat "$WORK/rn.txt" >&2; exit 1; }
"$CUTAP" report --tree "$WORK/rn" | tail -1 | grep -q "$want" || exit 1
# CSV and JSON stay parseable: the note goes to stderr
"$CUTAP" report --format csv "$WORK/rn" >"$WORK/rn.csv" 2>"$WORK/rn.err" || exit 1
! grep -q note "$WORK/rn.csv" && grep -q "$want" "$WORK/rn.err" || exit 1
"$CUTAP" report --format json "$WORK/rn" 2>/dev/null | python3 -m json.tool >/dev/null || exit 1
# runtime calls recorded: no note; both in one directory: the other one only
layers_trace rn2 || exit 1
"$CUTAP" report "$WORK/rn2" >"$WORK/rn2.txt" 2>&1 || exit 1
! grep -q 'note:' "$WORK/rn2.txt" || { say "  note with runtime calls"; exit 1; }
cp "$WORK"/rn2/*.cutap "$WORK/rn/"
"$CUTAP" report "$WORK/rn" | grep -c '^note:' | grep -qx 1 && "$CUTAP" report "$WORK/rn" | grep -q "$want"
