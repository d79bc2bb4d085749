#!/usr/bin/env bash
# The recorder's fused path and its callbacks (taken when another client is
# present; forced here) write the same records (without address
# randomisation: the records hold stack addresses), and in counting mode the
# same counters: calls, errors, timed and sampled calls per id (with the
# same countdowns).
. "$(dirname "$0")/../../lib/init.sh"

rm -rf "$WORK/fu1" "$WORK/fu2"
norand="setarch $(uname -m) -R"
$norand true 2>/dev/null || norand=""
for mode in errors kernels; do
    CUTAP_NO_FUSED=0 CUTAP_TRACE=$WORK/fu1 LD_PRELOAD=$LIB $norand $T/t_record $mode >/dev/null || exit 1
    CUTAP_NO_FUSED=1 CUTAP_TRACE=$WORK/fu2 LD_PRELOAD=$LIB $norand $T/t_record $mode >/dev/null || exit 1
done
"$CUTAP" dump "$WORK/fu1" | sed 's/^[0-9.]* \[[0-9/]*\] //; s/ <[^>]*>$//' >"$WORK/fu1.txt" || exit 1
"$CUTAP" dump "$WORK/fu2" | sed 's/^[0-9.]* \[[0-9/]*\] //; s/ <[^>]*>$//' >"$WORK/fu2.txt" || exit 1
[ -s "$WORK/fu1.txt" ] && diff "$WORK/fu1.txt" "$WORK/fu2.txt" >&2 || exit 1
# Counting mode: the same calls, errors and timed calls on both paths
# (with the same countdowns, CUTAP_STAT_SEED, and no id made slow by a
# passing stall, CUTAP_STAT_SLOW_NS), so the same rule.
for nf in 0 1; do
    rm -rf "$WORK/fc$nf"
    for m in "many 3000" "mix 2000" errors; do
        CUTAP_STAT_SEED=12345 CUTAP_STAT_SLOW_NS=1000000000 CUTAP_NO_FUSED=$nf CUTAP_COUNT=$WORK/fc$nf LD_PRELOAD=$LIB \
            $T/t_record $m >/dev/null || exit 1
    done
    "$CUTAP" report --format csv "$WORK/fc$nf" | awk -F, 'NR > 1 { print $2, $3, $4, $12 }' | sort >"$WORK/fc$nf.txt" || exit 1
    # and, from the files, the counters' calls, errors, timed, sampled per id
    python3 "$TL/counter_sums.py" "$WORK/fc$nf" >>"$WORK/fc$nf.txt" || exit 1
done
awk '$1 == "cuCtxGetCurrent" && $4 < $2 {ok=1} END {exit !ok}' "$WORK/fc0.txt" || { cat "$WORK/fc0.txt" >&2; exit 1; }
awk '$1 == "id" && $6 > 0 {ok=1} END {exit !ok}' "$WORK/fc0.txt" || { say "  no sampled calls"; cat "$WORK/fc0.txt" >&2; exit 1; }
diff "$WORK/fc0.txt" "$WORK/fc1.txt" >&2
