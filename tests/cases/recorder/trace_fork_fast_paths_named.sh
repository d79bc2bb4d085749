#!/usr/bin/env bash
# A trace fast path is handed out to an id already named in the file only,
# and does not check (issue #27: one line fewer a traced call). A forked
# child writes a new file: every fast path its parent had goes back to the
# general path, which names the id in the child's file first. t_fork warm:
# both make 5 cuCtxGetCurrent, the parent before the fork (its fast path
# taken); the child's file must name them (without the child's reset the
# child's calls are recorded under an id its file never names), and each
# process takes the fast path after its own first call.
. "$(dirname "$0")/../../lib/init.sh"

"$CUTAP" trace -o "$WORK/tw" -- $T/t_fork warm >"$WORK/tw.out" 2>&1 || { cat "$WORK/tw.out" >&2; exit 1; }
parent=$(sed -n 's/^parent \([0-9]*\):.*/\1/p' "$WORK/tw.out"); child=$(sed -n 's/^child \([0-9]*\):.*/\1/p' "$WORK/tw.out")
[ -n "$child" ] && [ "$(ls "$WORK/tw" | wc -l)" = 2 ] || { say "  want 2 trace files:"; ls "$WORK/tw" >&2; exit 1; }
"$CUTAP" report --by process --format csv "$WORK/tw" >"$WORK/tw.csv" 2>"$WORK/tw.err" || { cat "$WORK/tw.err" >&2; exit 1; }
for p in "$parent" "$child"; do
    grep -q "^driver,cuCtxGetCurrent,5,0,.*,$p\$" "$WORK/tw.csv" \
        || { say "  process $p: not 5 named cuCtxGetCurrent calls:"; cat "$WORK/tw.csv" >&2; exit 1; }
done
# each file names every id it records (dump shows a name for every call)
for f in "$WORK"/tw/*; do
    "$CUTAP" dump "$f" >"$WORK/tw.dump" 2>&1 || { cat "$WORK/tw.dump" >&2; exit 1; }
    ! grep -q "id#[0-9]" "$WORK/tw.dump" || { say "  $f has unnamed calls:"; head "$WORK/tw.dump" >&2; exit 1; }
done
# the fast path was taken after each process's first call in its file
# (CUTAP_DIAG_PATHS with %p: the child, which leaves through exit() in
# warm mode, writes its own counts, from the fork on)
rm -f "$WORK"/dw.*
CUTAP_DIAG_PATHS="$WORK/dw.%p" CUTAP_TRACE="$WORK/tw2" LD_PRELOAD=$LIB $T/t_fork warm >"$WORK/tw2.out" || exit 1
parent=$(sed -n 's/^parent \([0-9]*\):.*/\1/p' "$WORK/tw2.out"); child=$(sed -n 's/^child \([0-9]*\):.*/\1/p' "$WORK/tw2.out")
for p in "$parent" "$child"; do
    [ -f "$WORK/dw.$p" ] || { say "  no CUTAP_DIAG_PATHS counts of process $p:"; ls "$WORK" >&2; exit 1; }
    n=$(awk '$3 == "general" && $4 == "cuCtxGetCurrent" { c = $5 } END { print c + 0 }' "$WORK/dw.$p")
    [ "$n" = 1 ] || { say "  process $p: $n of 5 cuCtxGetCurrent calls took the general path (want the first only)"; cat "$WORK/dw.$p" >&2; exit 1; }
done
exit 0
