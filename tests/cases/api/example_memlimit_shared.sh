#!/usr/bin/env bash
# examples/memlimit across processes: two processes started with one
# CUTAP_MEMLIMIT_NAME share one cap per device (shared memory). While one
# holds 8000 of 10000 bytes the other is refused 4096; after the holder
# frees and exits, 4096 fits; a holder killed (SIGKILL) without freeing is
# found dead and its bytes given back.
. "$(dirname "$0")/../../lib/init.sh"

export CUTAP_MEMLIMIT_NAME=sh$$ CUTAP_PLUGINS=+$B/examples/memlimit.so CUTAP_MEMLIMIT=10000
trap 'exec 3>&-; rm -f /dev/shm/cutap-memlimit.$CUTAP_MEMLIMIT_NAME' EXIT
hold() {   # starts a holder of 8000 bytes (stdin: the fifo on fd 3), waits until it holds them
    rm -f "$WORK/f" "$WORK/h.out"; mkfifo "$WORK/f"
    LD_PRELOAD=$LIB $T/t_memlimit hold 8000 <"$WORK/f" >"$WORK/h.out" 2>&1 &
    holder=$!
    exec 3>"$WORK/f"
    for _ in $(seq 100); do grep -q '^held' "$WORK/h.out" && break; sleep 0.05; done
    grep -qx 'held 8000: 0' "$WORK/h.out" || { say "  the holder: $(cat "$WORK/h.out")"; exit 1; }
}
try() { LD_PRELOAD=$LIB $T/t_memlimit try "$1"; }

hold
[ "$(try 4096)" = "try 4096: 2" ] || { say "  4096 beside a holder of 8000 (cap 10000) was not refused"; exit 1; }
[ "$(try 1000)" = "try 1000: 0" ] || { say "  1000 beside a holder of 8000 was refused"; exit 1; }
exec 3>&-; wait $holder
[ "$(try 4096)" = "try 4096: 0" ] || { say "  4096 refused after the holder freed and exited"; exit 1; }
hold
kill -9 $holder; wait $holder 2>/dev/null; exec 3>&-
[ "$(try 4096)" = "try 4096: 0" ] || { say "  a killed holder's bytes were not given back"; exit 1; }
