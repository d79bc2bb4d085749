#!/usr/bin/env bash
# Functions of 13.0 missing from the libcublas.so.12 the layer is bound
# to: the layer's status (1) for cublasCreate_v2, 0 for
# cublasGetCudartVersion (it has no status; was 500), both recorded.
. "$(dirname "$0")/../../lib/init.sh"

no_cache_ok || exit 77
d=$WORK/oldmiss
late_trace oldmiss missing $T/min12/libcublas.so.12 || exit 1
grep -qx 'cublasCreate_v2 = 1' "$d.out" && grep -qx 'cublasGetCudartVersion = 0' "$d.out" \
    || { say "  statuses:"; grep ' = ' "$d.out" >&2; exit 1; }
"$CUTAP" export --format jsonl -o "$d.jsonl" "$d.tr" || exit 1
[ "$(jsonl_calls "$d.jsonl" cublasCreate_v2 | cut -d' ' -f1)" = 1 ] \
    && [ "$(jsonl_calls "$d.jsonl" cublasGetCudartVersion | cut -d' ' -f1)" = 0 ] \
    || { say "  missing functions' calls not recorded with their statuses"; exit 1; }
