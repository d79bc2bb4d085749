#!/usr/bin/env bash
# 30000 cheap calls, then 3000 rounds of three ids (one always
# failing): calls and errors exact on both paths, few calls timed, and
# the estimated total between calls * min and calls * max. (No id is
# made slow by a stall of the machine: CUTAP_STAT_SLOW_NS; slow ids
# are stat_slow_calls_all_timed's.)
. "$(dirname "$0")/../../lib/init.sh"

for nf in 0 1; do
    d=$WORK/ss$nf; rm -rf "$d"
    CUTAP_STAT_SLOW_NS=1000000000 CUTAP_NO_FUSED=$nf CUTAP_COUNT=$d LD_PRELOAD=$LIB $T/t_record many 30000 >"$d.out1" || exit 1
    CUTAP_STAT_SLOW_NS=1000000000 CUTAP_NO_FUSED=$nf CUTAP_COUNT=$d LD_PRELOAD=$LIB $T/t_record mix 3000 >"$d.out2" || exit 1
    cat "$d.out1" "$d.out2" >"$d.out"
    called "$d.out" >"$d.called"
    "$CUTAP" report --format csv "$d" >"$d.csv" || exit 1
    awk -F, 'NR > 1 { for (i = 0; i < $3; i++) print $2 }' "$d.csv" >"$d.seen"
    same_counts "$d.called" "$d.seen" || exit 1
    read -r calls errors total avg min max timed <<<"$(stat_row "$d.csv" cuCtxGetCurrent)"
    [ "$calls" = 33000 ] && [ "$errors" = 0 ] || { cat "$d.csv" >&2; exit 1; }
    # The first 16 calls of an id in a process are timed; after them the
    # countdown reaches zero at least once every 255 calls of a thread
    # (mean 128: about 274); far fewer than at the old mean of 32 (about
    # 1,050).
    [ "$timed" -ge $((16 + 32984 / 255)) ] && [ "$timed" -le $((33000 / 64)) ] \
        || { say "  NO_FUSED=$nf: cuCtxGetCurrent timed $timed of 33000"; exit 1; }
    # (min may be 0: a fake call timed by two TSC reads a few ticks
    # apart converts to less than 1 ns.)
    [ "$min" -ge 0 ] && [ "$max" -gt 0 ] && [ "$total" -ge $((calls * min)) ] && [ "$total" -le $((calls * max)) ] \
        || { say "  NO_FUSED=$nf: total $total not within calls * min and calls * max"; cat "$d.csv" >&2; exit 1; }
    read -r calls errors total avg min max timed <<<"$(stat_row "$d.csv" cuGetErrorName)"
    [ "$calls" = 3000 ] && [ "$errors" = 3000 ] && [ "$timed" -lt 3000 ] || { cat "$d.csv" >&2; exit 1; }
done
# CUTAP_STAT_SAMPLE=32: a sample at least every 63 calls (about 1,050
# timed); =1024: a sample every 2,047 at the least, 16 + about 32 timed.
for m in 32:$((16 + 32984 / 63)):$((33000 / 16)) 1024:$((16 + 32984 / 2047)):$((16 + 33000 / 300)); do
    d=$WORK/sm${m%%:*}; rm -rf "$d"; lo=${m#*:}; hi=${lo#*:}; lo=${lo%:*}
    CUTAP_STAT_SAMPLE=${m%%:*} CUTAP_STAT_SLOW_NS=1000000000 CUTAP_COUNT=$d LD_PRELOAD=$LIB $T/t_record many 33000 >/dev/null || exit 1
    "$CUTAP" report --format csv "$d" >"$d.csv" || exit 1
    read -r calls errors total avg min max timed <<<"$(stat_row "$d.csv" cuCtxGetCurrent)"
    [ "$calls" = 33000 ] && [ "$timed" -ge "$lo" ] && [ "$timed" -le "$hi" ] \
        || { say "  CUTAP_STAT_SAMPLE=${m%%:*}: cuCtxGetCurrent timed $timed of $calls (want $lo..$hi)"; exit 1; }
done
# An id with fewer than 16 calls: every call timed, whatever its time.
rm -rf "$WORK/ss2"
CUTAP_COUNT=$WORK/ss2 LD_PRELOAD=$LIB $T/t_record many 15 >/dev/null || exit 1
CUTAP_COUNT=$WORK/ss2 LD_PRELOAD=$LIB $T/t_record errors >/dev/null || exit 1
"$CUTAP" report --format csv "$WORK/ss2" >"$WORK/ss2.csv" || exit 1
[ "$(awk -F, 'NR > 1 && $12 == $3' "$WORK/ss2.csv" | wc -l)" = 4 ] && grep -q '^driver,cuCtxGetCurrent,15,0,.*,15$' "$WORK/ss2.csv" \
    || { say "  calls of rare ids not all timed:"; cat "$WORK/ss2.csv" >&2; exit 1; }
# The text table marks estimated totals and says how many calls were timed.
"$CUTAP" report "$WORK/ss0" >"$WORK/ss.txt" || exit 1
awk '$NF == "cuCtxGetCurrent" && $2 ~ /^~[0-9]+$/ && $3 == 33000 {ok=1} END {exit !ok}' "$WORK/ss.txt" \
    || { cat "$WORK/ss.txt" >&2; exit 1; }
n=$(awk -F, 'NR > 1 && $12 < $3 { c += $3; t += $12 } END { print t " of " c }' "$WORK/ss0.csv")
grep -qx "~ estimated from $n calls timed" "$WORK/ss.txt" || { say "  no footnote '$n'"; cat "$WORK/ss.txt" >&2; exit 1; }
# The exports carry timed.
"$CUTAP" export --format jsonl -o "$WORK/ss.jsonl" "$WORK/ss0" || exit 1
python3 "$TL/sampled_counters_jsonl.py" "$WORK/ss.jsonl" || exit 1
"$CUTAP" export --format sqlite -o "$WORK/ss.sqlite" "$WORK/ss0" 2>/dev/null || exit 0   # no libsqlite3
python3 "$TL/sampled_counters_sqlite.py" "$WORK/ss.sqlite"
