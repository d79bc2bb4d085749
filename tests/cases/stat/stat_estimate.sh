#!/usr/bin/env bash
# The estimate of a counter, from a file whose counter is set by hand
# (clock ns: ticks are ns): 1000 calls, 47 timed, 31 of them by the
# countdown alone (3100 ns), the 16 others exactly (46900 ns, a slow
# first call among them): 46900 + 3100 * (1000 - 16) / 31 = 145300,
# not 50000 * 1000 / 47.
. "$(dirname "$0")/../../lib/init.sh"

rm -rf "$WORK/es" "$WORK/es0"
CUTAP_CLOCK=ns CUTAP_COUNT=$WORK/es LD_PRELOAD=$LIB $T/t_record many 100 >/dev/null || exit 1
cp -r "$WORK/es" "$WORK/es0"
python3 "$TL/set_counter.py" "$WORK"/es/*.cutap 1000 3 50000 10 20000 47 31 3100 || exit 1
"$CUTAP" report --format csv "$WORK/es" >"$WORK/es.csv" || exit 1
grep -qx 'driver,cuCtxGetCurrent,1000,3,145300,145,10,20000,,100.00,0,47' "$WORK/es.csv" || { cat "$WORK/es.csv" >&2; exit 1; }
"$CUTAP" report "$WORK/es" | grep -qx '~ estimated from 47 of 1000 calls timed' || exit 1
# No sample at all: the 984 calls timed by neither rule count as the
# fastest timed call (10 ns): 46900 + 10 * 984 = 56740, not the slow
# first calls scaled up (46900 * 1000 / 16 = 2931250).
python3 "$TL/set_counter.py" "$WORK"/es0/*.cutap 1000 0 46900 10 20000 16 0 0 || exit 1
"$CUTAP" report --format csv "$WORK/es0" | grep -qx 'driver,cuCtxGetCurrent,1000,0,56740,56,10,20000,,100.00,0,16' \
    || { "$CUTAP" report --format csv "$WORK/es0" >&2; exit 1; }
