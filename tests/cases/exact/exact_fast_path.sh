#!/usr/bin/env bash
# Exactness on the fast path (tests/exact_main.c, generated): each of the
# typed driver exports is called with distinct argument patterns and a
# forced error; the fake driver must see exactly those words on an aligned
# stack and the caller get exactly that error (11-argument cuLaunchKernel,
# floats, doubles, structs by value).
. "$(dirname "$0")/../../lib/init.sh"

LD_PRELOAD=$LIB $T/exact
