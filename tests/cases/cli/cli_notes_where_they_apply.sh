#!/usr/bin/env bash
# Issue #30: what the command says applies: a run in which no process made
# a CUDA call says so (not "0 processes traced into DIR"); a read-time
# filter (-e) that matches no function of the trace is warned about; the
# note on processes without runtime calls is printed by the plain report,
# not by `report --errors` nor when -e chose the functions shown.
. "$(dirname "$0")/../../lib/init.sh"

"$CUTAP" trace -o "$WORK/none" -- true 2>"$WORK/none.err" || exit 1
grep -q '^cutap: no process made a CUDA call: nothing was traced' "$WORK/none.err" && ! grep -q 'processes traced into' "$WORK/none.err" \
    || { cat "$WORK/none.err" >&2; exit 1; }
"$CUTAP" trace -o "$WORK/t" -- $T/t_paths_pie plt >/dev/null 2>&1 || exit 1
"$CUTAP" report -e 'noSuchFunction*' "$WORK/t" >"$WORK/e.out" 2>"$WORK/e.err" || exit 1
grep -q "warning: -e 'noSuchFunction\*' matches no function of this trace" "$WORK/e.err" || { cat "$WORK/e.err" >&2; exit 1; }
"$CUTAP" report -e 'cu*' "$WORK/t" 2>&1 | grep -q 'matches no function' && { say "  a filter that matches was warned about"; exit 1; }
"$CUTAP" report "$WORK/t" | grep -q '^note: process .* no runtime (cudart) call was recorded' \
    || { say "  the plain report lacks its note"; exit 1; }
for args in "--errors" "-e cuInit"; do
    # shellcheck disable=SC2086
    "$CUTAP" report $args "$WORK/t" 2>&1 | grep -q '^note: process' && { say "  report $args printed the runtime note"; exit 1; }
done
exit 0
