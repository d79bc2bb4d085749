#!/usr/bin/env bash
# What the reader must survive from a real program: pops with nothing
# open, an end of an unknown id, a start never ended, 300 nested ranges,
# ranges open at exit (unfinished: they end, for a viewer, at their
# thread's last call). Also under AddressSanitizer when built.
. "$(dirname "$0")/../../lib/init.sh"

[ -x $T/t_nvtx ] || exit 77
$T/t_nvtx hostile >"$WORK/nh.bare" 2>&1 || exit 1
"$CUTAP" trace -o "$WORK/nh" -- $T/t_nvtx hostile >"$WORK/nh.out" 2>/dev/null || exit 1
diff "$WORK/nh.bare" "$WORK/nh.out" >&2 || exit 1
"$CUTAP" dump "$WORK/nh" >"$WORK/nh.dump" || exit 1
nvtx_names "$WORK/nh.dump" >"$WORK/nh.names"
pad=$(printf '%*s' 598 '')
grep -q ' range "never ended" <unfinished> (start/end)$' "$WORK/nh.dump" || { say "  no unfinished start/end range"; exit 1; }
grep -qx "${pad}range \"level 299\"" "$WORK/nh.names" && grep -qx "${pad}  cuDriverGetVersion" "$WORK/nh.names" \
    || { say "  level 299 not at depth 299"; exit 1; }
[ "$(grep -c '^nvtxRangePop$' "$WORK/nh.names")" = 2 ] || { say "  pops with none open not at the top"; exit 1; }
tail -5 "$WORK/nh.names" | tr '\n' '|' | grep -qx 'range "left open"|  nvtxRangePushA|  range "left open too"|    nvtxRangePushA|    cuDriverGetVersion|' \
    || { say "  ranges left open:"; tail -5 "$WORK/nh.names" >&2; exit 1; }
"$CUTAP" report --tree --format csv "$WORK/nh" | grep -q '^.*level 299 > cuDriverGetVersion,driver,cuDriverGetVersion,300,1,' \
    || { say "  tree: no call at depth 300"; exit 1; }
for fmt in perfetto jsonl sqlite; do "$CUTAP" export --format $fmt -o "$WORK/nh.$fmt" "$WORK/nh" || exit 1; done
if command -v python3 >/dev/null; then
    python3 "$TL/nvtx_unbalanced_exports.py" "$WORK" || exit 1
fi
A=$B/asan/cutap
[ -x "$A" ] || exit 0
SAN_LEAKS=$(san_leaks "$A")
for fmt in "dump" "report --tree" "report" "export --force --format perfetto -o $WORK/nh.a.json" \
    "export --force --format jsonl -o $WORK/nh.a.jsonl" "export --force --format sqlite -o $WORK/nh.a.db"; do
    # shellcheck disable=SC2086
    sanitized "$A" $fmt "$WORK/nh" >/dev/null 2>"$WORK/nh.san" || { say "  ASan cutap $fmt:"; head -30 "$WORK/nh.san" >&2; exit 1; }
    if grep -q -e 'Sanitizer' -e 'runtime error' "$WORK/nh.san"; then head -30 "$WORK/nh.san" >&2; exit 1; fi
done
exit 0
