#!/usr/bin/env bash
# Issue #31: --gpu with --runtime=cupti (a static runtime's calls taken
# from cutap's own CUPTI subscription). CUPTI samples the external id of a
# runtime call before it calls its subscriber, so cutap cannot push one in
# time; it pairs the callback's correlation id with the call's record
# itself (a CORR record written by src/record/gpu.c). Each kernel, copy and
# memset of the runtime copy is joined to the runtime call, none to the
# driver calls inside; fails when the pair is not written (28 of 92
# records unjoined in t_gpu 2 2).
. "$(dirname "$0")/../../lib/init.sh"

n=rc N=4
gpu_bare $n 2 2 || exit 1
rm -rf "${WORK:?}/$n"
"$CUTAP" trace --gpu --runtime=cupti -o "$WORK/$n" -- "$T/t_gpu" 2 2 >"$WORK/$n.out" 2>"$WORK/$n.err" \
    || { say "  cutap trace --gpu --runtime=cupti failed"; tail -5 "$WORK/$n.err" >&2; exit 1; }
gpu_same_output $n && gpu_sum $n || exit 1
gpu_is $n unjoined 0 && gpu_is $n by cudaLaunchKernel $N && gpu_is $n by cudaMemcpy $N \
    && gpu_is $n by cudaMemcpyAsync $N && gpu_is $n by cudaMemset $N && gpu_is $n by cudaGraphLaunch $((3 * N)) \
    && gpu_is $n by cuMemcpyDtoHAsync_v2 0 || exit 1
