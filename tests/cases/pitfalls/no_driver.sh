#!/usr/bin/env bash
# No libcuda.so.1 anywhere: calls return CUDA_ERROR_NOT_FOUND, with a message.
. "$(dirname "$0")/../../lib/init.sh"

env -u LD_LIBRARY_PATH $T/t_nodriver >"$WORK/nd.out" 2>"$WORK/nd.err" || { cat "$WORK/nd.out" "$WORK/nd.err" >&2; exit 1; }
grep -q 'no CUDA driver found' "$WORK/nd.err"
