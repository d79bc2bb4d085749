#!/usr/bin/env bash
# A result is an error when it is a status other than success, in every
# layer; a pointer result (cudaGetErrorString) never is.
. "$(dirname "$0")/../../lib/init.sh"

layers_trace le || exit 1
"$CUTAP" report --format csv "$WORK/le" >"$WORK/le.csv" || exit 1
for row in runtime,cudaMalloc,2,1, runtime,cudaMemcpy,1,0, runtime,cudaGetErrorString,1,0, \
    cublas,cublasGemmEx,2,1, nccl,ncclAllReduce,1,0, driver,cuMemAlloc_v2,1,0, driver,cuMemcpyHtoD_v2,1,0,; do
    grep -q "^$row" "$WORK/le.csv" || { say "  no row $row"; cat "$WORK/le.csv" >&2; exit 1; }
done
"$CUTAP" report "$WORK/le" >"$WORK/le.txt" || exit 1
grep -qE '^ +[0-9.]+ +[0-9]+ +2 +1 .* runtime +cudaMalloc$' "$WORK/le.txt" \
    && grep -qE ' nccl +ncclAllReduce$' "$WORK/le.txt" || { cat "$WORK/le.txt" >&2; exit 1; }
# the call tree: each driver call under the runtime call that made it
"$CUTAP" report --tree --format csv "$WORK/le" >"$WORK/le.tree" || exit 1
grep -q '^cudaMalloc > cuMemAlloc_v2,driver,cuMemAlloc_v2,1,1,' "$WORK/le.tree" \
    && grep -q '^cudaMemcpy > cuMemcpyHtoD_v2,driver,cuMemcpyHtoD_v2,1,1,' "$WORK/le.tree" \
    || { cat "$WORK/le.tree" >&2; exit 1; }
