#!/usr/bin/env bash
# The generated fast paths (gen/fastpath_generator.py, the default),
# the fused path in dispatch alone (CUTAP_NO_FASTPATH=1) and the
# callbacks (CUTAP_NO_FUSED=1) write the same records (dumped, times
# and thread ids aside; the same environment size, so the same stack
# addresses) and, in counting mode, the same counts, errors, timed and
# sampled calls (and with every id slow, each call timed by the fast
# paths' timed function), on the driver (errors, outputs, launches with
# kernel names), on export-table slot calls (counted by the trampoline itself in
# counting mode, recorded by it without callbacks in trace mode) and on
# the layers of the fakes.
. "$(dirname "$0")/../../lib/init.sh"

norand="setarch $(uname -m) -R"
$norand true 2>/dev/null || norand=""
envs=("CUTAP_NO_FASTPATH=0 CUTAP_NO_FUSED=0" "CUTAP_NO_FASTPATH=1 CUTAP_NO_FUSED=0" "CUTAP_NO_FASTPATH=0 CUTAP_NO_FUSED=1")
for k in 0 1 2; do
    rm -rf "$WORK/fp$k" "$WORK/fpc$k"
    for mode in errors kernels "many 200" "slots 300"; do
        env ${envs[$k]} CUTAP_TRACE="$WORK/fp$k" LD_PRELOAD=$LIB $norand $T/t_record $mode >/dev/null || exit 1
    done
    env ${envs[$k]} EXPECT_CUTAP=1 CUTAP_TRACE="$WORK/fp$k" LD_PRELOAD=$LIB LD_LIBRARY_PATH=$FL:$LD_LIBRARY_PATH \
        $norand $T/t_libs_now link >/dev/null || exit 1
    # (stack addresses in calls made inside calls: the frames below
    # them differ from path to path)
    # (an export-table slot call records six registers; the slot reads
    # one, and the other five hold what the path before left there)
    "$CUTAP" dump "$WORK/fp$k" | sed 's/^[0-9.]* \[[0-9/]*\] //; s/ <[^>]*>$//; s/0x7ffffff[0-9a-f]*/STACK/g' |
        sed -E 's/^(FAKE_SIZED#1\([^,]*),[^)]*\)/\1, ...)/' >"$WORK/fp$k.txt" || exit 1
    for m in "many 3000" "mix 2000" errors "slots 3000"; do
        env ${envs[$k]} CUTAP_STAT_SEED=12345 CUTAP_STAT_SLOW_NS=1000000000 CUTAP_COUNT="$WORK/fpc$k" LD_PRELOAD=$LIB \
            $T/t_record $m >/dev/null || exit 1
    done
    "$CUTAP" report --format csv "$WORK/fpc$k" | awk -F, 'NR > 1 { print $2, $3, $4, $12 }' | sort >"$WORK/fpc$k.txt" || exit 1
    python3 "$TL/counter_sums.py" "$WORK/fpc$k" >>"$WORK/fpc$k.txt" || exit 1   # (sampled calls too)
    # every id slow (each call timed exactly): the fast paths time them too
    rm -rf "$WORK/fps$k"
    for m in "many 500" errors; do
        env ${envs[$k]} CUTAP_STAT_SEED=12345 CUTAP_STAT_SLOW_NS=1 CUTAP_COUNT="$WORK/fps$k" LD_PRELOAD=$LIB \
            $T/t_record $m >/dev/null || exit 1
    done
    "$CUTAP" report --format csv "$WORK/fps$k" | awk -F, 'NR > 1 { print $2, $3, $4, $12 }' | sort >"$WORK/fps$k.txt" || exit 1
    python3 "$TL/counter_sums.py" "$WORK/fps$k" >>"$WORK/fps$k.txt" || exit 1
done
awk '$2 >= 500 && $4 == $2 { n++ } END { exit n ? 0 : 1 }' "$WORK/fps0.txt" ||
    { say "  with every id slow, no function had all its calls timed"; exit 1; }
[ "$(wc -l <"$WORK/fp0.txt")" -gt 200 ] || { say "  too few records"; exit 1; }
for k in 1 2; do
    diff "$WORK/fp0.txt" "$WORK/fp$k.txt" >&2 || { say "  records differ from those with ${envs[$k]}"; exit 1; }
    diff "$WORK/fpc0.txt" "$WORK/fpc$k.txt" >&2 || { say "  counters differ from those with ${envs[$k]}"; exit 1; }
    diff "$WORK/fps0.txt" "$WORK/fps$k.txt" >&2 || { say "  counters of slow ids differ from those with ${envs[$k]}"; exit 1; }
done
