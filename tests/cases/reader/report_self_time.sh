#!/usr/bin/env bash
# Issue #30: the flat report's self time (perf's self/children split): a
# row's self time is its total less the time of the calls made directly
# inside its calls, and its share (Self(%), CSV time_pct) is of the summed
# self time, so the shares add up to 100 (the self time itself: the text
# report's Self(ns), JSON's self_ns; the CSV's columns stay as they were). t_static_rt nests
# cudaDeviceSynchronize 64 deep and cuMemAlloc_v2 under cudaMalloc: the
# nested row's self time is far below its total, a leaf's equals it.
. "$(dirname "$0")/../../lib/init.sh"

CUTAP_TRACE=$WORK/t LD_PRELOAD=$LIB $T/t_static_rt >/dev/null 2>&1 || exit 1
"$CUTAP" report --format csv "$WORK/t" >"$WORK/r.csv" || exit 1
awk -F, 'NR > 1 { pct += $10 } END { if (pct < 99.9 || pct > 100.1) { print "shares add up to " pct; exit 1 } }' "$WORK/r.csv" >&2 || exit 1
"$CUTAP" report "$WORK/t" >"$WORK/r.txt" || exit 1
awk '$NF == "cudaDeviceSynchronize" { if (!($9 * 10 < $2)) { print "cudaDeviceSynchronize self " $9 " of " $2; exit 1 }; ok = 1 }
     $NF == "cuMemAlloc_v2" { if ($9 != $2) { print "cuMemAlloc_v2 (a leaf) self " $9 " of " $2; exit 1 }; leaf = 1 }
     END { exit !(ok && leaf) }' "$WORK/r.txt" >&2 || { cat "$WORK/r.txt" >&2; exit 1; }
"$CUTAP" report --format json "$WORK/t" | python3 -c 'import json, sys
rows = {r["name"]: r for r in json.load(sys.stdin)["rows"]}
assert rows["cudaDeviceSynchronize"]["self_ns"] * 10 < rows["cudaDeviceSynchronize"]["total_ns"], rows["cudaDeviceSynchronize"]
assert rows["cuMemAlloc_v2"]["self_ns"] == rows["cuMemAlloc_v2"]["total_ns"]' || exit 1
"$CUTAP" report "$WORK/t" | grep -q '^ Self(%)  *Total(ns) .* Max(ns)  *Self(ns)  *Layer' || { "$CUTAP" report "$WORK/t" | head -3 >&2; exit 1; }
