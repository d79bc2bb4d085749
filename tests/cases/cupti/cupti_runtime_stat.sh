#!/usr/bin/env bash
# cutap stat --runtime=cupti counts the runtime calls too.
. "$(dirname "$0")/../../lib/init.sh"

"$CUTAP" stat --runtime=cupti -o "$WORK/cs.txt" -- $T/t_static_rt >/dev/null 2>"$WORK/cs.err" || exit 1
grep -qE '^ .* 203 .* runtime +cudaMalloc$' "$WORK/cs.txt" && grep -qE ' 203 .* driver +cuMemAlloc_v2$' "$WORK/cs.txt" \
    || { cat "$WORK/cs.txt" >&2; exit 1; }
"$CUTAP" stat -o "$WORK/cs2.txt" -- $T/t_static_rt >/dev/null 2>&1 || exit 1
! grep -q runtime "$WORK/cs2.txt" || { cat "$WORK/cs2.txt" >&2; exit 1; }
