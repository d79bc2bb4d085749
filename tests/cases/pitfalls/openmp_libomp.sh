#!/usr/bin/env bash
# An LLVM OpenMP program (clang -fopenmp; its OMPT tool lookup uses
# dlsym(RTLD_NEXT)) runs to the end with the same output.
. "$(dirname "$0")/../../lib/init.sh"

[ -x $T/t_omp ] || exit 77
want=$($T/t_omp) || exit 1
got=$(LD_PRELOAD=$LIB timeout 30 $T/t_omp) || { say "  did not finish"; exit 1; }
[ "$got" = "$want" ]
