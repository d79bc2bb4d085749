#!/usr/bin/env bash
# CUTAP_HIDDEN=observe: the requests are logged by table name, no slot is
# wrapped.
. "$(dirname "$0")/../../lib/init.sh"

CUTAP_HIDDEN=observe CUTAP_LOG=$WORK/obs.log LD_PRELOAD=$LIB $T/t_paths_pie hidden >/dev/null || exit 1
! grep -q '#[0-9]' "$WORK/obs.log" && grep -q 'table=FAKE_SIZED' "$WORK/obs.log"
