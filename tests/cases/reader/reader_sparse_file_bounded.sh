#!/usr/bin/env bash
# A 64 GiB sparse trace file (a chunk at each end, holes between):
# the holes are skipped, not read (was 84 s and 20 GB).
. "$(dirname "$0")/../../lib/init.sh"

[ -x $MK ] && [ -x /usr/bin/time ] || exit 77
f=$WORK/sparse.cutap
$MK sparse "$f" || exit 1
[ "$(stat -c %s "$f")" = 68719476736 ] || exit 1
[ "$(du -k "$f" | cut -f1)" -lt 1024 ] || { say "  this file system does not keep holes"; rm -f "$f"; exit 77; }
for c in dump report; do
    rss=$(max_rss "$CUTAP" $c "$f") || { say "  $c failed"; exit 1; }
    say "  $c: max RSS $rss KiB"
    [ "$rss" -lt 204800 ] || { say "  $c: max RSS $rss KiB, bound 200 MiB"; rm -f "$f"; exit 1; }
done
"$CUTAP" export --format jsonl -o "$WORK/sparse.jsonl" "$f" || exit 1
[ "$(python3 "$TL/jsonl_count.py" "$WORK/sparse.jsonl" type=call name=cuInit)" = 2 ] || { say "  both chunks' calls expected"; exit 1; }
rm -f "$f"
