#!/usr/bin/env bash
# A shared libcudart whose functions also report to CUPTI, called from a
# static runtime function: each shared call reaches cutap through our
# wrapper and through CUPTI and is recorded once; the static one once;
# nesting as made (t_shared_rt.c). With and without correlationData.
. "$(dirname "$0")/../../lib/init.sh"

for corr in 0 1; do
    FAKE_CUPTI_NO_CORR=$corr "$CUTAP" trace --runtime=cupti -o "$WORK/cd$corr" -- $T/t_shared_rt 10 \
        >"$WORK/cd.out" 2>"$WORK/cd.err" || { cat "$WORK/cd.err" >&2; exit 1; }
    grep -q '^delivered 10$' "$WORK/cd.err" || { say "  CUPTI did not get the calls:"; cat "$WORK/cd.err" >&2; exit 1; }
    called "$WORK/cd.out" >"$WORK/cd.called"
    report_names "$WORK/cd$corr" >"$WORK/cd.seen" && same_counts "$WORK/cd.called" "$WORK/cd.seen" || exit 1
    "$CUTAP" report --tree --format csv "$WORK/cd$corr" >"$WORK/cd.csv" || exit 1
    grep -q '^cudaMalloc > cuMemAlloc_v2,driver,cuMemAlloc_v2,1,9,' "$WORK/cd.csv" \
        && grep -q '^cudaMemset > cudaMalloc > cuMemAlloc_v2,driver,cuMemAlloc_v2,2,1,' "$WORK/cd.csv" \
        && grep -q '^cudaMemset > cuMemsetD8_v2,driver,cuMemsetD8_v2,1,1,' "$WORK/cd.csv" \
        || { say "  corr $corr:"; cat "$WORK/cd.csv" >&2; exit 1; }
done
