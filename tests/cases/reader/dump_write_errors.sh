#!/usr/bin/env bash
# dump's output written by the formatting threads (cli/parallel.c: blocks
# of 64 KiB or more go to stdout's descriptor with write(2), not through
# stdio's buffer, issue #27): on two and three threads, with every large
# write short (half of it, a preloaded shim) the output is the one
# thread's, byte for byte, exit 0; a write that fails makes dump fail with
# that write's reason, exit 1, and what it wrote is a prefix of the whole
# output (no gap): the disk full (/dev/full: ENOSPC), a passing failure
# (the second large write failing with EAGAIN alone, as a non-blocking
# pipe does: helper-39 found the block's rest buffered by stdio, a gap in
# the output and "Input/output error" said) and ulimit -f at half the
# output (EFBIG, never a signal). A closed pipe (`| head`) stays exit 0.
. "$(dirname "$0")/../../lib/init.sh"

"$CUTAP" trace -o "$WORK/t" -- "$T/t_record" many 60000 >/dev/null 2>&1 || { say "  trace failed"; exit 1; }
fails=0
CUTAP_THREADS=1 "$CUTAP" dump "$WORK/t" >"$WORK/one" 2>/dev/null || { say "  dump on one thread failed"; exit 1; }
size=$(stat -c %s "$WORK/one")
[ "$size" -gt $((4 << 20)) ] || { say "  only $size bytes of dump: too few blocks"; exit 1; }
prefix() {   # FILE: a prefix of the whole output (possibly empty)
    local n
    n=$(stat -c %s "$1")
    [ "$n" -lt "$size" ] && cmp -s -n "$n" "$1" "$WORK/one"
}
for th in 2 3; do
    rm -f "$WORK/short"
    CUTAP_TEST_WRITE_SHORT=1 LD_PRELOAD="$T/libwritefail.so" CUTAP_THREADS=$th "$CUTAP" dump "$WORK/t" >"$WORK/short" 2>"$WORK/err"
    rc=$?
    [ $rc = 0 ] && cmp -s "$WORK/one" "$WORK/short" ||
        { say "  $th threads, every large write short: exit $rc, $(stat -c %s "$WORK/short") of $size bytes"; cat "$WORK/err" >&2; fails=$((fails + 1)); }
    CUTAP_THREADS=$th "$CUTAP" dump "$WORK/t" >/dev/full 2>"$WORK/err"
    rc=$?
    [ $rc = 1 ] && grep -q "writing the output: No space left on device" "$WORK/err" ||
        { say "  $th threads, /dev/full: exit $rc (1 expected), said: $(cat "$WORK/err")"; fails=$((fails + 1)); }
    rm -f "$WORK/again"
    CUTAP_TEST_WRITE_FAIL=2:11 LD_PRELOAD="$T/libwritefail.so" CUTAP_THREADS=$th "$CUTAP" dump "$WORK/t" >"$WORK/again" 2>"$WORK/err"
    rc=$?
    [ $rc = 1 ] && grep -q "writing the output: Resource temporarily unavailable" "$WORK/err" && prefix "$WORK/again" ||
        { say "  $th threads, the second large write failing (EAGAIN): exit $rc (1 expected), $(stat -c %s "$WORK/again") bytes$(prefix "$WORK/again" || echo ", not a prefix"), said: $(cat "$WORK/err")"; fails=$((fails + 1)); }
    rm -f "$WORK/big"
    (ulimit -f $((size / 1024 / 2)); CUTAP_THREADS=$th exec "$CUTAP" dump "$WORK/t") >"$WORK/big" 2>"$WORK/err"
    rc=$?
    [ $rc = 1 ] && grep -q "writing the output: File too large" "$WORK/err" && prefix "$WORK/big" ||
        { say "  $th threads, ulimit -f: exit $rc (1 expected), $(stat -c %s "$WORK/big") bytes, said: $(cat "$WORK/err")"; fails=$((fails + 1)); }
    CUTAP_THREADS=$th "$CUTAP" dump "$WORK/t" 2>"$WORK/err" | head -c 100000 >/dev/null
    rc=${PIPESTATUS[0]}
    [ $rc = 0 ] && [ ! -s "$WORK/err" ] || { say "  $th threads, | head: exit $rc, said: $(cat "$WORK/err")"; fails=$((fails + 1)); }
    [ "$fails" = 0 ] && echo "$th threads: short writes give the same bytes; /dev/full, EAGAIN and ulimit -f fail with their reason, a prefix written; | head exit 0"
done
[ "$fails" = 0 ]
