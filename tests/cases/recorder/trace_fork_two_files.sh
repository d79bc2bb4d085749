#!/usr/bin/env bash
# fork under cutap trace: two files, each process with its own calls (report
# --by process).
. "$(dirname "$0")/../../lib/init.sh"

"$CUTAP" trace -o "$WORK/tf" -- $T/t_fork >"$WORK/tf.out" 2>&1 || { cat "$WORK/tf.out" >&2; exit 1; }
parent=$(sed -n 's/^parent \([0-9]*\):.*/\1/p' "$WORK/tf.out"); child=$(sed -n 's/^child \([0-9]*\):.*/\1/p' "$WORK/tf.out")
[ "$(ls "$WORK/tf" | wc -l)" = 2 ] || { say "  want 2 trace files:"; ls "$WORK/tf" >&2; exit 1; }
"$CUTAP" report --by process --format csv "$WORK/tf" >"$WORK/tf.csv" || exit 1
# columns: layer,name,calls,...,host,pid
grep -q "^driver,cuMemAlloc_v2,3,0,.*,$child\$" "$WORK/tf.csv" && grep -q "^driver,cuInit,1,0,.*,$parent\$" "$WORK/tf.csv" \
    && grep -q "^driver,cuDriverGetVersion,1,0,.*,$parent\$" "$WORK/tf.csv" \
    && [ "$(grep -c '^driver' "$WORK/tf.csv")" = 3 ] || { cat "$WORK/tf.csv" >&2; exit 1; }
