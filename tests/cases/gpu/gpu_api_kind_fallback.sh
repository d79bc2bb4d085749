#!/usr/bin/env bash
# Issue #31: a CUPTI without cuptiActivityEnableDriverApi/EnableRuntimeApi
# (FAKE_CUPTI_NO_API_ENABLE=1: they fail): cutap asks for every API
# record instead (kinds DRIVER and RUNTIME), and every kernel, copy and
# memset is still joined to its launching call, as made (gpu_check.py
# --expect); the other calls' API records are there too (more API records
# than correlations). API records are what joining through external ids
# needs (CUTAP_GPU_DIAG=push: the way taken where cutap cannot subscribe to
# CUPTI's callbacks).
. "$(dirname "$0")/../../lib/init.sh"

CUTAP_GPU_DIAG=push FAKE_CUPTI_NO_API_ENABLE=1 gpu_run i 5 2 || { say "  cutap trace failed"; exit 1; }
gpu_calls i && gpu_sum i || exit 1
python3 tests/gpu/gpu_check.py "$WORK/i" --expect "$(gpu_expect 10)" >"$WORK/i.check" || { cat "$WORK/i.check" >&2; exit 1; }
gpu_is i unjoined 0 && gpu_is i bits 'ASKED|STARTED|FLUSHED|PUSHED' && gpu_is i by cudaLaunchKernel 10 && gpu_is i by cudaGraphLaunch 30 || exit 1
api=$(gpu_val i api) corr=$(gpu_val i corr)
[ "$api" -gt "$corr" ] && [ "$corr" -ge 190 ] || { say "  $api API records and $corr correlations: not every call's API record"; exit 1; }
