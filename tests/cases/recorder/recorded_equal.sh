#!/usr/bin/env bash
# A program run under `cutap trace`: the report counts exactly the calls
# the program says it made (its CALL lines), per name. Arguments: PROGRAM
# [ARGS...], PROGRAM in build/tests; one case per line of
# tests/cases/variants.tsv.
. "$(dirname "$0")/../../lib/init.sh"

prog=$1; shift
case $prog in /*) ;; *) prog=$T/$prog ;; esac
recorded_equal run "$prog" "$@"
