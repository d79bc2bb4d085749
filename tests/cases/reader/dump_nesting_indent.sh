#!/usr/bin/env bash
# cuProfilerStart (fake) calls cuDriverGetVersion: one level deeper.
. "$(dirname "$0")/../../lib/init.sh"

"$CUTAP" trace -o "$WORK/dn" -- $T/t_paths_pie nested >/dev/null 2>&1 || exit 1
"$CUTAP" dump "$WORK/dn" | grep -A1 ' cuProfilerStart()' | tail -1 | grep -q '\]   cuDriverGetVersion('
