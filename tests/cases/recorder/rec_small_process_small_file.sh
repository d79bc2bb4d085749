#!/usr/bin/env bash
# A process with a handful of calls: its trace is one 4 KiB header and
# one 256 KiB chunk (was 1 MiB), and reads back whole.
. "$(dirname "$0")/../../lib/init.sh"

rm -rf "$WORK/sp"
CUTAP_TRACE=$WORK/sp LD_PRELOAD=$LIB $T/t_record many 5 >/dev/null || exit 1
[ "$(stat -c %s "$WORK"/sp/*.cutap)" = $((4096 + 262144)) ] || { stat -c '%s %n' "$WORK"/sp/*.cutap >&2; exit 1; }
"$CUTAP" report --format csv "$WORK/sp" | grep -q '^driver,cuCtxGetCurrent,5,0,'
