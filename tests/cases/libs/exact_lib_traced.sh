#!/usr/bin/env bash
# The exactness test of the libraries under cutap trace (the fused recorder,
# arguments and outputs read): every function recorded once, in its layer.
. "$(dirname "$0")/../../lib/init.sh"

rm -rf "$WORK/el3"
EXPECT_CUTAP=1 libs_env "$CUTAP" trace -o "$WORK/el3" -- $T/exact_lib >"$WORK/el3.out" 2>"$WORK/el3.err" \
    || { tail -3 "$WORK/el3.out" "$WORK/el3.err" >&2; exit 1; }
exact_lib_ok "$WORK/el3.out" || exit 1
sed -n 's/^LAYER //p' "$WORK/el3.out" >"$WORK/el3.called"
"$CUTAP" report --format csv "$WORK/el3" | awk -F, 'NR > 1 { for (i = 0; i < $3; i++) print $1, $2 }' >"$WORK/el3.seen" \
    || exit 1
same_counts "$WORK/el3.called" "$WORK/el3.seen"
