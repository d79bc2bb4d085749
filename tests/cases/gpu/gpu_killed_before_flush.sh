#!/usr/bin/env bash
# Issue #31: a traced program killed (SIGKILL inside its last call,
# cuCtxSynchronize, FAKE_SYNC_DIES) before CUPTI's last flush at exit.
# Every completed call is kept (report counts them as the program says,
# dump reads the file, the one in progress unfinished); GPU records may be
# missing, and the file still reads: (1) no periodic flush
# (CUTAP_GPU_FLUSH_MS=0), no buffer full: no GPU record, the header
# STARTED (and CALLBACKS: joined through them), not FLUSHED; (2) 1.3 MB
# of records and no periodic flush: the full buffer was handed back (on
# the fake CUPTI's thread, during the
# program's 300 ms pause before its end), the rest lost, every record
# there joined; (3) a 50 ms flush period and a 400 ms pause: the periodic
# flushes handed everything back, all there and joined, no FLUSHED bit.
. "$(dirname "$0")/../../lib/init.sh"

killed() {   # NAME ROUNDS THREADS PAUSE: traced and killed, the calls kept, the file read
    local n=$1; shift
    FAKE_SYNC_DIES=1 FAKE_CUPTI_LOG=$WORK/$n.log gpu_run $n "$@"
    local st=$?
    [ $st = 137 ] || { say "  $n: exit status $st, want 137 (SIGKILL)"; tail -3 "$WORK/$n.err" >&2; return 1; }
    gpu_calls $n killed && gpu_sum $n || return 1
    "$CUTAP" dump "$WORK/$n" >"$WORK/$n.dump" 2>"$WORK/$n.dump.err" || { say "  $n: dump failed"; cat "$WORK/$n.dump.err" >&2; return 1; }
    grep -q ' cuCtxSynchronize() = ? <unfinished>$' "$WORK/$n.dump" || { say "  $n: no unfinished cuCtxSynchronize in dump"; return 1; }
    python3 tests/gpu/gpu_check.py "$WORK/$n" >"$WORK/$n.check" || { say "  $n: gpu_check.py failed"; return 1; }
    gpu_is $n bits 'ASKED|STARTED|CALLBACKS' && gpu_is $n unjoined 0 && gpu_is $n lost 0 || return 1
    [ "$(gpu_val $n records)" = "$(gpu_val $n header_records)" ] || { say "  $n: header_records is not the records there"; return 1; }
}
CUTAP_GPU_FLUSH_MS=0 killed k1 3 2 0 || exit 1
gpu_is k1 records 0 || exit 1
[ ! -e "$WORK/k1.log" ] || { say "  k1: buffers handed back:"; cat "$WORK/k1.log" >&2; exit 1; }

CUTAP_GPU_FLUSH_MS=0 killed k2 100 4 300 || exit 1
all=$((23 * 400)) got=$(gpu_val k2 records)   # (activity records only: joined through callbacks)
[ "$got" -gt 0 ] && [ "$got" -lt $all ] || { say "  k2: $got GPU records, want some of $all"; exit 1; }
grep -qx 'deliver full records [0-9]* on fake' "$WORK/k2.log" && ! grep -qv 'full' "$WORK/k2.log" \
    || { say "  k2: not the full buffer alone handed back:"; cat "$WORK/k2.log" >&2; exit 1; }

CUTAP_GPU_FLUSH_MS=50 killed k3 5 2 400 || exit 1
gpu_is k3 records $((23 * 10)) && gpu_is k3 joined $((23 * 10)) || exit 1
grep -q '^deliver period records [0-9]* on fake$' "$WORK/k3.log" || { say "  k3: no periodic flush:"; cat "$WORK/k3.log" >&2; exit 1; }
