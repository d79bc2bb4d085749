#!/usr/bin/env bash
# A -e filter that selects none of the functions cutap knows (a typo)
# is said at start, by trace and stat; the command still runs. Filters
# that select something, a layer, or export-table slots say nothing.
. "$(dirname "$0")/../../lib/init.sh"

"$CUTAP" trace -o "$WORK/fw1" -e 'cuMemalloc*' -- $T/t_record many 2 >/dev/null 2>"$WORK/fw1.err" || exit 1
grep -q "^cutap: warning: -e 'cuMemalloc\*' selects none of the [0-9]* functions cutap knows" "$WORK/fw1.err" \
    || { cat "$WORK/fw1.err" >&2; exit 1; }
"$CUTAP" stat -e 'cudaGetDevic' -- $T/t_record many 2 >/dev/null 2>"$WORK/fw2.err" || exit 1
grep -q "selects none of the" "$WORK/fw2.err" || { cat "$WORK/fw2.err" >&2; exit 1; }
for f in 'cuMemAlloc*' 'layer=nvml' 'layer=hidden' '!cuInit' 'cublasSgemm_v2'; do
    "$CUTAP" trace -o "$WORK/fw3" -e "$f" -- $T/t_record many 2 >/dev/null 2>"$WORK/fw3.err" || exit 1
    ! grep -q warning "$WORK/fw3.err" || { say "  -e '$f' warned:"; cat "$WORK/fw3.err" >&2; exit 1; }
    rm -rf "$WORK/fw3"
done
