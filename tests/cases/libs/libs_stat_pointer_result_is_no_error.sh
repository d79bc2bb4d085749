#!/usr/bin/env bash
# cudaGetErrorString returns a pointer, not a status: never an error,
# on the fused counting path as on the callback path.
. "$(dirname "$0")/../../lib/init.sh"

for nf in 0 1; do
    EXPECT_CUTAP=1 CUTAP_NO_FUSED=$nf libs_env "$CUTAP" stat -o "$WORK/lp$nf.txt" -- $T/t_libs_now link >/dev/null || exit 1
    awk '$NF == "cudaGetErrorString" && $3 == 2 && $4 == 0 {ok=1} END {exit !ok}' "$WORK/lp$nf.txt" \
        || { say "  CUTAP_NO_FUSED=$nf: 2 calls and 0 errors wanted:"; grep -e Errors -e cudaGetErrorString "$WORK/lp$nf.txt" >&2; exit 1; }
done
