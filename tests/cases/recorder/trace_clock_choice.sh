#!/usr/bin/env bash
# CUTAP_CLOCK=ns / =tsc pick the record clock (header field at offset
# 24: 0 ns, 1 TSC); both give sane times.
# serial: bounds the time 50 calls take (under 10 ms)
. "$(dirname "$0")/../../lib/init.sh"

for c in ns:0 tsc:1; do
    v=${c#*:}; c=${c%:*}
    CUTAP_CLOCK=$c "$CUTAP" trace -o "$WORK/ck$c" -- $T/t_record many 50 >/dev/null 2>&1 || exit 1
    [ "$(od -An -tu4 -j24 -N4 "$WORK/ck$c"/*.cutap | tr -d ' ')" = "$v" ] || { say "  clock $c: header"; exit 1; }
    # 50 calls of a few hundred ns each: total well under 10 ms
    "$CUTAP" report --format csv "$WORK/ck$c" | awk -F, '$2 == "cuCtxGetCurrent" && $3 == 50 && $5 > 0 && $5 < 10000000 {ok=1} END {exit !ok}' \
        || { "$CUTAP" report "$WORK/ck$c" >&2; exit 1; }
done
