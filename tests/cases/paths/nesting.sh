#!/usr/bin/env bash
# A call made inside another (the fake cuProfilerStart calls
# cuDriverGetVersion) is logged one level deeper, before its parent (lines
# are written when a call returns).
. "$(dirname "$0")/../../lib/init.sh"

traced_equal nested $T/t_paths_pie nested || exit 1
[ "$(python3 "$TL/jsonl_count.py" --names "$WORK/nested.jsonl" type=call depth=1)" = cuDriverGetVersion ] \
    || { say "  no nested call at depth 1"; exit 1; }
