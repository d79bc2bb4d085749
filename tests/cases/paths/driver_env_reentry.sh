#!/usr/bin/env bash
# CUTAP_DRIVER names a shim whose constructor opens the real driver and
# calls it while cutap is adopting: no deadlock, the shim (no driver
# entry points) is refused, libcuda.so.1 is used, every call is traced.
. "$(dirname "$0")/../../lib/init.sh"

CUTAP_DRIVER=$T/libshim.so timeout 20 bash -c "$(declare -f traced_equal called same_counts say); \
    WORK=$WORK LIB=$LIB CUTAP=$CUTAP TL=$TL traced_equal shim $T/t_paths_pie plt" || exit 1
reg_says "$WORK/shim.fast.tr" 'libshim.so has no CUDA driver entry points' && reg_says "$WORK/shim.callbacks.tr" 'libshim.so has no CUDA driver entry points'
