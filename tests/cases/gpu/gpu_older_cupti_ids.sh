#!/usr/bin/env bash
# Issue #31: a CUPTI older than the functions cutap knows. cutap turns on
# CUPTI's callbacks (or API records) of every function that enqueues GPU
# work, by callback id, from CUDA 13.0's list; an older CUPTI refuses the
# ids it does not know (CUPTI 11.8's last are 676 driver and 433 runtime:
# cuMemcpyBatchAsync's 776.. and 482.. are past them; 12.4's too). Those
# ids are left out, the others kept: the join stays the callbacks' way
# (it fell back to external ids, about 0.8 us a launch more, on every
# CUPTI before 12.8), and with external ids the API records stay those
# of the enqueuing functions (they fell back to every call's). A function
# the CUPTI does not know is not joined, and counted (report --gpu).
. "$(dirname "$0")/../../lib/init.sh"

export FAKE_CUPTI_CBID_MAX=676,433
gpu_run o 5 2 || { say "  cutap trace --gpu failed"; cat "$WORK/o.err" >&2; exit 1; }
gpu_calls o && gpu_sum o || exit 1
python3 tests/gpu/gpu_check.py "$WORK/o" --expect "$(gpu_expect 10)" >"$WORK/o.check" \
    || { cat "$WORK/o.check" >&2; exit 1; }
gpu_is o unjoined 0 && gpu_is o bits 'ASKED|STARTED|FLUSHED|CALLBACKS|UNKNOWN_IDS' && gpu_is o corr_cb $((19 * 10)) \
    && gpu_is o api 0 || exit 1
# external ids: API records of the enqueuing functions only, as with a CUPTI
# that knows every id
unset FAKE_CUPTI_CBID_MAX
CUTAP_GPU_DIAG=push gpu_run n 5 2 || { say "  push: cutap trace --gpu failed"; exit 1; }
gpu_sum n || exit 1
FAKE_CUPTI_CBID_MAX=676,433 CUTAP_GPU_DIAG=push gpu_run p 5 2 || { say "  push, old ids: cutap trace failed"; exit 1; }
gpu_calls p && gpu_sum p || exit 1
python3 tests/gpu/gpu_check.py "$WORK/p" --expect "$(gpu_expect 10)" >"$WORK/p.check" \
    || { cat "$WORK/p.check" >&2; exit 1; }
gpu_is p unjoined 0 && gpu_is p bits 'ASKED|STARTED|FLUSHED|PUSHED|UNKNOWN_IDS' && gpu_is p api "$(gpu_val n api)" || exit 1
# (the header says so: bit UNKNOWN_IDS; without it, none: gpu_diag_modes)
# a CUPTI that knows neither cuLaunchKernelEx (652) nor cuGraphLaunch (514):
# their work is not joined (10 add_one, 30 graph nodes: 40 records), and
# report --gpu says why and how many of the calls had no GPU activity
# joined (10 + 10)
FAKE_CUPTI_CBID_MAX=513,433 gpu_run x 5 2 || { say "  old CUPTI without 514: cutap trace failed"; exit 1; }
gpu_sum x || exit 1
gpu_is x bits 'ASKED|STARTED|FLUSHED|CALLBACKS|UNKNOWN_IDS' && gpu_is x unjoined 40 || exit 1
"$CUTAP" report --gpu "$WORK/x" >"$WORK/x.rep" 2>&1 || { say "  report --gpu failed"; exit 1; }
grep -q ' 20 of 190 successful calls that enqueue GPU work have no GPU activity' "$WORK/x.rep" \
    && grep -q 'its CUPTI does not know some functions that enqueue GPU work' "$WORK/x.rep" \
    || { say "  report --gpu does not say why or how many:"; head -3 "$WORK/x.rep" >&2; exit 1; }
exit 0
