#!/usr/bin/env bash
# The exactness test of the libraries (exact_lib_without_cutap) under cutap
# with no client: wrappers straight to the real function.
. "$(dirname "$0")/../../lib/init.sh"

EXPECT_CUTAP=1 LD_PRELOAD=$LIB libs_env $T/exact_lib >"$WORK/el1.out" || { tail -3 "$WORK/el1.out" >&2; exit 1; }
exact_lib_ok "$WORK/el1.out"
