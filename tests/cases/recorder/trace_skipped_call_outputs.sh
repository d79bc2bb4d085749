#!/usr/bin/env bash
# A plugin skips cuDeviceGetCount (writing the count itself): the record
# says skipped and holds no output read from the caller's memory.
. "$(dirname "$0")/../../lib/init.sh"

CUTAP_PLUGINS=$T/apitest.so CUTAP_TRACE=$WORK/sk LD_PRELOAD=$LIB $T/t_api >/dev/null 2>&1 || exit 1
"$CUTAP" dump "$WORK/sk" >"$WORK/sk.txt" || exit 1
grep -qE ' cuDeviceGetCount\(count=0x[0-9a-f]+\) = CUDA_SUCCESS <[^>]*> \(skipped\)$' "$WORK/sk.txt" \
    || { grep cuDeviceGetCount "$WORK/sk.txt" >&2; exit 1; }
