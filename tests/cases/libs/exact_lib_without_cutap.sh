#!/usr/bin/env bash
# The generated exactness test of the runtime and libraries
# (tests/exact_lib_main.c) calls every function of the fakes through dlsym
# on an RTLD_LOCAL handle: the fake must see exactly the argument words
# (dim3, float2/double2, floats, doubles, 33-argument calls), once, and the
# caller get exactly its result (status, pointer or count), untyped exports
# included. Bare: dlsym gives each fake's own function; the fakes see the
# words.
. "$(dirname "$0")/../../lib/init.sh"

libs_env $T/exact_lib >"$WORK/el0.out" || { tail -3 "$WORK/el0.out" >&2; exit 1; }
exact_lib_ok "$WORK/el0.out"
