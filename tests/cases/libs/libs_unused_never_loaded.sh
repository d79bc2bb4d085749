#!/usr/bin/env bash
# The program opens libcudart.so.13 only: cutap loads none of the
# others (all of them on LD_LIBRARY_PATH), nor does it after the
# program linked with cuBLAS ran.
. "$(dirname "$0")/../../lib/init.sh"

libs_traced libs_rt "$(libs_tree runtime)" $T/t_libs_dl soname rt || exit 1
grep -qx 'loaded: libcuda.so.1 libcudart.so.13' "$WORK/libs_rt.out" || { tail -1 "$WORK/libs_rt.out" >&2; exit 1; }
EXPECT_CUTAP=1 LD_PRELOAD=$LIB libs_env $T/t_libs_pie link >"$WORK/libs_rt2.out" || exit 1
grep -qx 'loaded: libcublas.so.13 libcublasLt.so.13 libcuda.so.1 libcudart.so.13' "$WORK/libs_rt2.out" \
    || { tail -1 "$WORK/libs_rt2.out" >&2; exit 1; }
