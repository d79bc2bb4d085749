#!/usr/bin/env bash
# cutap stat counts the calls of every layer, nested ones included.
. "$(dirname "$0")/../../lib/init.sh"

EXPECT_CUTAP=1 libs_env "$CUTAP" stat -o "$WORK/ls.txt" -- $T/t_libs_now link >/dev/null || exit 1
# calls errors layer name
for row in '2 1 runtime cudaMalloc' '2 0 runtime cudaMemcpy' '1 0 runtime cudaFree' '1 0 cublas cublasSgemm_v2' \
    '2 0 cublasLt cublasLtMatmul' '2 0 driver cuLaunchKernel' '1 0 driver cuMemAlloc_v2' '5 0 driver cuGetProcAddress_v2'; do
    awk -v w="$row" '$3 " " $4 " " $(NF-1) " " $NF == w {ok=1} END {exit !ok}' "$WORK/ls.txt" \
        || { say "  no row '$row':"; cat "$WORK/ls.txt" >&2; exit 1; }
done
