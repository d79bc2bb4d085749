#!/usr/bin/env bash
# 4 threads call cublasGetFixedPointEmulationMantissaBitCountPointer (not
# declared by 12.4's headers) with 9 arguments through the program's
# reference while the main thread opens libcublas.so.12: a call that
# took the typed path (the layer had no library) just before the layer
# was adopted must not be made with 13.0's 2-argument signature; every
# call made gets the caller's 9 words. Pass-through and trace, 3 runs each.
# And the same race for a function CUDA 12 declares otherwise (a variant).
# serial: a 30 ms race between its threads and a dlopen, which a loaded machine can starve (seen: 0 calls made at -j 10)
. "$(dirname "$0")/../../lib/init.sh"

no_cache_ok || exit 77
# race NAME RUNS FUNC LINE ARGS...: RUNS times, pass-through and traced,
# t_old_late ARGS (with the old fakes on the library path): both sides of
# the race happened, every line the library printed for FUNC is LINE (the
# caller's words), and the trace holds every call, made or refused.
race() {
    local d=$WORK/$1 runs=$2 fn=$3 line=$4; shift 4
    for i in $(seq "$runs"); do
        for mode in pass trace; do
            rm -rf "$d.tr"
            if [ $mode = pass ]; then
                LD_LIBRARY_PATH=$B/fakelibs:$LD_LIBRARY_PATH no_cache env LD_PRELOAD=$LIB $T/t_old_late "$@" >"$d.out" 2>"$d.err"
            else
                LD_LIBRARY_PATH=$B/fakelibs:$LD_LIBRARY_PATH no_cache "$CUTAP" trace -o "$d.tr" -- $T/t_old_late "$@" >"$d.out" 2>"$d.err"
            fi || { say "  $fn $mode run $i: status $?"; tail -5 "$d.err" >&2; return 1; }
            grep -q '^race: [1-9][0-9]* made, [1-9][0-9]* refused, 0 other$' "$d.out" \
                || { say "  $fn $mode run $i: $(grep '^race' "$d.out")"; return 1; }
            if grep " $fn:" "$d.out" | grep -vqx "$line"; then
                say "  $fn $mode run $i: a call reached the library without the caller's words:"
                grep " $fn:" "$d.out" | sort | uniq -c | sort -n | head -3 >&2
                return 1
            fi
        done
        made=$(sed -n 's/^race: \([0-9]*\) made, \([0-9]*\) refused.*/\1/p' "$d.out")
        refused=$(sed -n 's/^race: \([0-9]*\) made, \([0-9]*\) refused.*/\2/p' "$d.out")
        [ "$(grep -c " $fn:" "$d.out")" = "$made" ] \
            && [ "$("$CUTAP" report --format csv "$d.tr" | awk -F, -v f="$fn" '$2 == f { print $3 }')" = $((made + refused)) ] \
            || { say "  $fn trace run $i: $made made, $refused refused; recorded:"; "$CUTAP" report --format csv "$d.tr" >&2; return 1; }
    done
}
race oldrace 3 cublasGetFixedPointEmulationMantissaBitCountPointer \
    'min12 cublasGetFixedPointEmulationMantissaBitCountPointer: 5a00 18 5a22 5a33 5a44 5a55 5a66 5a77 5a88' \
    race "$T/min12/libcublas.so.12" 4 || exit 1
# The same for a function libcudart.so.12 declares otherwise than 13.0
# (cudaMemPrefetchAsync: an int device): 4 threads call it while the main
# thread opens the tests' libcudart.so.12; every call made reaches it with
# the caller's words whole (a call that took 13.0's wrapper is not made).
race oldvrace 2 cudaMemPrefetchAsync 'fake cudaMemPrefetchAsync: 5a5a5a5a0000 20 3 123456789abc' racevariant 4 || exit 1
