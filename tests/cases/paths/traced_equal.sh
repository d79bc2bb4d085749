#!/usr/bin/env bash
# A program run bare (it must pass), then recorded (CUTAP_TRACE) on the
# generated fast paths and on the callback path: every call the program
# says it made (its CALL lines) is an outermost call of the JSON lines
# export, exactly once, in each. Arguments: PROGRAM [ARGS...], PROGRAM in build/tests;
# one case per line of tests/cases/variants.tsv.
. "$(dirname "$0")/../../lib/init.sh"

prog=$1; shift
case $prog in /*) ;; *) prog=$T/$prog ;; esac
traced_equal run "$prog" "$@"
