#!/usr/bin/env bash
# The reader streams the calls (cli/read/iter.c, tr_iter): report,
# --tree, dump and the JSON lines and Perfetto exports keep no call, so
# their memory does not grow with the number of calls. 8 threads at once
# making nested calls (a merge of 8 streams, parents from per-thread
# stacks): 0.48 M and 4.8 M calls; on the larger, every command under
# 64 MiB and within 20 MiB of the smaller (the reader that held every
# call took 286 MiB for report), and the tree's counts exact.
# slow
. "$(dirname "$0")/../../lib/init.sh"

[ -x /usr/bin/time ] || exit 77
for n in 20000 200000; do
    rm -rf "$WORK/mf$n"
    "$CUTAP" trace -o "$WORK/mf$n" -- $T/t_record threads 8 $n >"$WORK/mf$n.out" 2>&1 || { cat "$WORK/mf$n.out" >&2; exit 1; }
    grep -qx "CALLS $((24 * n))" "$WORK/mf$n.out" || exit 1
done
"$CUTAP" report --tree --format csv "$WORK/mf200000" >"$WORK/mf.csv" || exit 1
for c in 'cuProfilerStart,driver,cuProfilerStart,0,1600000,' 'cuProfilerStart > cuDriverGetVersion,driver,cuDriverGetVersion,1,1600000,' \
    'cuCtxGetCurrent,driver,cuCtxGetCurrent,0,1600000,'; do
    grep -qF -- "$c" "$WORK/mf.csv" || { say "  no tree row '$c'"; cat "$WORK/mf.csv" >&2; exit 1; }
done
[ "$(wc -l <"$WORK/mf.csv")" = 4 ] || { cat "$WORK/mf.csv" >&2; exit 1; }
for c in report "report --tree" dump "export --format jsonl -o $WORK/mf.jsonl" "export --format perfetto -o $WORK/mf.json"; do
    rm -f "$WORK/mf.jsonl" "$WORK/mf.json"
    small=$(max_rss "$CUTAP" $c "$WORK/mf20000") || { say "  $c failed"; exit 1; }
    rm -f "$WORK/mf.jsonl" "$WORK/mf.json"
    big=$(max_rss "$CUTAP" $c "$WORK/mf200000") || { say "  $c failed"; exit 1; }
    say "  $c: max RSS $small KiB (0.48 M calls), $big KiB (4.8 M calls)"
    [ "$big" -lt 65536 ] && [ "$big" -lt $((small + 20480)) ] || { say "  $c: memory grows with the calls"; exit 1; }
done
rm -rf "$WORK"/mf*
