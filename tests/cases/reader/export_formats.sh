#!/usr/bin/env bash
# export: the Perfetto JSON parses and holds one complete event per call, a
# track per thread and named processes; the SQLite file opens and its counts
# match; the JSON lines match; an existing file is kept.
. "$(dirname "$0")/../../lib/init.sh"

command -v python3 >/dev/null || exit 77
"$CUTAP" trace -o "$WORK/ex" -- $T/t_threads >/dev/null 2>&1 || exit 1
"$CUTAP" trace -o "$WORK/ex2" -- $T/t_record kernels >/dev/null 2>&1 || exit 1
cp "$WORK"/ex2/*.cutap "$WORK/ex/k.cutap"
for f in perfetto sqlite jsonl; do
    "$CUTAP" export --format $f -o "$WORK/ex.$f" "$WORK/ex" || exit 1
done
"$CUTAP" export --format jsonl -o "$WORK/ex.jsonl" "$WORK/ex" 2>"$WORK/ex.err"; [ $? = 1 ] || exit 1   # never overwrites
"$CUTAP" report --format csv "$WORK/ex" >"$WORK/ex.csv" || exit 1
python3 "$TL/export_formats_check.py" "$WORK"
