#!/usr/bin/env bash
# Issue #31: with another CUPTI tool injected (CUDA_INJECTION64_PATH set:
# CUPTI serves one tool, and a second registration of buffer callbacks
# silently replaces the first), --gpu does not start CUPTI: the summary
# says so with the path, the header has FAILED and gpu_why, no GPU record,
# no libcupti loaded by cutap (the fake's log stays empty), and the
# program runs as bare with every call recorded.
. "$(dirname "$0")/../../lib/init.sh"

gpu_bare d 3 2 || exit 1
CUDA_INJECTION64_PATH=/opt/tool/libinjected.so FAKE_CUPTI_LOG=$WORK/d.log gpu_run d 3 2 || { say "  cutap trace failed"; exit 1; }
gpu_same_output d && gpu_calls d && gpu_sum d || exit 1
why="another CUPTI tool is injected (CUDA_INJECTION64_PATH=/opt/tool/libinjected.so)"
grep -qF -- "--gpu: $why; GPU activity is not recorded" "$WORK/d.err" || { say "  no refusal said:"; cat "$WORK/d.err" >&2; exit 1; }
grep -qxF "why $why" "$WORK/d.sum" && gpu_is d bits 'ASKED|FAILED' && gpu_is d error 0 && gpu_is d records 0 || exit 1
[ ! -e "$WORK/d.log" ] || { say "  the fake libcupti handed buffers back"; exit 1; }
