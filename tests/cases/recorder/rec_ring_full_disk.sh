#!/usr/bin/env bash
# Issue #16: a ring that the filesystem cannot hold (--ring 4M on a 2 MiB
# tmpfs, of which the registry takes 1), with and without fallocate: the program runs as it does bare
# (same output, status, nothing on its stderr), the header says recording
# stopped for lack of space and counts the calls not recorded, and cutap
# trace says so. A ring that fits on a filesystem filled by something else
# afterwards keeps recording (the ring never grows: only its META chunks
# do).
. "$(dirname "$0")/../../lib/init.sh"

export LD_LIBRARY_PATH=$FL:$LD_LIBRARY_PATH
m=$WORK/fs; small_fs "$m" 2m || exit $?
mkdir -p "$m/a" "$m/b"
UNDER="CUTAP_TRACE=$m/a CUTAP_RING=4194304 LD_PRELOAD=$LIB" bare_same r1 $T/t_ring 2 300 || exit 1
UNDER="CUTAP_TRACE=$m/b CUTAP_RING=4194304 LD_PRELOAD=$LIB:$T/libnofalloc.so" bare_same r2 $T/t_ring 2 300 || exit 1
for d in a b; do
    f=$(ls "$m/$d"/*.cutap 2>/dev/null | head -1)
    [ -n "$f" ] || continue   # (no file at all is as good: said in the registry)
    read -r ver flags err reason lost <<<"$(python3 "$TL/hdr_loss.py" "$f")"
    [ "$reason" = 1 ] && [ "$lost" -gt 0 ] || { say "  $d: stop reason $reason, lost $lost"; exit 1; }
done
rm -rf "$m/a" "$m/b"
"$CUTAP" trace --ring 4M -o "$m/c" -- $T/t_ring 2 300 >"$WORK/c.out" 2>"$WORK/c.err"; rc=$?
[ $rc = 0 ] && cmp -s "$WORK/r1.bo" "$WORK/c.out" && grep -q 'No space left on device' "$WORK/c.err" \
    || { say "  cutap trace: exit $rc"; cat "$WORK/c.err" >&2; exit 1; }
rm -rf "$m/c"
# a 1 MiB ring made (the first phase), then the rest of the disk filled,
# then the second phase: still recording, nothing lost (a filesystem of
# its own: the directory's registry takes 1 MiB too)
m=$WORK/fs2; small_fs "$m" 4m || exit $?
mkdir -p "$m/d"
export FAKE_NCCL_LAUNCHES=5 T_RING_GO=$WORK/go
touch "$WORK/go"; $T/t_ring 2 5000 phase >"$WORK/r3.bo" 2>&1 || exit 1; rm -f "$WORK/go"
CUTAP_TRACE=$m/d CUTAP_RING=1048576 LD_PRELOAD=$LIB $T/t_ring 2 5000 phase >"$WORK/r3.o" 2>"$WORK/r3.e" &
for _ in $(seq 200); do grep -q 'phase1 done' "$WORK/r3.o" 2>/dev/null && break; sleep 0.05; done
fill_fs "$m"; touch "$WORK/go"
wait $! || { say "  the program failed"; cat "$WORK/r3.e" >&2; exit 1; }
cmp -s "$WORK/r3.bo" "$WORK/r3.o" && [ ! -s "$WORK/r3.e" ] || { say "  output changed"; exit 1; }
f=$(ls "$m/d"/*.cutap)
read -r ver flags err reason lost <<<"$(python3 "$TL/hdr_loss.py" "$f")"
[ "$lost" = 0 ] || { say "  a ring that fits lost $lost calls (reason $reason)"; exit 1; }
exit 0
