#!/usr/bin/env bash
# Issue #31: --gpu with --ring is a usage error of cutap trace (exit 2,
# said, nothing run); the library given both (CUTAP_GPU=1 and CUTAP_RING,
# without the command) warns into the registry, records the calls in the
# ring without GPU activity (no CUPTI started: the header's gpu bits
# ASKED|FAILED = 5 with the reason in gpu_why, which report --gpu gives),
# and the program runs as bare.
. "$(dirname "$0")/../../lib/init.sh"

"$CUTAP" trace --gpu --ring 4M -o "$WORK/e" -- "$T/t_gpu" 1 1 >"$WORK/e.out" 2>"$WORK/e.err"
st=$?
[ $st = 2 ] || { say "  exit status $st, want 2 (usage)"; exit 1; }
grep -q -- '--gpu with --ring' "$WORK/e.err" && grep -q "Try 'cutap trace --help'" "$WORK/e.err" \
    || { say "  no usage error said:"; cat "$WORK/e.err" >&2; exit 1; }
[ ! -s "$WORK/e.out" ] && [ ! -e "$WORK/e" ] || { say "  the program ran, or a trace was made"; exit 1; }
gpu_bare e2 2 2 || exit 1
rm -rf "$WORK/e2" "$WORK/e2.log"
CUTAP_GPU=1 CUTAP_RING=4194304 CUTAP_TRACE=$WORK/e2 FAKE_CUPTI_LOG=$WORK/e2.log LD_PRELOAD=$LIB "$T/t_gpu" 2 2 \
    >"$WORK/e2.out" 2>"$WORK/e2.err" || { say "  the program failed under the library"; exit 1; }
gpu_same_output e2 && ! grep -q cutap "$WORK/e2.err" || exit 1
reg_says "$WORK/e2" '--gpu: not with --ring' || exit 1
[ ! -e "$WORK/e2.log" ] && [ "$(python3 "$TL/hdr_field.py" "$WORK"/e2/*.cutap gpu)" = 5 ] || { say "  CUPTI was started, or the header does not say why not"; exit 1; }
"$CUTAP" report --gpu "$WORK/e2" 2>/dev/null | grep -q 'GPU activity not recorded: not with --ring' \
    || { say "  report --gpu does not say why"; exit 1; }
"$CUTAP" report --format csv "$WORK/e2" 2>/dev/null | grep -q '^driver,cuLaunchKernel,8,' || { say "  the calls are not in the ring"; exit 1; }
