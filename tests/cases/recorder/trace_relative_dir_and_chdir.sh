#!/usr/bin/env bash
# CUTAP_TRACE=relative: resolved where the process started, even if it
# changes directory before its first call.
. "$(dirname "$0")/../../lib/init.sh"

mkdir -p "$WORK/rel/elsewhere"
(cd "$WORK/rel" && CUTAP_TRACE=run1 LD_PRELOAD=$LIB sh -c "cd elsewhere && $T/t_record many 2" >/dev/null) || exit 1
[ "$(ls "$WORK/rel/run1" 2>/dev/null | wc -l)" = 1 ] && [ ! -e "$WORK/rel/elsewhere/run1" ]
