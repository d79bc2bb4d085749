#!/usr/bin/env bash
# CUTAP_STAT_TIMING=all and `cutap stat --time-all`: every call timed.
. "$(dirname "$0")/../../lib/init.sh"

d=$WORK/ta
rm -rf "$d"
CUTAP_STAT_TIMING=all CUTAP_COUNT=$d LD_PRELOAD=$LIB $T/t_record mix 3000 >/dev/null || exit 1
CUTAP_STAT_TIMING=all CUTAP_COUNT=$d LD_PRELOAD=$LIB $T/t_threads >/dev/null || exit 1
"$CUTAP" report --format csv "$d" >"$d.csv" || exit 1
[ "$(awk -F, 'NR > 1 && $12 == $3 && $3 >= 3000' "$d.csv" | wc -l)" = 4 ] && [ "$(sed 1d "$d.csv" | wc -l)" = 4 ] \
    || { cat "$d.csv" >&2; exit 1; }
"$CUTAP" stat --time-all -o "$WORK/ta.txt" -- $T/t_record many 30000 >/dev/null || exit 1
awk '$NF == "cuCtxGetCurrent" && $2 ~ /^[0-9]+$/ && $3 == 30000 {ok=1} END {exit !ok}' "$WORK/ta.txt" \
    && ! grep -q estimated "$WORK/ta.txt" || { cat "$WORK/ta.txt" >&2; exit 1; }
# The default (here said: sample) times fewer.
CUTAP_STAT_TIMING=sample "$CUTAP" stat -o "$WORK/ta2.txt" -- $T/t_record many 30000 >/dev/null || exit 1
grep -q '^~ estimated from [0-9]* of 30000 calls timed$' "$WORK/ta2.txt" || { cat "$WORK/ta2.txt" >&2; exit 1; }
# Bad values: refused by the command before it runs anything, and by
# the library, which then records nothing.
CUTAP_STAT_TIMING=most "$CUTAP" stat -- $T/t_record many 3 >"$WORK/ta3.out" 2>"$WORK/ta3.err"; [ $? = 2 ] || exit 1
grep -q "invalid CUTAP_STAT_TIMING 'most': takes all or sample" "$WORK/ta3.err" && [ ! -s "$WORK/ta3.out" ] \
    || { cat "$WORK/ta3.err" >&2; exit 1; }
CUTAP_STAT_TIMING=most CUTAP_COUNT=$WORK/ta4 LD_PRELOAD=$LIB $T/t_record many 3 >/dev/null 2>"$WORK/ta4.err" || exit 1
reg_says "$WORK/ta4" "invalid CUTAP_STAT_TIMING 'most': takes all or sample; nothing is recorded" \
    && [ ! -s "$WORK/ta4.err" ] && ! ls "$WORK/ta4"/*.cutap 2>/dev/null || { cat "$WORK/ta4.err" >&2; exit 1; }
# CUTAP_STAT_SAMPLE (a mean from 2 to 4096 calls, decimal digits alone):
# the same two refusals.
for bad in 1 4097 64x -8 +8 0x10 ' 64' "$(printf '\t64')"; do
    CUTAP_STAT_SAMPLE=$bad "$CUTAP" stat -- $T/t_record many 3 >"$WORK/ta6.out" 2>"$WORK/ta6.err"; [ $? = 2 ] || exit 1
    grep -q "invalid CUTAP_STAT_SAMPLE '$bad': takes a mean from 2 to 4096 calls" "$WORK/ta6.err" && [ ! -s "$WORK/ta6.out" ] \
        || { cat "$WORK/ta6.err" >&2; exit 1; }
    rm -rf "$WORK/ta7"
    CUTAP_STAT_SAMPLE=$bad CUTAP_COUNT=$WORK/ta7 LD_PRELOAD=$LIB $T/t_record many 3 >/dev/null 2>"$WORK/ta7.err" || exit 1
    reg_says "$WORK/ta7" "invalid CUTAP_STAT_SAMPLE '$bad': takes a mean from 2 to 4096 calls; nothing is recorded" \
        && [ ! -s "$WORK/ta7.err" ] && ! ls "$WORK/ta7"/*.cutap 2>/dev/null || { cat "$WORK/ta7.err" >&2; exit 1; }
done
"$CUTAP" trace --time-all -o "$WORK/ta5" -- true 2>"$WORK/ta5.err"; [ $? = 2 ] && grep -q 'option of cutap stat' "$WORK/ta5.err"
