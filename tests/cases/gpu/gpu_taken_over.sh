#!/usr/bin/env bash
# Issue #31: another CUPTI client takes CUPTI's buffers over while the
# program runs (as torch.profiler does when the program starts it): the
# fake CUPTI hands every buffer after its 40th tracked API call to that
# client (FAKE_CUPTI_STEAL_AFTER). cutap cannot see this happen; the file
# then lacks the CUPTI records of calls it gave an id to, and report --gpu
# says how many: the header's gpu_pushed (enqueuing calls not inside
# another; joined through callbacks, the successful ones) less the calls
# whose CUPTI records came (read here independently: the distinct external
# ids of the file's CORR records; joined through callbacks, of the pairs
# whose correlation an activity record carries), and not at all when
# nothing was taken. Both ways of joining (CUTAP_GPU_DIAG=push: external
# ids).
. "$(dirname "$0")/../../lib/init.sh"

paired_of() {   # FILE: the calls whose CUPTI records came
    ROOT=$ROOT python3 - "$1" <<'PY'
import os, sys
sys.path.insert(0, os.path.join(os.environ["ROOT"], "tests", "gpu"))
import gpu_check
f = gpu_check.read(sys.argv[1])
act = {x[3] for x in f["gpus"] if x[1] in (1, 2, 3)}
print(len({x[4] for x in f["gpus"] if x[1] == 4} | {e for c, e in f["cmeta"] if c in act}))
PY
}
gpu_bare s 6 2 || exit 1
for m in cb push; do
    if [ $m = push ]; then export CUTAP_GPU_DIAG=push; else unset CUTAP_GPU_DIAG; fi
    rm -rf "${WORK:?}/s"
    FAKE_CUPTI_STEAL_AFTER=40 "$CUTAP" trace --gpu -o "$WORK/s" -- "$T/t_gpu" 6 2 >"$WORK/s.out" 2>"$WORK/s.err" \
        || { say "  $m: cutap trace --gpu failed"; tail -5 "$WORK/s.err" >&2; exit 1; }
    gpu_same_output s && gpu_calls s || exit 1
    f=$(ls "$WORK/s"/*.cutap)
    pushed=$(python3 "$TL/hdr_field.py" "$f" gpu_pushed)
    paired=$(paired_of "$f") || exit 1
    [ "$pushed" -gt 0 ] && [ "$paired" -lt "$pushed" ] || { say "  $m: pushed $pushed, paired $paired: nothing taken?"; exit 1; }
    "$CUTAP" report --gpu "$WORK/s" >"$WORK/s.rep" || exit 1
    said="calls that enqueue GPU work have no CUPTI record in the file"
    [ $m = cb ] && said="successful calls that enqueue GPU work have no GPU activity in the file"
    grep -q "$((pushed - paired)) of $pushed $said" "$WORK/s.rep" \
        || { say "  $m: report --gpu does not say $((pushed - paired)) of $pushed:"; head -5 "$WORK/s.rep" >&2; exit 1; }
    # nothing taken: nothing said
    gpu_run n 6 2 && "$CUTAP" report --gpu "$WORK/n" >"$WORK/n.rep" || exit 1
    if grep -q "no CUPTI record\|no GPU activity" "$WORK/n.rep"; then say "  $m: said without a take-over:"; head -5 "$WORK/n.rep" >&2; exit 1; fi
    # and then every call counted has its pair, none more (the calls inside
    # another enqueuing call are not counted: CUPTI tracks none of them)
    fn=$(ls "$WORK/n"/*.cutap)
    p2=$(python3 "$TL/hdr_field.py" "$fn" gpu_pushed) q2=$(paired_of "$fn") || exit 1
    [ "$p2" = "$q2" ] && [ "$p2" -gt 0 ] || { say "  $m: without a take-over: pushed $p2, paired $q2"; exit 1; }
done
