#!/usr/bin/env bash
# A process that forbids itself the time-stamp counter (prctl(PR_SET_TSC,
# PR_TSC_SIGSEGV), directly or through syscall(); or a fork of one), after
# which every rdtsc of it, the vDSO's clock_gettime included, is a SIGSEGV:
# under every mode and clock choice (CUTAP_CLOCK=tsc, =ns, default) it
# runs as bare, every call is recorded, and the times stay in order and
# sane. One that enters seccomp strict mode (read, write and exit only)
# runs as bare too; recording stops there and cutap trace says so.
. "$(dirname "$0")/../../lib/init.sh"

for m in prctl syscall fork strict; do
    for under in "CUTAP_TRACE=$WORK/$m.tr" "CUTAP_TRACE=$WORK/$m.tsc CUTAP_CLOCK=tsc" \
                 "CUTAP_TRACE=$WORK/$m.ns CUTAP_CLOCK=ns" "CUTAP_COUNT=$WORK/$m.ct CUTAP_CLOCK=tsc" \
                 "CUTAP_LOG=$WORK/$m.log CUTAP_STAT=$WORK/$m.stat"; do
        UNDER="$under LD_PRELOAD=$LIB" bare_same $m $T/t_tsc $m 2000 || { say "  (under $under)"; exit 1; }
    done
    [ $m = strict ] && continue
    n=$(sed -n 's/^calls //p' "$WORK/$m.bo")
    [ $m = fork ] && n=$((n + 2000))   # and the child's, in a file of its own
    for d in tr tsc ns; do
        "$CUTAP" export --format jsonl --force -o "$WORK/$m.$d.jsonl" "$WORK/$m.$d" || exit 1
        got=$(python3 "$TL/jsonl_times.py" "$WORK/$m.$d.jsonl")
        read -r _ calls _ back _ longest <<<"$got"
        [ "$calls" = "$n" ] && [ "$back" = 0 ] && [ "$longest" -lt 1000000000 ] \
            || { say "  $m ($d): $got, $n calls made"; exit 1; }
    done
    [ "$(grep -c ' cuCtxGetCurrent(' "$WORK/$m.log")" = $((n - 1)) ] || { say "  $m: CUTAP_LOG lost lines"; exit 1; }
done
grep -qx 'strict ok' "$WORK/strict.bo" || { say "  bare strict run: $(cat "$WORK/strict.bo")"; exit 1; }
CUTAP_CLOCK=tsc "$CUTAP" trace -o "$WORK/cli" -- $T/t_tsc strict 2000 >"$WORK/cli.out" 2>"$WORK/cli.err" \
    || { say "  cutap trace, strict mode: status $?"; cat "$WORK/cli.err" >&2; exit 1; }
grep -qx 'strict ok' "$WORK/cli.out" || exit 1
grep -q "recording stopped: the process entered seccomp strict mode" "$WORK/cli.err" \
    || { say "  cutap trace does not say recording stopped:"; cat "$WORK/cli.err" >&2; exit 1; }
