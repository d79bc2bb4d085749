#!/usr/bin/env bash
# Files of format version 1 (40-byte counters, every call timed),
# written by cutap 4f15382 (tests/fixtures/README), are still read.
. "$(dirname "$0")/../../lib/init.sh"

mkdir -p "$WORK/v1c" "$WORK/v1t"
gzip -dc tests/fixtures/v1-count.cutap.gz >"$WORK/v1c/vm.1.cutap" || exit 1
gzip -dc tests/fixtures/v1-trace.cutap.gz >"$WORK/v1t/vm.2.cutap" || exit 1
[ "$(od -An -tu4 -j8 -N4 "$WORK/v1c/vm.1.cutap" | tr -d ' ')" = 1 ] || { say "  not a version 1 file"; exit 1; }
"$CUTAP" report --format csv "$WORK/v1c" >"$WORK/v1c.csv" || exit 1
# (reader_version1_files.csv: the report of the counting-mode file)
diff "$HERE/reader_version1_files.csv" "$WORK/v1c.csv" >&2 || exit 1
"$CUTAP" report "$WORK/v1c" >"$WORK/v1c.txt" && ! grep -q '~' "$WORK/v1c.txt" || exit 1
"$CUTAP" report --format csv "$WORK/v1t" | grep -qx 'driver,cuMemAlloc_v2,3,2,4381,1460,35,4281,65,82.72,0,3' || exit 1
"$CUTAP" dump "$WORK/v1t" | grep -q ' cuGetErrorName(error=CUDA_ERROR_INVALID_VALUE, pStr=0x[0-9a-f]*→"CUDA_ERROR_INVALID_VALUE") = CUDA_SUCCESS'
