#!/usr/bin/env bash
# A program run bare (it must pass), then under cutap with CUTAP_LOG: every
# call the program says it made (its CALL lines) is in the log, exactly
# once, at depth 0. Arguments: PROGRAM [ARGS...], PROGRAM in build/tests;
# one case per line of tests/cases/variants.tsv.
. "$(dirname "$0")/../../lib/init.sh"

prog=$1; shift
case $prog in /*) ;; *) prog=$T/$prog ;; esac
traced_equal run "$prog" "$@"
