#!/usr/bin/env bash
# cuDriverGetVersion takes 2 us (FAKE_SLOW): every call of it is timed
# and its total is exact; the cheap calls beside it are sampled.
# serial: a stall of the machine in the first calls of a cheap function makes it slow, every call timed
. "$(dirname "$0")/../../lib/init.sh"

for nf in 0 1; do
    d=$WORK/sl$nf; rm -rf "$d"
    FAKE_SLOW=cuDriverGetVersion CUTAP_NO_FUSED=$nf CUTAP_COUNT=$d LD_PRELOAD=$LIB $T/t_record mix 3000 >/dev/null || exit 1
    "$CUTAP" report --format csv "$d" >"$d.csv" || exit 1
    read -r calls errors total avg min max timed <<<"$(stat_row "$d.csv" cuDriverGetVersion)"
    [ "$calls" = 3000 ] && [ "$timed" = 3000 ] && [ "$min" -ge 2000 ] && [ "$total" -ge 6000000 ] \
        || { say "  NO_FUSED=$nf:"; cat "$d.csv" >&2; exit 1; }
    read -r calls errors total avg min max timed <<<"$(stat_row "$d.csv" cuCtxGetCurrent)"
    [ "$calls" = 3000 ] && [ "$timed" -lt 3000 ] || { say "  NO_FUSED=$nf:"; cat "$d.csv" >&2; exit 1; }
done
"$CUTAP" report "$WORK/sl0" >"$WORK/sl.txt" || exit 1
awk '$NF == "cuDriverGetVersion" && $2 ~ /^[0-9]+$/ {ok=1} END {exit !ok}' "$WORK/sl.txt" \
    || { say "  an exact total is marked estimated"; cat "$WORK/sl.txt" >&2; exit 1; }
