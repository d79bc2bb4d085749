#!/usr/bin/env bash
# A cuBLAS call reaches cutap's export with no cuBLAS loaded (a weak
# reference): not made, status 1, and cutap loads no cuBLAS in its place
# (one is on LD_LIBRARY_PATH: the program did not choose it). Then the
# program opens that library, whose constructor calls its own API
# through the global scope: the layer is adopted from inside the loader
# and that call is made, as is the program's next one; all recorded.
. "$(dirname "$0")/../../lib/init.sh"

d=$WORK/oldre
rm -rf "$d.tr"
LD_LIBRARY_PATH=$T/min13 "$CUTAP" trace -o "$d.tr" -- $T/t_old_late reenter >"$d.out" 2>"$d.err" \
    || { say "  cutap trace: status $?"; tail -5 "$d.err" >&2; exit 1; }
printf '%s\n' 'CALL cublasGetVersion_v2' 'cublasGetVersion_v2 = 1' 'version -1' 'libcublas mapped: no' \
    'min13 constructor: cublasGetVersion_v2 = 0' 'CALL cublasGetVersion_v2' 'cublasGetVersion_v2 = 0' 'version 13' done \
    | diff - "$d.out" >&2 || { say "  output differs"; exit 1; }
"$CUTAP" export --format jsonl -o "$d.jsonl" "$d.tr" || exit 1
[ "$(jsonl_calls "$d.jsonl" cublasGetVersion_v2 | cut -d' ' -f1 | tr '\n' ,)" = "1,0,0," ] \
    || { say "  recorded calls (result nargs):"; jsonl_calls "$d.jsonl" cublasGetVersion_v2 >&2; exit 1; }
