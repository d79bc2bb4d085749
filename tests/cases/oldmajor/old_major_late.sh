#!/usr/bin/env bash
# cublasGetFixedPointEmulationMantissaBitCountPointer (which 12.4's headers do not
# declare) called with 13.0's 2 arguments while no cuBLAS is loaded
# (a typed call, not made), then libcublas.so.12's 9-argument one: the
# untyped calls of the id do not use the typed calls' record plan (its
# output capture would read the unmapped address the 12.x caller's
# register holds: SIGSEGV before the fix).
. "$(dirname "$0")/../../lib/init.sh"

no_cache_ok || exit 77
d=$WORK/oldlate
late_trace oldlate late $T/min12/libcublas.so.12 || exit 1
[ "$(grep -c '^min12 cublasGetFixedPointEmulationMantissaBitCountPointer: 5a00 18 5a22 5a33 5a44 5a55 5a66 5a77 5a88$' "$d.out")" = 2 ] \
    || { say "  the 12.x library did not get the caller's 9 words twice"; cat "$d.out" >&2; exit 1; }
grep -qx 'cublasGetFixedPointEmulationMantissaBitCountPointer = 1' "$d.out" || { say "  the call before the library was loaded: status 1 expected"; exit 1; }
"$CUTAP" export --format jsonl -o "$d.jsonl" "$d.tr" || exit 1
# typed (3 words, status 1), then two untyped (6 raw words, status 0)
[ "$(jsonl_calls "$d.jsonl" cublasGetFixedPointEmulationMantissaBitCountPointer | tr '\n' ,)" = "1 2,0 6,0 6," ] \
    || { say "  recorded calls (result nargs):"; jsonl_calls "$d.jsonl" cublasGetFixedPointEmulationMantissaBitCountPointer >&2; exit 1; }
"$CUTAP" report "$d.tr" 2>&1 >/dev/null | grep -q "note: process [0-9]*: libcublas.so.12" \
    || { say "  report does not say the cublas layer is of another major"; exit 1; }
