#!/usr/bin/env bash
# Issue #31: the libcupti that `trace --gpu` starts gets the driver's own
# export tables, not cutap's copies of them (src/resolve/exporttable.c,
# real_tables). CUPTI calls their slots often; through a copy each call
# passed a cutap trampoline only to be left unrecorded (they are the
# instrument's): 505 ns of a launch's CPU on the H200
# (docs/GPU_RESULTS.md). Both joining ways; CUTAP_GPU_DIAG=wrapped
# (the way before, for measuring) gives copies; the program's own request
# still gets a copy (its slot calls are recorded); the trace is as
# complete as before.
. "$(dirname "$0")/../../lib/init.sh"

export FAKE_CUPTI_TABLES=1
for m in cb push wrapped; do
    case $m in
        cb) unset CUTAP_GPU_DIAG ;;
        *) export CUTAP_GPU_DIAG=$m ;;
    esac
    gpu_run $m 5 2 || { say "  $m: cutap trace --gpu failed"; cat "$WORK/$m.err" >&2; exit 1; }
    want=driver; [ $m = wrapped ] && want=copy
    got=$(sed -n 's/^FAKE_CUPTI tables //p' "$WORK/$m.err")
    [ "$got" = "$want" ] || { say "  $m: CUPTI's export table: '$got', want '$want'"; exit 1; }
    python3 tests/gpu/gpu_check.py "$WORK/$m" --expect "$(gpu_expect 10)" >"$WORK/$m.check" \
        || { say "  $m: gpu_check"; cat "$WORK/$m.check" >&2; exit 1; }
done
unset CUTAP_GPU_DIAG
# the program's own request for the same table, after CUPTI's: a copy,
# its slot calls recorded as the program's
"$CUTAP" trace --gpu -o "$WORK/p" -- "$T/t_record" initslots 7 >"$WORK/p.out" 2>"$WORK/p.err" \
    || { say "  t_record initslots 7 failed"; cat "$WORK/p.err" >&2; exit 1; }
grep -q '^FAKE_CUPTI tables driver$' "$WORK/p.err" || { say "  p: CUPTI did not get the driver's table"; exit 1; }
"$CUTAP" export --format jsonl -o "$WORK/p.jsonl" "$WORK/p" 2>/dev/null || { say "  export failed"; exit 1; }
n=$(python3 "$TL/jsonl_count.py" "$WORK/p.jsonl" type=call name=FAKE_SIZED#1 layer=hidden)
[ "$n" = 7 ] || { say "  the program's slot calls recorded: $n, want 7"; exit 1; }
exit 0
