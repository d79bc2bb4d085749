#!/usr/bin/env bash
# The exactness test of the libraries under CUTAP_LOG (the callback path):
# each call logged once, at depth 0.
. "$(dirname "$0")/../../lib/init.sh"

rm -f "$WORK/el2.log"
EXPECT_CUTAP=1 CUTAP_LOG=$WORK/el2.log LD_PRELOAD=$LIB libs_env $T/exact_lib >"$WORK/el2.out" \
    || { tail -3 "$WORK/el2.out" >&2; exit 1; }
exact_lib_ok "$WORK/el2.out" || exit 1
called "$WORK/el2.out" >"$WORK/el2.called"; top_names "$WORK/el2.log" >"$WORK/el2.seen"
same_counts "$WORK/el2.called" "$WORK/el2.seen"
