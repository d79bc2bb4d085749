#!/usr/bin/env bash
# fork: CUTAP_LOG=log.%p gives the parent and the child their own logs, each
# with its own calls.
. "$(dirname "$0")/../../lib/init.sh"

d=$WORK/fork; mkdir -p "$d"
CUTAP_LOG="$d/log.%p" LD_PRELOAD=$LIB $T/t_fork >"$d/out" || exit 1
parent=$(sed -n 's/^parent \([0-9]*\):.*/\1/p' "$d/out"); child=$(sed -n 's/^child \([0-9]*\):.*/\1/p' "$d/out")
[ -f "$d/log.$parent" ] && [ -f "$d/log.$child" ] || { say "  missing per-process logs"; ls "$d" >&2; exit 1; }
[ "$(top_names "$d/log.$child" | sort | uniq -c | awk '{print $1, $2}')" = "3 cuMemAlloc_v2" ] \
    || { say "  child log:"; cat "$d/log.$child" >&2; exit 1; }
[ "$(top_names "$d/log.$parent" | tr '\n' ' ')" = "cuInit cuDriverGetVersion " ] \
    || { say "  parent log:"; cat "$d/log.$parent" >&2; exit 1; }
