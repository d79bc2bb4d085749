#!/usr/bin/env bash
# Issue #31: a launching call left out of the trace (-e '!cuMemcpyPeer')
# has no record to pair CUPTI's correlation with: its copy stays unjoined
# (never joined to another call, not to the call before it either), and
# everything else joins as without the filter. Both ways of joining:
# through CUPTI's callbacks (the default: CUPTI's entry callback of the
# call finds no enqueuing call open, so no pair), and through external
# ids (CUTAP_GPU_DIAG=push: nothing pushed; CUPTI still makes the call's
# API record).
. "$(dirname "$0")/../../lib/init.sh"

for m in cb push; do
    rm -rf "${WORK:?}/$m"
    if [ $m = push ]; then export CUTAP_GPU_DIAG=push; else unset CUTAP_GPU_DIAG; fi
    "$CUTAP" trace --gpu -e '!cuMemcpyPeer' -o "$WORK/$m" \
        -- "$T/t_gpu" 5 2 >"$WORK/$m.out" 2>"$WORK/$m.err" || { say "  $m: cutap trace failed"; exit 1; }
    gpu_sum $m || exit 1
    gpu_is $m unjoined 10 && gpu_is $m joined $((22 * 10)) && gpu_is $m by cuMemcpyPeer 0 && gpu_is $m copy PtoP 10 \
        && gpu_is $m corr $((18 * 10)) || exit 1
done
gpu_is cb api 0 && gpu_is cb corr_cb $((18 * 10)) && gpu_is push api $((19 * 10)) && gpu_is push corr_gpu $((18 * 10)) \
    || exit 1
