#!/usr/bin/env bash
# The same exactness test on the slow path (CUTAP_LOG: the callbacks), every
# call logged.
. "$(dirname "$0")/../../lib/init.sh"

CUTAP_LOG=$WORK/exact.log LD_PRELOAD=$LIB $T/exact && [ "$(wc -l <"$WORK/exact.log")" -ge 600 ]
