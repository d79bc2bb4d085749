#!/usr/bin/env bash
# NVTX with the real nvtx3 headers: cutap is the injection library; ranges
# nest the calls made inside them in dump, tree, Perfetto, SQLite and JSON
# lines; marks, start/end ranges, domains and registered strings; the
# program's output unchanged.
. "$(dirname "$0")/../../lib/init.sh"

[ -x $T/t_nvtx ] || exit 77
$T/t_nvtx >"$WORK/nv.bare" 2>&1 || { cat "$WORK/nv.bare" >&2; exit 1; }
# EXPECT_NVTX: t_nvtx checks what NVTX returned (levels, ids): cutap's values
EXPECT_NVTX=1 "$CUTAP" trace -o "$WORK/nv" -- $T/t_nvtx >"$WORK/nv.out" 2>"$WORK/nv.err" \
    || { cat "$WORK/nv.err" >&2; exit 1; }
diff "$WORK/nv.bare" "$WORK/nv.out" >&2 || { say "  output changed under cutap trace"; exit 1; }
called "$WORK/nv.out" >"$WORK/nv.called"
report_names "$WORK/nv" | grep '^cu' >"$WORK/nv.seen" && same_counts "$WORK/nv.called" "$WORK/nv.seen" || exit 1
# dump: the calls made inside a range indented under it, in time order
# (the worker thread runs while main waits for it)
"$CUTAP" dump "$WORK/nv" >"$WORK/nv.dump" || exit 1
nvtx_names "$WORK/nv.dump" >"$WORK/nv.names"
# (nvtx_ranges.dump-names: the dump as nvtx_names prints it)
diff "$HERE/nvtx_ranges.dump-names" "$WORK/nv.names" >&2 || { say "  dump (want <, got >)"; exit 1; }
# the summary counts calls, not ranges
"$CUTAP" report --format csv "$WORK/nv" | grep -q -e '^range,' -e '^mark,' && { say "  ranges in the summary"; exit 1; }
# report --tree: ranges are path elements (layer range; marks: mark)
"$CUTAP" report --tree --format csv "$WORK/nv" >"$WORK/nv.csv" || exit 1
for p in 'outer > inner > cuCtxGetCurrent,driver,cuCtxGetCurrent,2,1,' 'outer > inner,range,inner,1,1,' \
    'outer > cuDriverGetVersion,driver,' 'outer > tick,mark,tick,1,1,0,0,0' 'worker > cuDeviceGetCount,driver,' \
    'expush > cuDriverGetVersion,driver,' 'dompush > registered > cuCtxGetCurrent,driver,' 'async,range,async,0,1,'; do
    grep -qF -- "$p" "$WORK/nv.csv" || { say "  no tree row '$p'"; cat "$WORK/nv.csv" >&2; exit 1; }
done
command -v python3 >/dev/null || exit 0
for p in perfetto jsonl sqlite; do "$CUTAP" export --format $p -o "$WORK/nv.$p" "$WORK/nv" || exit 1; done
python3 "$TL/nvtx_ranges_exports.py" "$WORK"
