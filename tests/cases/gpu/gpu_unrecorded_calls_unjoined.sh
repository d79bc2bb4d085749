#!/usr/bin/env bash
# Issue #31: a launching call left out of the trace (-e '!cuMemcpyPeer')
# has no record for cutap to push: CUPTI still makes its API record and
# its copy, which stay unjoined (never joined to another call), and
# everything else joins as without the filter.
. "$(dirname "$0")/../../lib/init.sh"

rm -rf "$WORK/j"
"$CUTAP" trace --gpu -e '!cuMemcpyPeer' -o "$WORK/j" -- "$T/t_gpu" 5 2 >"$WORK/j.out" 2>"$WORK/j.err" \
    || { say "  cutap trace failed"; exit 1; }
gpu_sum j || exit 1
gpu_is j unjoined 10 && gpu_is j joined $((22 * 10)) && gpu_is j by cuMemcpyPeer 0 && gpu_is j copy PtoP 10 || exit 1
gpu_is j api $((19 * 10)) && gpu_is j corr $((18 * 10)) || exit 1
