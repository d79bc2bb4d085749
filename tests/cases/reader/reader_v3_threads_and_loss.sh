#!/usr/bin/env bash
# A version 3 trace: a chunk passed to a second thread by a THREAD meta
# (that thread's run 1, earlier in the file than its run 0): its calls
# are its thread's, in run order (the child, starting at the same time
# as its parent, after it and indented); the loss fields give one
# warning per command on stderr.
. "$(dirname "$0")/../../lib/init.sh"

[ -x $MK ] || exit 77
d=$WORK/v3; rm -rf "$d"; mkdir -p "$d"
$MK v3 "$d" || exit 1
"$CUTAP" dump "$d" >"$WORK/v3.dump" 2>"$WORK/v3.err" || { say "  dump failed"; cat "$WORK/v3.err" >&2; exit 1; }
want='[1234/100] cuInit(
[1234/200] cuCtxSynchronize(
[1234/200]   cuMemAlloc_v2(
[1234/200] cuCtxSynchronize('
got=$(sed 's/^[0-9.]* //; s/(.*/(/' "$WORK/v3.dump")
[ "$got" = "$want" ] || { say "  dump:"; cat "$WORK/v3.dump" >&2; exit 1; }
w='cutap: warning: process 1234 (host): recording stopped early (No space left on device): 95000 calls not recorded, 3 kernel names not recorded'
one_warning() { [ "$(grep -c '^cutap: warning' "$1")" = 1 ] && grep -Fxq "$2" "$1"; }
one_warning "$WORK/v3.err" "$w" || { say "  dump stderr:"; cat "$WORK/v3.err" >&2; exit 1; }
for c in "report" "report --tree" "report --format json" "export --format jsonl -o $WORK/v3.jsonl" \
         "export --format perfetto -o $WORK/v3.json"; do
    "$CUTAP" $c "$d" >/dev/null 2>"$WORK/v3.err" || { say "  $c failed"; cat "$WORK/v3.err" >&2; exit 1; }
    one_warning "$WORK/v3.err" "$w" || { say "  $c stderr:"; cat "$WORK/v3.err" >&2; exit 1; }
done
# the per-process places of the exports carry the loss
[ "$(python3 "$TL/jsonl_count.py" "$WORK/v3.jsonl" type=process pid=1234 stopped=True stop_reason=space stop_errno=28 \
     lost_calls=95000 lost_names=3)" = 1 ] || { say "  no loss line in JSON lines"; grep -v '"call"' "$WORK/v3.jsonl" >&2; exit 1; }
grep -q '"process_labels".*95000 calls not recorded' "$WORK/v3.json" \
    || { say "  no loss label in the Perfetto JSON"; exit 1; }
"$CUTAP" report --by process --format json "$d" 2>/dev/null | grep -q '"lost_calls":95000' \
    || { say "  report --by process --format json has no lost_calls"; exit 1; }
if "$CUTAP" export --format sqlite -o "$WORK/v3.db" "$d" 2>/dev/null; then
    command -v sqlite3 >/dev/null || exit 0
    row=$(sqlite3 "$WORK/v3.db" 'SELECT pid, stopped, stop_reason, stop_errno, lost_calls, lost_names FROM processes')
    [ "$row" = "1234|1|space|28|95000|3" ] || { say "  SQLite processes row: $row"; exit 1; }
fi
