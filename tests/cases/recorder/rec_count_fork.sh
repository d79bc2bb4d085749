#!/usr/bin/env bash
# Counting mode across fork: the child's counters (its own table and
# entries) in its own file, none of the parent's calls in it.
. "$(dirname "$0")/../../lib/init.sh"

rm -rf "$WORK/cf"
CUTAP_COUNT=$WORK/cf LD_PRELOAD=$LIB $T/t_fork >"$WORK/cf.out" || exit 1
parent=$(sed -n 's/^parent \([0-9]*\):.*/\1/p' "$WORK/cf.out"); child=$(sed -n 's/^child \([0-9]*\):.*/\1/p' "$WORK/cf.out")
"$CUTAP" report --by process --format csv "$WORK/cf" 2>/dev/null | awk -F, 'NR > 1 { print $2, $3, $NF }' | sort >"$WORK/cf.got"
printf '%s\n' "cuDriverGetVersion 1 $parent" "cuInit 1 $parent" "cuMemAlloc_v2 3 $child" | sort | diff - "$WORK/cf.got" >&2
