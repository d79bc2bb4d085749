#!/usr/bin/env bash
# 2,000,000 recorded calls (a 128 MiB trace): report, --tree, dump and
# the JSON lines export stay under 48 MiB (the reader streams the calls
# and drops the file's pages as it goes; report keeps rows, not samples;
# 22-25 MiB measured). The reader that held every call took 121 MiB, and
# before that 268-328 MiB.
# slow
. "$(dirname "$0")/../../lib/init.sh"

[ -x /usr/bin/time ] || exit 77
d=$WORK/m2
rm -rf "$d"
"$CUTAP" trace -o "$d" -- $T/t_record many 2000000 >/dev/null 2>&1 || exit 1
for c in report "report --tree" dump "export --format jsonl -o $WORK/m2.jsonl"; do
    rm -f "$WORK/m2.jsonl"
    rss=$(max_rss "$CUTAP" $c "$d") || { say "  $c failed"; exit 1; }
    say "  $c: max RSS $rss KiB"
    [ "$rss" -lt 49152 ] || { say "  $c: max RSS $rss KiB, bound 48 MiB"; exit 1; }
done
rm -rf "$d" "$WORK/m2.jsonl"
