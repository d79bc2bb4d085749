#!/usr/bin/env bash
# A layer number this command does not know (a newer library, a damaged
# file) prints as layer<N>, its calls undecoded, nothing crashes. The
# file is made a version 3 one (version 4 names its layers, and the
# name wins: case reader_v4_self_describing).
. "$(dirname "$0")/../../lib/init.sh"

command -v python3 >/dev/null || exit 77
layers_trace lu || exit 1
python3 "$TL/set_layer_numbers.py" "$WORK"/lu/*.cutap || exit 1
"$CUTAP" report --format csv "$WORK/lu" >"$WORK/lu.csv" || exit 1
grep -q '^layer99,cudaMalloc,2,' "$WORK/lu.csv" && grep -q '^layer2147483647,ncclAllReduce,1,' "$WORK/lu.csv" \
    || { cat "$WORK/lu.csv" >&2; exit 1; }
"$CUTAP" dump "$WORK/lu" | grep -qE '\] cudaMalloc\(0x[0-9a-f]+, 0x1000\) = 0x0 <' || exit 1
"$CUTAP" export --format jsonl -o "$WORK/lu.jsonl" "$WORK/lu" && grep -q '"layer":"layer99","name":"cudaMalloc"' "$WORK/lu.jsonl"
