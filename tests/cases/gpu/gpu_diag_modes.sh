#!/usr/bin/env bash
# Issue #31: the cost diagnostics of trace --gpu (CUTAP_GPU_DIAG, used by
# bench/gpu/run.sh and bench/gpu/overhead.c) do what they say, so that
# what they measure is what the docs say they measure:
#   allapi  API records asked for by kind, not function by function: the
#           trace is the same as without it (every record joined, as many
#           API records: those of the functions that enqueue nothing are
#           dropped), only CUPTI's work differs;
#   noapi   no API records asked for: no API record, none joined;
#   nopush  no external ids pushed: nothing joined either;
#   push    joined through external ids, not CUPTI's callbacks: every
#           record joined, with API records and CORR GPU records (the
#           default: no API record, the pairs written by the calling
#           threads);
#   nort    callbacks of the driver's enqueuing functions alone (the
#           default asks for the runtime's too: the fake logs which):
#           every record still joined, by as many pairs, a runtime call's
#           work through its driver call's callback.
. "$(dirname "$0")/../../lib/init.sh"

gpu_run c 5 2 || { say "  cutap trace --gpu failed"; exit 1; }
gpu_sum c || exit 1
gpu_is c unjoined 0 && gpu_is c api 0 && gpu_is c corr_gpu 0 && gpu_is c corr_cb $((19 * 10)) || exit 1
CUTAP_GPU_DIAG=push gpu_run n 5 2 || { say "  push: cutap trace --gpu failed"; exit 1; }
gpu_calls n && gpu_sum n || exit 1
python3 tests/gpu/gpu_check.py "$WORK/n" --expect "$(gpu_expect 10)" >"$WORK/n.check" || { cat "$WORK/n.check" >&2; exit 1; }
api=$(gpu_val n api) corr=$(gpu_val n corr)
gpu_is n corr_cb 0 && gpu_is n corr_gpu $((19 * 10)) && gpu_is n bits 'ASKED|STARTED|FLUSHED|PUSHED' || exit 1
[ "$api" -gt 0 ] && [ "$corr" -gt 0 ] || { say "  push run: $api API records, $corr correlations"; exit 1; }
CUTAP_GPU_DIAG=allapi gpu_run a 5 2 || { say "  allapi: cutap trace failed"; exit 1; }
gpu_calls a && gpu_sum a || exit 1
python3 tests/gpu/gpu_check.py "$WORK/a" --expect "$(gpu_expect 10)" >"$WORK/a.check" || { cat "$WORK/a.check" >&2; exit 1; }
gpu_is a unjoined 0 && gpu_is a api "$api" && gpu_is a corr "$corr" || exit 1
for d in noapi nopush; do
    CUTAP_GPU_DIAG=$d gpu_run $d 5 2 || { say "  $d: cutap trace failed"; exit 1; }
    gpu_sum $d || exit 1
    [ "$(gpu_val $d corr)" = 0 ] && [ "$(gpu_val $d unjoined)" -gt 0 ] \
        || { say "  $d: $(gpu_val $d corr) correlations, $(gpu_val $d unjoined) unjoined"; cat "$WORK/$d.sum" >&2; exit 1; }
done
gpu_is noapi api 0 || exit 1
for d in "" nort; do
    FAKE_CUPTI_CB_LOG=$WORK/cb$d.log CUTAP_GPU_DIAG=$d gpu_run r$d 5 2 || { say "  '$d': cutap trace failed"; exit 1; }
    gpu_sum r$d || exit 1
    gpu_is r$d unjoined 0 && gpu_is r$d corr_cb $((19 * 10)) || exit 1
    python3 tests/gpu/gpu_check.py "$WORK/r$d" --expect "$(gpu_expect 10)" >"$WORK/r$d.check" || { cat "$WORK/r$d.check" >&2; exit 1; }
done
grep -q '^enable 1 ' "$WORK/cb.log" && grep -q '^enable 2 ' "$WORK/cb.log" || { say "  the default: not both domains' callbacks"; exit 1; }
grep -q '^enable 1 ' "$WORK/cbnort.log" && ! grep -q '^enable 2 ' "$WORK/cbnort.log" ||
    { say "  nort: the runtime's callbacks were asked for (or no driver's)"; exit 1; }
exit 0
