#!/usr/bin/env bash
# Issue #31: under trace --gpu a function that enqueues GPU work has two
# clients, the recorder and the join; it takes its trace fast path's --gpu
# variant (gen/fastpath_generator.py, cutap_tg_<name>: the join's notes of
# the call around the real call), not the general path, which cost a
# launch 214 ns of cutap's code against 60 (tests/gpu/launch_probe.sh,
# docs/GPU_RESULTS.md). On t_gpu 20 2: each enqueuing driver function with
# a fast path takes the general path at most once a thread (its first
# call names it; CUTAP_DIAG_PATHS counts; cuLaunchKernel's calls from the
# runtime copy may stay there, as in plain trace), and every GPU record is joined
# as by the general path (the kernels, copies and memsets per name, no
# pair lost or doubled), through CUPTI's callbacks and through external
# ids (CUTAP_GPU_DIAG=push); the program's output is as without cutap.
# A call the trace leaves out (-e '!cuMemcpyPeer') beside fast-path calls
# stays unjoined: the join no longer reads a stale record address the
# dispatcher left on the stack for a client that did not run (found with
# this change: 9 of 10 such copies joined to the call before). A runtime
# copy's enqueuing call (cudaMemcpy of the fake libcudart, around its
# cuMemcpy*) takes its variant too, the joins as on the general path.
. "$(dirname "$0")/../../lib/init.sh"

gpu_bare b 20 2 || exit 1
fast="cuLaunchKernel cuLaunchKernel_ptsz cuGraphLaunch cuMemcpyHtoD_v2 cuMemcpyDtoH_v2 cuMemcpyDtoD_v2
      cuMemcpyHtoDAsync_v2 cuMemcpy cuMemcpyPeer cuMemsetD8_v2 cuMemsetD16_v2 cuMemsetD32Async cuMemsetD2D8_v2"
for m in cb push; do
    if [ $m = push ]; then export CUTAP_GPU_DIAG=push; else unset CUTAP_GPU_DIAG; fi
    rm -f "$WORK/$m.paths"
    CUTAP_DIAG_PATHS="$WORK/$m.paths" gpu_run $m 20 2 || { say "  $m: cutap trace --gpu failed"; cat "$WORK/$m.err" >&2; exit 1; }
    cp "$WORK/b.bare" "$WORK/$m.bare" && gpu_same_output $m || exit 1
    stuck=
    for f in $fast; do
        n=$(awk -v f="$f" '$3 == "general" && $4 == f {print $5}' "$WORK/$m.paths")
        # (cuLaunchKernel may stay on the general path for the whole run:
        # in about 1 run of 8, plain trace too (3 of 16 on a27b9a0), its 40
        # calls made inside the runtime copy's cudaLaunchKernel, though the
        # front's entry names the fast path at exit: not yet explained; any
        # other function is this change's failure)
        [ "${n:-0}" -le 2 ] || [ "$f" = cuLaunchKernel ] || stuck="$stuck $f:$n"
    done
    [ -z "$stuck" ] || { say "  $m: on the general path (of 40 calls):$stuck (at most once a thread expected)"; exit 1; }
    gpu_calls $m && gpu_sum $m || exit 1
    python3 tests/gpu/gpu_check.py "$WORK/$m" --expect "$(gpu_expect 40)" >"$WORK/$m.check" ||
        { say "  $m: the GPU records"; cat "$WORK/$m.check" >&2; exit 1; }
    gpu_is $m unjoined 0 && gpu_is $m joined $((23 * 40)) || exit 1
    echo "$m: every enqueuing function with a fast path on the general path at most once a thread; $((23 * 40)) of $((23 * 40)) GPU records joined"
done
unset CUTAP_GPU_DIAG
for i in 1 2 3; do
    rm -rf "${WORK:?}/u"
    "$CUTAP" trace --gpu -e '!cuMemcpyPeer' -o "$WORK/u" -- "$T/t_gpu" 5 2 >"$WORK/u.out" 2>"$WORK/u.err" ||
        { say "  -e '!cuMemcpyPeer': cutap trace failed"; exit 1; }
    gpu_sum u && gpu_is u unjoined 10 && gpu_is u by cuMemcpyPeer 0 || exit 1
done
echo "an unrecorded cuMemcpyPeer beside fast-path calls: its 10 copies unjoined, 3 runs of 3"
# the runtime layer's variants: a real (fake) libcudart whose cudaMemcpy
# calls cuMemcpy* (t_libs_now link): its second call on the fast path,
# the joins as with every call on the general path (CUTAP_NO_FASTPATH=1)
for nf in 0 1; do
    rm -rf "${WORK:?}/l$nf" "$WORK/l$nf.paths"
    EXPECT_CUTAP=1 CUTAP_NO_FASTPATH=$nf CUTAP_DIAG_PATHS="$WORK/l$nf.paths" \
        libs_env "$CUTAP" trace --gpu -o "$WORK/l$nf" -- "$T/t_libs_now" link >/dev/null 2>"$WORK/l$nf.err" ||
        { say "  t_libs_now link, CUTAP_NO_FASTPATH=$nf: failed"; cat "$WORK/l$nf.err" >&2; exit 1; }
    gpu_sum l$nf || exit 1
done
n0=$(awk '$3 == "general" && $4 == "cudaMemcpy" {print $5}' "$WORK/l0.paths")
n1=$(awk '$3 == "general" && $4 == "cudaMemcpy" {print $5}' "$WORK/l1.paths")
[ "${n0:-0}" = 1 ] && [ "${n1:-0}" = 2 ] ||
    { say "  cudaMemcpy on the general path $n0 of 2 times (1 expected; $n1 without fast paths)"; exit 1; }
for nf in 0 1; do grep -Ev '^(tmin|tmax) ' "$WORK/l$nf.sum" >"$WORK/l$nf.joins"; done   # (times differ)
cmp -s "$WORK/l0.joins" "$WORK/l1.joins" ||
    { say "  the runtime's joins differ from the general path's:"; diff "$WORK/l1.joins" "$WORK/l0.joins" >&2; exit 1; }
gpu_is l0 unjoined 0 || exit 1
echo "a runtime copy's cudaMemcpy: its second call on the fast path, the joins as on the general path"
