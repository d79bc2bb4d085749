#!/usr/bin/env bash
# The GEMMs on matrices in device memory, as in a real program (the fake
# driver's device pointers are unmapped, like a real GPU's): tracing
# must not read them, and change nothing.
. "$(dirname "$0")/../../lib/init.sh"

libs_env $T/t_libs_pie link dev >"$WORK/ldev.bare" 2>&1 || { tail -3 "$WORK/ldev.bare" >&2; exit 1; }
rm -rf "$WORK/ldev"
EXPECT_CUTAP=1 libs_env "$CUTAP" trace -o "$WORK/ldev" -- $T/t_libs_pie link dev >"$WORK/ldev.out" 2>"$WORK/ldev.err"
st=$?
[ $st = 0 ] || { say "  status $st under cutap trace; last calls recorded:"; "$CUTAP" dump "$WORK/ldev" 2>&1 | tail -2 >&2; exit 1; }
diff "$WORK/ldev.bare" "$WORK/ldev.out" >&2
