#!/usr/bin/env bash
# A program linked with the fake runtime and cuBLAS (lazy, -z now or PIE:
# the argument) refers to the libraries' versioned names, as it does to the
# real ones, and cutap's unversioned definitions bind them: under cutap
# trace its output is the bare run's and the call tree is exact (each call
# once, in its layer, under its caller: tree report, JSON lines parents,
# dump indentation); the outermost calls the program made are recorded
# once each on the fast paths and on the callback path (traced_equal). One
# case per link mode in tests/cases/variants.tsv.
. "$(dirname "$0")/../../lib/init.sh"

link=$1
nm -D $T/t_libs_$link | grep -q ' U cudaMalloc@libcudart.so.13$' && nm -D $T/t_libs_$link | grep -q ' U cublasSgemm_v2@libcublas.so.13$' \
    || { say '  no versioned references'; exit 1; }
libs_traced libs_$link "$(libs_tree all)" $T/t_libs_$link link || exit 1
LD_LIBRARY_PATH=$FL:$LD_LIBRARY_PATH traced_equal libs_log_$link timeout 60 $T/t_libs_$link link
