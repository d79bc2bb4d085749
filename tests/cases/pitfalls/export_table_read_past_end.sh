#!/usr/bin/env bash
# A caller that reads past the length an export table declares reads the
# same words under cutap as bare. The fake's CUDART_INTERFACE declares one
# slot; CUDA 11.8's and 12.4's static runtimes call its slot 2 anyway (bare,
# the fake's next table's slot: they fail cleanly, "no GPU"); cutap's copy
# used to end at the declared length, so they called NULL (SIGSEGV under
# every trace). Shown to fail with the copy's tail left out (TAIL_WORDS 0 in
# src/resolve/exporttable.c): the words after the end read 0. The probe
# of those words leaves the program's errno as it was (shown to fail with
# cutap_readable not restoring it: errno 22 after the request).
. "$(dirname "$0")/../../lib/init.sh"

$T/t_table_tail >"$WORK/bare.out" 2>"$WORK/bare.err" || { cat "$WORK/bare.err" >&2; exit 1; }
grep -q '^table 0: errno 77, 2 words, after: libcuda.so.1+' "$WORK/bare.out" || { cat "$WORK/bare.out" >&2; exit 1; }
for opt in "" "--runtime=symbols" "--runtime=cupti"; do
    "$CUTAP" trace $opt -o "$WORK/t$opt" -- $T/t_table_tail >"$WORK/t.out" 2>"$WORK/t.err" || { cat "$WORK/t.err" >&2; exit 1; }
    cmp -s "$WORK/bare.out" "$WORK/t.out" || { say "  trace $opt:"; diff "$WORK/bare.out" "$WORK/t.out" >&2; exit 1; }
    # the table was a copy (its slot calls are recorded), not the driver's
    "$CUTAP" dump "$WORK/t$opt" | grep -q 'CUDART_INTERFACE' || { say "  trace $opt: no CUDART_INTERFACE"; exit 1; }
done
