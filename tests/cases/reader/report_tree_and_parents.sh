#!/usr/bin/env bash
# cuProfilerStart (fake) calls cuDriverGetVersion: report --tree puts it
# under its caller (text, CSV, JSON) with the caller's self time its total
# minus the callee's, the exports (SQLite, JSON lines) name the caller as
# parent; a caller left out by -e leaves the inner call at the top.
. "$(dirname "$0")/../../lib/init.sh"

"$CUTAP" trace -o "$WORK/rt" -- $T/t_paths_pie nested >/dev/null 2>&1 || exit 1
"$CUTAP" report --tree "$WORK/rt" >"$WORK/rt.txt" || exit 1
grep -qE '^ +1 +[0-9]+ +[0-9]+ driver  cuProfilerStart$' "$WORK/rt.txt" \
    && grep -qE '^ +1 +[0-9]+ +[0-9]+ driver    cuDriverGetVersion$' "$WORK/rt.txt" || { cat "$WORK/rt.txt" >&2; exit 1; }
"$CUTAP" report --tree --format csv "$WORK/rt" >"$WORK/rt.csv" || exit 1
[ "$(head -1 "$WORK/rt.csv")" = path,layer,name,depth,calls,total_ns,self_ns,unfinished ] || exit 1
# self time of the caller = its total minus the callee's
awk -F, '$3=="cuProfilerStart" {t=$6; s=$7} $3=="cuDriverGetVersion" && $1=="cuProfilerStart > cuDriverGetVersion" {c=$6; ok=($4==1)}
         END {exit !(ok && t == s + c)}' "$WORK/rt.csv" || { cat "$WORK/rt.csv" >&2; exit 1; }
"$CUTAP" report --tree --by thread "$WORK/rt" >/dev/null 2>&1; [ $? = 2 ] || exit 1
command -v python3 >/dev/null || exit 0
"$CUTAP" export --format sqlite -o "$WORK/rt.db" "$WORK/rt" || exit 1
"$CUTAP" export --format jsonl -o "$WORK/rt.jsonl" "$WORK/rt" || exit 1
"$CUTAP" report --tree --format json "$WORK/rt" >"$WORK/rt.json" || exit 1
python3 "$TL/tree_parents_exports.py" "$WORK/rt.db" "$WORK/rt.jsonl" "$WORK/rt.json" || exit 1
# The caller left out by a filter: the inner call has no known parent.
"$CUTAP" trace -o "$WORK/rt2" -e '!cuProfilerStart' -- $T/t_paths_pie nested >/dev/null 2>&1 || exit 1
all=$("$CUTAP" report --format csv "$WORK/rt2" | awk -F, '$2=="cuDriverGetVersion" {print $3}')
top=$("$CUTAP" report --tree --format csv "$WORK/rt2" | awk -F, '$1=="cuDriverGetVersion" {print $5}')
[ -n "$all" ] && [ "$all" = "$top" ] && ! "$CUTAP" report --tree --format csv "$WORK/rt2" | grep -q ' > ' \
    || { say "  filtered caller: $all calls, $top at the top"; exit 1; }
