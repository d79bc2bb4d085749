#!/usr/bin/env bash
# report, dump and export take -e, --from and --to: selecting with -e
# when reading gives the calls, depths and callers of a trace recorded
# with that -e (nested runtime > cuBLAS > driver calls of the fakes);
# a time window keeps the calls that start in it; bad values refused.
. "$(dirname "$0")/../../lib/init.sh"

libs_env env EXPECT_CUTAP=1 "$CUTAP" trace -o "$WORK/selA" -- $T/t_libs_now link >/dev/null 2>&1 || exit 1
for f in 'layer=driver' 'layer=cublas,layer=driver' '!cuCtxGetCurrent' 'cuMem*'; do
    rm -rf "$WORK/selB" "$WORK/selA.jsonl" "$WORK/selB.jsonl"
    libs_env env EXPECT_CUTAP=1 "$CUTAP" trace -o "$WORK/selB" -e "$f" -- $T/t_libs_now link >/dev/null 2>&1 || exit 1
    "$CUTAP" export --format jsonl -o "$WORK/selA.jsonl" -e "$f" "$WORK/selA" || exit 1
    "$CUTAP" export --format jsonl -o "$WORK/selB.jsonl" "$WORK/selB" || exit 1
    python3 "$TL/jsonl_same_calls.py" "$WORK/selA.jsonl" "$WORK/selB.jsonl" \
        || { say "  -e '$f' at read time differs from recording with it"; exit 1; }
    [ "$("$CUTAP" report -e "$f" --format csv "$WORK/selA" | sort | md5sum | cut -c1-8)" != "" ] || exit 1
done
# the same names and counts in report -e as in the trace recorded with -e
diff <("$CUTAP" report -e 'cuMem*' --format csv "$WORK/selA" | cut -d, -f1-4 | sort) \
     <("$CUTAP" report --format csv "$WORK/selB" | cut -d, -f1-4 | sort) >&2 || exit 1
"$CUTAP" dump "$WORK/selA" | awk '{print $1}' >"$WORK/sel.t" || exit 1
# a window between printed times (dump prints microseconds): from
# halfway between two distinct start times to halfway between two later
from=$(awk 'NR > 3 && p != "" && $1 > p { printf "%.7f\n", (p + $1) / 2; exit } { p = $1 }' "$WORK/sel.t")
to=$(awk -v f="$from" '$1 > f { n++ } n > 4 && p != "" && $1 > p { printf "%.7f\n", (p + $1) / 2; exit } { p = $1 }' "$WORK/sel.t")
[ -n "$from" ] && [ -n "$to" ] || { say "  no window found"; exit 1; }
"$CUTAP" dump --from "$from" --to "$to" "$WORK/selA" | awk '{print $1}' >"$WORK/sel.w" || exit 1
awk -v f="$from" -v t="$to" '$1 > f && $1 < t' "$WORK/sel.t" | diff - "$WORK/sel.w" >&2 \
    || { say "  --from $from --to $to: not the calls that start in the window"; exit 1; }
[ -s "$WORK/sel.w" ] || exit 1
"$CUTAP" dump --from 2 --to 1 "$WORK/selA" >/dev/null 2>"$WORK/sel.err"; [ $? = 2 ] && grep -q 'before --from' "$WORK/sel.err" || exit 1
"$CUTAP" report -e 'layer=bogus' "$WORK/selA" >/dev/null 2>"$WORK/sel.err"; [ $? = 2 ] && grep -q "layer= takes" "$WORK/sel.err" || exit 1
"$CUTAP" export --format jsonl -o "$WORK/sel.x" --from abc "$WORK/selA" 2>/dev/null; [ $? = 2 ] || exit 1
for c in report dump export; do "$CUTAP" $c --help | grep -q -- '--from S' || { say "  $c --help lacks --from"; exit 1; }; done
