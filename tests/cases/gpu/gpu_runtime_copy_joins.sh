#!/usr/bin/env bash
# Issue #31: a runtime copy's work under --gpu (t_gpu's own runtime,
# tests/rt_copy.h, reporting each call through the driver's tools hook as
# a static cudart does; the fake libcupti makes the runtime API records
# from the reports the driver passes on, as CUPTI does). Each kernel, copy
# and memset a runtime call enqueues carries that call's correlation (the
# outermost call CUPTI tracks, not the driver call inside it), and is
# joined to the runtime call cutap recorded (cudaLaunchKernel, cudaMemcpy,
# cudaMemcpyAsync, cudaMemset, cudaGraphLaunch: the graph's 3 kernels),
# because cutap records the report, pushing its id, before passing it on
# to the driver (src/resolve/rt_hooks.c, `inside`); shown to fail with
# that order reverted (all 7 a round unjoined). The driver calls inside
# have no CORR or API records (CUPTI tracks no API call made inside
# another it tracks); cudaGetDevice (no work) none. One
# thread and 3 threads. Both ways of joining: CUPTI's callbacks (the
# runtime call's callback and its driver call's carry the same id: one
# pair, the runtime call's place) and external ids (CUTAP_GPU_DIAG=push).
. "$(dirname "$0")/../../lib/init.sh"

for run in "r1 5 1 cb" "r3 20 3 cb" "p1 5 1 push" "p3 20 3 push"; do
    set -- $run
    n=$1 N=$(($2 * $3))
    if [ $4 = push ]; then export CUTAP_GPU_DIAG=push; else unset CUTAP_GPU_DIAG; fi
    gpu_bare $n $2 $3 && gpu_run $n $2 $3 || { say "  $n: cutap trace --gpu failed"; tail -5 "$WORK/$n.err" >&2; exit 1; }
    gpu_same_output $n && gpu_calls $n && gpu_sum $n || exit 1
    gpu_is $n unjoined 0 && gpu_is $n by cudaLaunchKernel $N && gpu_is $n by cudaMemcpy $N \
        && gpu_is $n by cudaMemcpyAsync $N && gpu_is $n by cudaMemset $N && gpu_is $n by cudaGraphLaunch $((3 * N)) || exit 1
    # the correlations (and the runtime calls' API records): 5 a round, none for cudaGetDevice
    gpu_is $n corr $((19 * N)) && gpu_is $n corr_dup 0 || exit 1
    if [ $4 = push ]; then
        gpu_is $n api_runtime $((5 * N)) && gpu_is $n api $((19 * N)) || exit 1
    else
        gpu_is $n corr_cb $((19 * N)) && gpu_is $n api 0 || exit 1
    fi
    # nothing of theirs joined to the driver calls they make (cuMemcpyDtoHAsync_v2 is only theirs)
    gpu_is $n by cuMemcpyDtoHAsync_v2 0 && gpu_is $n by cuLaunchKernel $N && gpu_is $n by cuGraphLaunch $((3 * N)) || exit 1
    python3 tests/gpu/gpu_check.py "$WORK/$n" --expect "rt_axpy=$N gnodea=$((2 * N)) memcpy=$((8 * N)) memset=$((5 * N))" \
        >"$WORK/$n.check" || { cat "$WORK/$n.check" >&2; exit 1; }
done
