#!/usr/bin/env bash
# examples/memlimit, a HAMi-style limiter on the callback API (loaded
# required, '+'): with CUTAP_MEMLIMIT_BYTES=10000 (the first version's
# setting) the third 4096-byte cuMemAlloc_v2 is refused without reaching
# the driver, and fits again after a free; with CUTAP_MEMLIMIT=0:10000,
# 1:20000 every allocation path counts against its device (managed,
# async, pools, pitch rows, cuMemCreate on the device its properties
# name), frees and releases give bytes back, and cuMemGetInfo and NVML
# (nvmlDeviceGetMemoryInfo and _v2, the fake libnvidia-ml) report the cap
# and the bytes held; a refused call is in the trace as skipped.
. "$(dirname "$0")/../../lib/init.sh"

export CUTAP_MEMLIMIT_NAME=ex$$ CUTAP_PLUGINS=+$B/examples/memlimit.so
trap 'rm -f /dev/shm/cutap-memlimit.$CUTAP_MEMLIMIT_NAME' EXIT
CUTAP_MEMLIMIT_BYTES=10000 LD_PRELOAD=$LIB $T/t_memlimit || exit 1
rm -f /dev/shm/cutap-memlimit.$CUTAP_MEMLIMIT_NAME
CUTAP_MEMLIMIT=0:10000,1:20000 LD_LIBRARY_PATH=$FL:$LD_LIBRARY_PATH LD_PRELOAD=$LIB $T/t_memlimit paths \
    >"$WORK/p.out" 2>&1
grep -qx 'paths OK' "$WORK/p.out" || { cat "$WORK/p.out" >&2; exit 1; }
# a refusal in the trace: skipped, with the result the program got
CUTAP_MEMLIMIT=10000 "$CUTAP" trace -o "$WORK/t" -- $T/t_memlimit try 20000 >"$WORK/t.out" 2>"$WORK/t.err" || exit 1
grep -qx 'try 20000: 2' "$WORK/t.out" || { cat "$WORK/t.out" "$WORK/t.err" >&2; exit 1; }
"$CUTAP" dump "$WORK/t" | grep -q 'cuMemAlloc_v2(.*bytesize=20000) = CUDA_ERROR_OUT_OF_MEMORY (2) <[^>]*> (skipped)$' \
    || { "$CUTAP" dump "$WORK/t" | grep cuMemAlloc >&2; exit 1; }
# a bad setting: the required limiter stops the program
CUTAP_MEMLIMIT=lots LD_PRELOAD=$LIB $T/t_memlimit try 1 >"$WORK/b.out" 2>"$WORK/b.err"
[ $? = 127 ] && grep -q 'memlimit: set CUTAP_MEMLIMIT' "$WORK/b.err" || { cat "$WORK/b.err" >&2; exit 1; }
