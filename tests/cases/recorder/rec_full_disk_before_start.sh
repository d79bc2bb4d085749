#!/usr/bin/env bash
# The trace directory on a filesystem full before the program starts:
# the program runs to its end as it does bare (same output, same
# status, nothing on its stderr), with and without fallocate, trace and
# count modes; cutap trace says no file could be made.
. "$(dirname "$0")/../../lib/init.sh"

m=$WORK/fullfs; small_fs "$m" 1m || exit $?
mkdir -p "$m/t" "$m/c" "$m/n"; fill_fs "$m"
UNDER="CUTAP_TRACE=$m/t LD_PRELOAD=$LIB" bare_same ff1 $T/t_record many 3000 || exit 1
UNDER="CUTAP_COUNT=$m/c LD_PRELOAD=$LIB" bare_same ff2 $T/t_record many 3000 || exit 1
UNDER="CUTAP_TRACE=$m/n LD_PRELOAD=$LIB:$T/libnofalloc.so" bare_same ff3 $T/t_record many 3000 || exit 1
UNDER="CUTAP_COUNT=$m/n LD_PRELOAD=$LIB:$T/libnofalloc.so" bare_same ff4 $T/t_record mix 300 || exit 1
"$CUTAP" trace -o "$m/cli" -- $T/t_record many 3000 >"$WORK/ff5.out" 2>"$WORK/ff5.err"; rc=$?
[ $rc = 0 ] && cmp -s "$WORK/ff1.bo" "$WORK/ff5.out" || { say "  cutap trace: exit $rc"; cat "$WORK/ff5.err" >&2; exit 1; }
grep -q 'No space left on device' "$WORK/ff5.err" || { cat "$WORK/ff5.err" >&2; exit 1; }
# cutap stat with its temporary directory there: the program as bare,
# and no claim that no call was made.
TMPDIR=$m "$CUTAP" stat -- $T/t_record many 3000 >"$WORK/ff6.out" 2>"$WORK/ff6.err"; rc=$?
[ $rc = 0 ] && cmp -s "$WORK/ff1.bo" "$WORK/ff6.out" || { say "  cutap stat: exit $rc"; cat "$WORK/ff6.err" >&2; exit 1; }
grep -q 'No space left on device' "$WORK/ff6.err" && ! grep -q 'no CUDA calls$' "$WORK/ff6.err" \
    || { cat "$WORK/ff6.err" >&2; exit 1; }
