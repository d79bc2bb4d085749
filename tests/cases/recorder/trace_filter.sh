#!/usr/bin/env bash
# -e globs, layer=hidden and exclusions record exactly the calls selected; a
# bad filter is refused by the command and, given through CUTAP_FILTER, by
# the library with the same message (in the directory's registry, not on the
# program's stderr).
. "$(dirname "$0")/../../lib/init.sh"

"$CUTAP" trace -o "$WORK/f1" -e 'cuMem*' -- $T/t_paths_pie plt >"$WORK/f1.out" 2>/dev/null || exit 1
called "$WORK/f1.out" | grep '^cuMem' >"$WORK/f1.called"
report_names "$WORK/f1" >"$WORK/f1.seen" && same_counts "$WORK/f1.called" "$WORK/f1.seen" || exit 1
"$CUTAP" trace -o "$WORK/f2" -e 'layer=hidden' -- $T/t_paths_pie hidden >"$WORK/f2.out" 2>/dev/null || exit 1
called "$WORK/f2.out" | grep '#' >"$WORK/f2.called"
report_names "$WORK/f2" >"$WORK/f2.seen" && same_counts "$WORK/f2.called" "$WORK/f2.seen" || exit 1
"$CUTAP" trace -o "$WORK/f3" -e '!cuMem*,!layer=hidden' -- $T/t_paths_pie hidden >"$WORK/f3.out" 2>/dev/null || exit 1
called "$WORK/f3.out" | grep -v -e '^cuMem' -e '#' >"$WORK/f3.called"
report_names "$WORK/f3" >"$WORK/f3.seen" && same_counts "$WORK/f3.called" "$WORK/f3.seen" || exit 1
"$CUTAP" trace -o "$WORK/f4" -e 'layer=bogus' -- true 2>"$WORK/f4.err"; [ $? = 2 ] && grep -q 'layer= takes' "$WORK/f4.err" || exit 1
"$CUTAP" trace -o "$WORK/f5" -e 'cuMem*,' -- true 2>"$WORK/f5.err"; [ $? = 2 ] && grep -q 'empty term' "$WORK/f5.err" || exit 1
# The library, given the same language directly, refuses the same way,
# in the directory's registry, not on the program's stderr; no trace.
CUTAP_FILTER='cuMem*,layer=bogus' CUTAP_TRACE=$WORK/f6 LD_PRELOAD=$LIB $T/t_record many 2 >/dev/null 2>"$WORK/f6.err" || exit 1
reg_says "$WORK/f6" "invalid filter 'cuMem\*,layer=bogus': layer= takes driver, hidden, runtime, cublas, .*, nvtx" \
    && [ ! -s "$WORK/f6.err" ] && ! ls "$WORK/f6"/*.cutap 2>/dev/null
