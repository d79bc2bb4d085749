#!/usr/bin/env bash
# cublasGetFixedPointEmulationMantissaBitCountPointer (which 12.4's headers do not
# declare) called with 13.0's 2 arguments while no cuBLAS is loaded (not
# made, recorded untyped: the major of a library loaded later is not known
# yet), then libcublas.so.12's 9-argument one: its calls get the caller's
# 9 words, and no record reads the 13.0 output pointer's register (the
# unmapped address the 12.x caller's register holds: SIGSEGV once).
# And a function libcudart.so.12 declares otherwise than 13.0
# (cudaMemPrefetchAsync: an int device, 4 arguments; 13.0 passes a
# cudaMemLocation and flags) called before any runtime is loaded, then
# through the same reference once libcudart.so.12 is: the second call
# reaches the library with the caller's 4 words whole (through 13.0's
# wrapper the stream was cut to 32 bits), typed with 12.4's parameters.
. "$(dirname "$0")/../../lib/init.sh"

no_cache_ok || exit 77
d=$WORK/oldlate
late_trace oldlate late $T/min12/libcublas.so.12 || exit 1
[ "$(grep -c '^min12 cublasGetFixedPointEmulationMantissaBitCountPointer: 5a00 18 5a22 5a33 5a44 5a55 5a66 5a77 5a88$' "$d.out")" = 2 ] \
    || { say "  the 12.x library did not get the caller's 9 words twice"; cat "$d.out" >&2; exit 1; }
grep -qx 'cublasGetFixedPointEmulationMantissaBitCountPointer = 1' "$d.out" || { say "  the call before the library was loaded: status 1 expected"; exit 1; }
"$CUTAP" export --format jsonl -o "$d.jsonl" "$d.tr" || exit 1
# three untyped (6 raw words): not made before the library was loaded
# (status 1: no typed code takes its words while the layer's major is not
# known), then made twice (status 0)
[ "$(jsonl_calls "$d.jsonl" cublasGetFixedPointEmulationMantissaBitCountPointer | tr '\n' ,)" = "1 6,0 6,0 6," ] \
    || { say "  recorded calls (result nargs):"; jsonl_calls "$d.jsonl" cublasGetFixedPointEmulationMantissaBitCountPointer >&2; exit 1; }
"$CUTAP" report "$d.tr" 2>&1 >/dev/null | grep -q "note: process [0-9]*: libcublas.so.12" \
    || { say "  report does not say the cublas layer is of another major"; exit 1; }
# a variant function: late, then made with every word whole
d=$WORK/oldvar
rm -rf "$d.tr"
LD_LIBRARY_PATH=$B/fakelibs:$LD_LIBRARY_PATH no_cache "$CUTAP" trace -o "$d.tr" -- $T/t_old_late variant >"$d.out" 2>"$d.err" \
    || { say "  variant: cutap trace: status $?"; tail -5 "$d.err" >&2; exit 1; }
grep -qx 'fake cudaMemPrefetchAsync: 5a5a5a5a0000 20 3 123456789abc' "$d.out" && grep -qx 'cudaMemPrefetchAsync = 0' "$d.out" \
    || { say "  variant: the library did not get the caller's words:"; cat "$d.out" >&2; exit 1; }
"$CUTAP" export --format jsonl -o "$d.jsonl" "$d.tr" || exit 1
[ "$(jsonl_calls "$d.jsonl" cudaMemPrefetchAsync | tr '\n' ,)" = "303 6,0 4," ] \
    || { say "  variant: recorded calls (result nargs):"; jsonl_calls "$d.jsonl" cudaMemPrefetchAsync >&2; exit 1; }
"$CUTAP" dump "$d.tr" 2>/dev/null | grep -q ' cudaMemPrefetchAsync(devPtr=0x5a5a5a5a0000, count=32, dstDevice=3, stream=0x123456789abc) = cudaSuccess' \
    || { say "  variant: not decoded with 12.4's parameters"; "$CUTAP" dump "$d.tr" | grep Prefetch >&2; exit 1; }
