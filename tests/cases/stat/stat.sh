#!/usr/bin/env bash
# CUTAP_STAT=FILE (the library alone): the table counts calls and errors per
# name.
. "$(dirname "$0")/../../lib/init.sh"

CUTAP_STAT=$WORK/stat.txt LD_PRELOAD=$LIB $T/t_paths_now plt >/dev/null || exit 1
awk '$NF == "cuMemAlloc_v2" && $3 == 2 && $4 == 1 {ok=1} END {exit !ok}' "$WORK/stat.txt" \
    || { say "  stat table:"; cat "$WORK/stat.txt" >&2; exit 1; }
grep -q 'cuMemFree_v2' "$WORK/stat.txt"
