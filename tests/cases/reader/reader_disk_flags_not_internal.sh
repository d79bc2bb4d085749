#!/usr/bin/env bash
# A call record's flags byte with bits the format does not define
# (0x80 is the reader's own range flag in memory): read as a call, no
# crash in any command (was SIGSEGV in report --tree, dump, export).
. "$(dirname "$0")/../../lib/init.sh"

[ -x $MK ] || exit 77
# (under AddressSanitizer too, where built: the plain command may read
# a stray address that happens to be mapped)
d=$WORK/fl; rm -rf "$d"; mkdir -p "$d"
$MK flags "$d" || exit 1
for x in "$CUTAP" "$B/asan/cutap"; do
    [ -x "$x" ] || continue
    for c in "dump" "report" "report --tree" "report --by thread --format json" \
             "export --format jsonl -o $WORK/fl.jsonl" "export --format perfetto -o $WORK/fl.json"; do
        rm -f "$WORK/fl.jsonl" "$WORK/fl.json"
        SAN_LEAKS=0 sanitized "$x" $c "$d" >/dev/null 2>"$WORK/fl.err" \
            || { say "  $x $c: exit $?"; head -20 "$WORK/fl.err" >&2; exit 1; }
    done
done
# every record read as a call
"$CUTAP" export --format jsonl -o "$WORK/fl.calls.jsonl" "$d" || exit 1
[ "$(python3 "$TL/jsonl_count.py" "$WORK/fl.calls.jsonl" type=call name=cuInit)" = 58 ] || { "$CUTAP" dump "$d" >&2; exit 1; }
