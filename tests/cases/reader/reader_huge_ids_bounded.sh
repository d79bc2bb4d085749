#!/usr/bin/env bash
# 500 crafted 12 KiB files naming ids near 2^20 and 2^32 (and a
# counter chunk whose first id is near 2^32): memory follows what the
# files hold, not the id numbers (was 2 GB for report and dump).
. "$(dirname "$0")/../../lib/init.sh"

[ -x $MK ] && [ -x /usr/bin/time ] || exit 77
d=$WORK/huge; rm -rf "$d"; mkdir -p "$d"
$MK hugeids "$d" 500 || exit 1
for c in dump report "report --tree" "export --format jsonl -o $WORK/huge.jsonl"; do
    rm -f "$WORK/huge.jsonl"
    rss=$(max_rss "$CUTAP" $c "$d") || { say "  $c failed"; exit 1; }
    say "  $c: max RSS $rss KiB"
    [ "$rss" -lt 204800 ] || { say "  $c: max RSS $rss KiB, bound 200 MiB"; exit 1; }
done
"$CUTAP" report --format csv "$d" | grep -q '^driver,id#4294967295,500,' || { say "  unnamed id not reported"; exit 1; }
