#!/usr/bin/env bash
# The readers that format on several threads (cli/parallel.c) when no
# thread can be started (pthread_create fails, as under `ulimit -u` or a
# full pids cgroup: tests/lib_nothreads.c): dump and the JSON lines and
# Perfetto JSON exports format on the calling thread instead and give the
# one thread's output, exit status 0, no message.
. "$(dirname "$0")/../../lib/init.sh"

"$CUTAP" trace -o "$WORK/t" -- "$T/t_record" mix 4000 >/dev/null 2>&1 || { say "  traced run failed"; exit 1; }
CUTAP_THREADS=1 "$CUTAP" dump "$WORK/t" >"$WORK/one" || exit 1
CUTAP_THREADS=4 LD_PRELOAD=$T/libnothreads.so "$CUTAP" dump "$WORK/t" >"$WORK/nt" 2>"$WORK/nt.err" \
    || { say "  dump without threads failed: $(cat "$WORK/nt.err")"; exit 1; }
cmp -s "$WORK/one" "$WORK/nt" && [ ! -s "$WORK/nt.err" ] || { say "  dump without threads: other output or a message"; exit 1; }
for fmt in jsonl perfetto; do
    CUTAP_THREADS=1 "$CUTAP" export --format $fmt -o "$WORK/one.$fmt" "$WORK/t" 2>/dev/null || exit 1
    CUTAP_THREADS=4 LD_PRELOAD=$T/libnothreads.so "$CUTAP" export --format $fmt -o "$WORK/nt.$fmt" "$WORK/t" 2>"$WORK/nt.err" \
        || { say "  export $fmt without threads failed: $(cat "$WORK/nt.err")"; exit 1; }
    cmp -s "$WORK/one.$fmt" "$WORK/nt.$fmt" || { say "  export $fmt without threads: not the one thread's output"; exit 1; }
    ! grep -q 'cutap' "$WORK/nt.err" || { say "  export $fmt without threads: $(cat "$WORK/nt.err")"; exit 1; }
done
