#!/usr/bin/env bash
# Issue #31: a CUPTI older than the functions cutap knows. cutap turns on
# CUPTI's callbacks (or API records) of every function that enqueues GPU
# work, by callback id, from CUDA 13.0's list; an older CUPTI refuses the
# ids it does not know (CUPTI 11.8's last are 676 driver and 433 runtime:
# cuMemcpyBatchAsync's 776.. and 482.. are past them, and past 12.4's; the
# _v2 and v13000 ones past 12.9's). Those ids are left out, the others
# kept: the join stays the callbacks' way (it fell back to external ids,
# about 0.8 us a launch more, on every CUPTI before 13.0), and with
# external ids the API records stay those of the enqueuing functions (they
# fell back to every call's). Only where the program calls a function its
# CUPTI does not know does the header say so (bit UNKNOWN_IDS) and
# report --gpu give it as the reason its work is not joined.
. "$(dirname "$0")/../../lib/init.sh"

rep() { "$CUTAP" report --gpu "$WORK/$1" >"$WORK/$1.rep" 2>&1 || { say "  $1: report --gpu failed"; return 1; }; }
unknown_said() { grep -q "functions that enqueue GPU work which its CUPTI does not know" "$WORK/$1.rep"; }

# 11.8's ids, a program that calls none of the refused functions: all
# joined through the callbacks, nothing said
export FAKE_CUPTI_CBID_MAX=676,433
gpu_run o 5 2 || { say "  cutap trace --gpu failed"; cat "$WORK/o.err" >&2; exit 1; }
gpu_calls o && gpu_sum o && rep o || exit 1
python3 tests/gpu/gpu_check.py "$WORK/o" --expect "$(gpu_expect 10)" >"$WORK/o.check" \
    || { cat "$WORK/o.check" >&2; exit 1; }
gpu_is o unjoined 0 && gpu_is o bits 'ASKED|STARTED|FLUSHED|CALLBACKS' && gpu_is o corr_cb $((19 * 10)) \
    && gpu_is o api 0 || exit 1
! unknown_said o || { say "  o: an unknown function said where none was called"; exit 1; }
# external ids: API records of the enqueuing functions only, as with a CUPTI
# that knows every id
unset FAKE_CUPTI_CBID_MAX
CUTAP_GPU_DIAG=push gpu_run n 5 2 || { say "  push: cutap trace --gpu failed"; exit 1; }
gpu_sum n || exit 1
FAKE_CUPTI_CBID_MAX=676,433 CUTAP_GPU_DIAG=push gpu_run p 5 2 || { say "  push, old ids: cutap trace failed"; exit 1; }
gpu_calls p && gpu_sum p || exit 1
python3 tests/gpu/gpu_check.py "$WORK/p" --expect "$(gpu_expect 10)" >"$WORK/p.check" \
    || { cat "$WORK/p.check" >&2; exit 1; }
gpu_is p unjoined 0 && gpu_is p bits 'ASKED|STARTED|FLUSHED|PUSHED' && gpu_is p api "$(gpu_val n api)" || exit 1
# a CUPTI that knows neither cuLaunchKernelEx (652) nor cuGraphLaunch (514),
# both ways: their work is not joined (10 add_one, 30 graph nodes: 40
# records); report --gpu says why, and how many calls are without it
for m in x xp; do
    if [ $m = x ]; then FAKE_CUPTI_CBID_MAX=513,433 gpu_run $m 5 2; else
        FAKE_CUPTI_CBID_MAX=513,433 CUTAP_GPU_DIAG=push gpu_run $m 5 2; fi || { say "  $m: cutap trace failed"; exit 1; }
    gpu_sum $m && rep $m || exit 1
    way=CALLBACKS; [ $m = xp ] && way=PUSHED
    gpu_is $m bits "ASKED|STARTED|FLUSHED|$way|UNKNOWN_IDS" && gpu_is $m unjoined 40 || exit 1
    unknown_said $m && grep -q ' 20 of 190 .*; or the call is of a function its CUPTI does not know' "$WORK/$m.rep" \
        || { say "  $m: report --gpu does not say why or how many:"; head -4 "$WORK/$m.rep" >&2; exit 1; }
done
# a runtime function refused while the driver function inside it is
# known (runtime cudaGraphLaunch 311, driver cuGraphLaunch 514): its work
# is joined through the driver call's callback; nothing said
FAKE_CUPTI_CBID_MAX=9999,310 gpu_run r 5 2 || { say "  r: cutap trace failed"; exit 1; }
gpu_sum r && rep r || exit 1
gpu_is r unjoined 0 && gpu_is r bits 'ASKED|STARTED|FLUSHED|CALLBACKS' || exit 1
! unknown_said r || { say "  r: an unknown function said where every call was joined"; exit 1; }
# both refused (311 and 514), and the program's only graph launches are
# the runtime's (T_GPU_NO_DRIVER_EX_GRAPH: no direct cuGraphLaunch or
# cuLaunchKernelEx): those calls' work (30 graph nodes) is not joined and
# said, through the runtime function's refusal (its name without CUPTI's
# version suffix) and its driver call's
T_GPU_NO_DRIVER_EX_GRAPH=1 FAKE_CUPTI_CBID_MAX=513,310 gpu_run rr 5 2 || { say "  rr: cutap trace failed"; exit 1; }
gpu_sum rr && rep rr || exit 1
gpu_is rr unjoined 30 && gpu_is rr bits 'ASKED|STARTED|FLUSHED|CALLBACKS|UNKNOWN_IDS' || exit 1
unknown_said rr || { say "  rr: the unknown functions not said"; head -4 "$WORK/rr.rep" >&2; exit 1; }
# the same with the runtime's callbacks not asked for (CUTAP_GPU_DIAG=nort)
# and only the driver's graph launch refused: as if every runtime function
# were (helper-36: unjoined, and not said)
T_GPU_NO_DRIVER_EX_GRAPH=1 FAKE_CUPTI_CBID_MAX=513,9999 CUTAP_GPU_DIAG=nort gpu_run rn 5 2 ||
    { say "  rn: cutap trace failed"; exit 1; }
gpu_sum rn && rep rn || exit 1
gpu_is rn unjoined 30 && gpu_is rn bits 'ASKED|STARTED|FLUSHED|CALLBACKS|UNKNOWN_IDS' || exit 1
unknown_said rn || { say "  rn: the unknown functions not said"; head -4 "$WORK/rn.rep" >&2; exit 1; }
# the refused functions' calls made but skipped by fault injection (they
# enqueue nothing): nothing unjoined, nothing said
rm -rf "$WORK/i"
FAKE_CUPTI_CBID_MAX=513,9999 "$CUTAP" trace --gpu --inject 'cuGraphLaunch:retval=0' \
    --inject 'cuLaunchKernelEx:retval=0' -o "$WORK/i" -- "$T/t_gpu" 2 2 >"$WORK/i.out" 2>"$WORK/i.err" \
    || { say "  i: cutap trace failed"; cat "$WORK/i.err" >&2; exit 1; }
gpu_sum i && rep i || exit 1
gpu_is i unjoined 0 && gpu_is i bits 'ASKED|STARTED|FLUSHED|CALLBACKS' || exit 1
! unknown_said i || { say "  i: an unknown function said for calls that made nothing"; exit 1; }
# every id refused: no partial list kept; the join by every API record
# (kinds) joins everything, and nothing is said
FAKE_CUPTI_CBID_MAX=0,0 gpu_run z 5 2 || { say "  z: cutap trace failed"; exit 1; }
gpu_sum z && rep z || exit 1
gpu_is z unjoined 0 && gpu_is z bits 'ASKED|STARTED|FLUSHED|PUSHED' || exit 1
! unknown_said z || { say "  z: an unknown function said where every call was joined"; exit 1; }
exit 0
