#!/usr/bin/env bash
# cutap stat counts the runtime calls of a static copy too: by default
# (the copy's own reports) and with --runtime=cupti; with
# --runtime=symbols it does not.
. "$(dirname "$0")/../../lib/init.sh"

for opt in --runtime=cupti --runtime=all; do
    rm -f "$WORK/cs.txt"; "$CUTAP" stat $opt -o "$WORK/cs.txt" -- $T/t_static_rt >/dev/null 2>"$WORK/cs.err" || exit 1
    grep -qE '^ .* 203 .* runtime +cudaMalloc$' "$WORK/cs.txt" && grep -qE ' 203 .* driver +cuMemAlloc_v2$' "$WORK/cs.txt" \
        || { say "  $opt:"; cat "$WORK/cs.txt" >&2; exit 1; }
done
"$CUTAP" stat -o "$WORK/cs3.txt" -- $T/t_static_rt >/dev/null 2>&1 || exit 1
grep -qE '^ .* 64 .* runtime +cudaDeviceSynchronize$' "$WORK/cs3.txt" && grep -qE ' 1 .* runtime +cudaGetDeviceCount$' "$WORK/cs3.txt" \
    || { say "  default:"; cat "$WORK/cs3.txt" >&2; exit 1; }
"$CUTAP" stat --runtime=symbols -o "$WORK/cs2.txt" -- $T/t_static_rt >/dev/null 2>&1 || exit 1
! grep -q runtime "$WORK/cs2.txt" || { cat "$WORK/cs2.txt" >&2; exit 1; }
