#!/usr/bin/env bash
# Issue #30: the flat report's self time (perf's self/children split): a
# row's self time is its total less the time of the calls made directly
# inside its calls, and its share (Self(%), CSV time_pct) is of the summed
# self time, so the shares add up to 100. t_static_rt nests
# cudaDeviceSynchronize 64 deep and cuMemAlloc_v2 under cudaMalloc: the
# nested row's self time is far below its total, a leaf's equals it.
. "$(dirname "$0")/../../lib/init.sh"

CUTAP_TRACE=$WORK/t LD_PRELOAD=$LIB $T/t_static_rt >/dev/null 2>&1 || exit 1
"$CUTAP" report --format csv "$WORK/t" >"$WORK/r.csv" || exit 1
awk -F, 'NR > 1 { pct += $10 } END { if (pct < 99.9 || pct > 100.1) { print "shares add up to " pct; exit 1 } }' "$WORK/r.csv" >&2 || exit 1
awk -F, '$2 == "cudaDeviceSynchronize" { if (!($NF * 10 < $5)) { print "cudaDeviceSynchronize self " $NF " of " $5; exit 1 }; ok = 1 }
         $2 == "cuMemAlloc_v2" { if ($NF != $5) { print "cuMemAlloc_v2 (a leaf) self " $NF " of " $5; exit 1 }; leaf = 1 }
         END { exit !(ok && leaf) }' "$WORK/r.csv" >&2 || { cat "$WORK/r.csv" >&2; exit 1; }
"$CUTAP" report "$WORK/t" | grep -q '^ Self(%)  *Total(ns) .* Max(ns)  *Self(ns)  *Layer' || { "$CUTAP" report "$WORK/t" | head -3 >&2; exit 1; }
