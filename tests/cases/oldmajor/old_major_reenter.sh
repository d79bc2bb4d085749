#!/usr/bin/env bash
# A cuBLAS whose constructor calls its own API, loaded by cutap for the
# program's first call: the constructor's call (cutap still adopting
# the layer) is not made, gets status 1, and is recorded; the
# program's call is made.
. "$(dirname "$0")/../../lib/init.sh"

d=$WORK/oldre
rm -rf "$d.tr"
LD_LIBRARY_PATH=$T/min13 "$CUTAP" trace -o "$d.tr" -- $T/t_old_late reenter >"$d.out" 2>"$d.err" \
    || { say "  cutap trace: status $?"; tail -5 "$d.err" >&2; exit 1; }
printf '%s\n' 'CALL cublasGetVersion_v2' 'min13 constructor: cublasGetVersion_v2 = 1' \
    'cublasGetVersion_v2 = 0' 'version 13' done | diff - "$d.out" >&2 || { say "  output differs"; exit 1; }
"$CUTAP" export --format jsonl -o "$d.jsonl" "$d.tr" || exit 1
[ "$(jsonl_calls "$d.jsonl" cublasGetVersion_v2 | cut -d' ' -f1 | sort | tr '\n' ,)" = "0,1," ] \
    || { say "  recorded calls (result nargs):"; jsonl_calls "$d.jsonl" cublasGetVersion_v2 >&2; exit 1; }
