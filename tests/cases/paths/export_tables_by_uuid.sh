#!/usr/bin/env bash
# CUTAP_HIDDEN=UUID wraps only the table of that UUID.
. "$(dirname "$0")/../../lib/init.sh"

CUTAP_HIDDEN=fa4e0002000000000000000000000002 CUTAP_LOG=$WORK/uu.log LD_PRELOAD=$LIB $T/t_paths_pie hidden >/dev/null || exit 1
grep -q 'FAKE_NOSIZE#1' "$WORK/uu.log" && ! grep -q 'FAKE_SIZED#' "$WORK/uu.log"
