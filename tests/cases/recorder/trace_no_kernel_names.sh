#!/usr/bin/env bash
# CUTAP_KERNEL_NAMES=0: the recorder asks the driver nothing itself, so
# launches keep their handle only (the same run names them otherwise).
. "$(dirname "$0")/../../lib/init.sh"

CUTAP_KERNEL_NAMES=0 "$CUTAP" trace -o "$WORK/nk" -- $T/t_record kernels >/dev/null 2>&1 || exit 1
"$CUTAP" export --format jsonl -o "$WORK/nk.jsonl" "$WORK/nk" || exit 1
count() { python3 "$TL/jsonl_count.py" "$@"; }
[ "$(count "$WORK/nk.jsonl" type=call name=cuLaunchKernel 'decoded~^f=0xf0000000, gridDimX=128,')" = 3 ] \
    || { "$CUTAP" dump "$WORK/nk" >&2; exit 1; }
# no kernel named: not in a launch, nor in the function handle a
# cuModuleGetFunction wrote
[ "$(count "$WORK/nk.jsonl" 'kernel~.')" = 0 ] && [ "$(count "$WORK/nk.jsonl" 'decoded~<')" = 0 ] \
    || { say "  a kernel was named"; exit 1; }
"$CUTAP" trace -o "$WORK/nk2" -- $T/t_record kernels >/dev/null 2>&1 || exit 1
"$CUTAP" export --format jsonl -o "$WORK/nk2.jsonl" "$WORK/nk2" || exit 1
[ "$(count "$WORK/nk2.jsonl" type=call name=cuLaunchKernel kernel=_Z6vecaddPfS_i 'decoded~^f=0xf0000000<_Z6vecaddPfS_i>, ')" = 3 ]
