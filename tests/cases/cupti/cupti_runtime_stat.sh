#!/usr/bin/env bash
# cutap stat counts the runtime calls of a static copy too: by default
# (the copy's own reports, counted by the recorder's fused path) and with
# --runtime=cupti (the general path), the same calls and errors per
# function; with --runtime=symbols it does not.
. "$(dirname "$0")/../../lib/init.sh"

for opt in --runtime=cupti --runtime=all; do
    rm -f "$WORK/cs.txt"; "$CUTAP" stat $opt -o "$WORK/cs.txt" -- $T/t_static_rt >/dev/null 2>"$WORK/cs.err" || exit 1
    grep -qE '^ .* 203 .* runtime +cudaMalloc$' "$WORK/cs.txt" && grep -qE ' 203 .* driver +cuMemAlloc_v2$' "$WORK/cs.txt" \
        || { say "  $opt:"; cat "$WORK/cs.txt" >&2; exit 1; }
    # calls and errors of each runtime function (cudaGetDeviceCount, made
    # before cuInit, is seen by default only)
    awk '$NF != "cudaGetDeviceCount" && $(NF-1) == "runtime" { print $NF, $3, $4 }' "$WORK/cs.txt" | sort >"$WORK/cs$opt.rows"
done
cmp -s "$WORK/cs--runtime=cupti.rows" "$WORK/cs--runtime=all.rows" && [ "$(wc -l <"$WORK/cs--runtime=all.rows")" = 9 ] \
    && grep -qx 'cudaMalloc 203 1' "$WORK/cs--runtime=all.rows" \
    || { say "  runtime rows differ between the paths:"; diff "$WORK/cs--runtime=cupti.rows" "$WORK/cs--runtime=all.rows" >&2; cat "$WORK/cs--runtime=all.rows" >&2; exit 1; }
"$CUTAP" stat -o "$WORK/cs3.txt" -- $T/t_static_rt >/dev/null 2>&1 || exit 1
grep -qE '^ .* 64 .* runtime +cudaDeviceSynchronize$' "$WORK/cs3.txt" && grep -qE ' 1 .* runtime +cudaGetDeviceCount$' "$WORK/cs3.txt" \
    || { say "  default:"; cat "$WORK/cs3.txt" >&2; exit 1; }
"$CUTAP" stat --runtime=symbols -o "$WORK/cs2.txt" -- $T/t_static_rt >/dev/null 2>&1 || exit 1
! grep -q runtime "$WORK/cs2.txt" || { cat "$WORK/cs2.txt" >&2; exit 1; }
