#!/usr/bin/env bash
# Issue #27: the readers' formatting threads (cli/parallel.c). The calling
# thread, which reads the trace, counts as one of them: CUTAP_THREADS=N
# makes N - 1 workers, the default one thread per CPU the command may use
# (at most 9), so that on 2 CPUs one worker and the reader share them.
# Whenever the reader would wait for the workers it formats a block itself
# (dump, the JSON lines and Perfetto JSON exports, whose formatters keep
# their state per thread; never perfetto-proto, whose encoder is one):
# with the workers made slow (CUTAP_TEST_WORKER_DELAY_US: 20 ms before
# each block; the command then says how many blocks the calling thread
# formatted and wrote) it formats more blocks than the 2N in flight at the
# end (it helps while it reads, not only at the end) and the workers the
# others; in perfetto-proto it formats none but writes more than half of
# them (what the encoder formatted while the reader would wait: the one
# encoder formats on meanwhile); the output is byte for byte the one
# thread's. No
# thread changes its priority (an earlier build lowered the workers',
# which made dump 3 times slower next to any busy process): each thread's
# nice, read in /proc while a dump is held on a full pipe (CUTAP_THREADS 1,
# 2, 3 and unset), is the
# command's, and the threads are as many as said. Dump and JSON lines with
# the calling thread helping run clean under AddressSanitizer and
# LeakSanitizer too (its own formatter state let go).
. "$(dirname "$0")/../../lib/init.sh"

"$CUTAP" trace -o "$WORK/t" -- sh -c "$T/t_record mix 30000; $T/t_nvtx; $T/t_record kernels" >/dev/null 2>"$WORK/t.err" \
    || { say "  traced run failed"; exit 1; }

# "N nice" for each of PID's threads
nices() {
    local s
    for s in /proc/"$1"/task/*/stat; do
        sed -n 's/^[0-9]* (.*) \(.*\)$/\1/p' "$s" 2>/dev/null | awk '{print $17}'
    done
}
# dump with ENV... into a pipe nobody reads (held once the pipe is full):
# its threads' nice values, one a line, once they stay the same for a second
held_dump() {
    local fifo=$WORK/fifo pid i prev= now=
    rm -f "$fifo"
    mkfifo "$fifo" || return 1
    exec 3<>"$fifo"   # (opened for reading and writing: it does not wait for a reader, and nothing reads)
    env "$@" "$CUTAP" dump "$WORK/t" >"$fifo" 2>"$WORK/held.err" &
    pid=$!
    for i in $(seq 100); do
        sleep 0.1
        now=$(nices "$pid" | sort -n)
        [ -n "$now" ] && [ "$now" = "$prev" ] && [ "$i" -ge 10 ] && break
        prev=$now
    done
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    exec 3<&-
    printf '%s\n' "$now"
}
base=$(nice) fails=0
cpus=$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')   # (as cutap counts them; nproc heeds OMP_NUM_THREADS)
for th in 1 2 3 ""; do
    want=${th:-$((cpus > 9 ? 9 : cpus))}
    [ "$want" -ge 2 ] || want=1
    got=$(held_dump ${th:+CUTAP_THREADS=$th})
    n=$(printf '%s\n' "$got" | grep -c .)
    other=$(printf '%s\n' "$got" | grep -vcx -- "$base")
    if [ "$n" != "$want" ] || [ "$other" != 0 ]; then
        say "  CUTAP_THREADS=${th:-(default, $cpus CPUs)}: $n threads (expected $want), nice values: $(echo $got) (the command's: $base)"
        fails=$((fails + 1))
    else
        echo "CUTAP_THREADS=${th:-(default, $cpus CPUs)}: $n threads, all at nice $base"
    fi
done

# the calling thread formats when the workers are late: the same bytes
# (each run given 120 s, where it takes about half a second: a pool whose
# blocks nobody writes would hang rather than fail)
CUTAP_THREADS=1 "$CUTAP" dump "$WORK/t" >"$WORK/one.dump" 2>/dev/null || { say "  dump failed"; exit 1; }
for fmt in jsonl perfetto perfetto-proto; do
    rm -f "$WORK/one.$fmt"
    CUTAP_THREADS=1 "$CUTAP" export --format $fmt -o "$WORK/one.$fmt" "$WORK/t" 2>/dev/null || { say "  export $fmt failed"; exit 1; }
done
for th in 2 3; do
    for what in dump jsonl perfetto perfetto-proto; do
        rm -f "$WORK/late.$what"
        if [ $what = dump ]; then
            CUTAP_TEST_WORKER_DELAY_US=20000 CUTAP_THREADS=$th timeout 120 "$CUTAP" dump "$WORK/t" >"$WORK/late.$what" 2>"$WORK/late.err"
        else
            CUTAP_TEST_WORKER_DELAY_US=20000 CUTAP_THREADS=$th timeout 120 "$CUTAP" export --format $what -o "$WORK/late.$what" "$WORK/t" 2>"$WORK/late.err"
        fi || { say "  $what, CUTAP_THREADS=$th, workers late: failed"; cat "$WORK/late.err" >&2; fails=$((fails + 1)); continue; }
        cmp -s "$WORK/one.$what" "$WORK/late.$what" || { say "  $what, CUTAP_THREADS=$th, workers late: not the one thread's output"; fails=$((fails + 1)); }
        h=$(sed -n 's/.*the calling thread formatted \([0-9]*\) of \([0-9]*\) blocks and wrote \([0-9]*\).*/\1 \2 \3/p' "$WORK/late.err")
        set -- $h
        # more than the 2N blocks in flight at the end: it helped while reading too;
        # perfetto-proto's: none formatted, but more than half written (it writes
        # what is formatted while it would wait, the encoder formatting on)
        if [ $what = perfetto-proto ]; then ok=$([ "${1:-x}" = 0 ] && [ "${3:-0}" -gt $(( ${2:-0} / 2 )) ] && echo y); else ok=$([ "${1:-0}" -gt $((2 * th)) ] && [ "$1" -lt "$2" ] && echo y); fi
        [ "$ok" = y ] && echo "$what, CUTAP_THREADS=$th, workers late: the calling thread formatted ${1} of ${2} blocks and wrote ${3}, the same bytes" \
            || { say "  $what, CUTAP_THREADS=$th, workers late: the calling thread formatted '${1:-?}' of '${2:-?}' blocks and wrote '${3:-?}' ($([ $what = perfetto-proto ] && echo "none formatted and more than half written expected: one encoder" || echo "more than the $((2 * th)) blocks in flight at the end and not all expected"))"; fails=$((fails + 1)); }
    done
done
# the same under AddressSanitizer and LeakSanitizer (the calling thread's
# formatter state, made when it first helps, let go at the end)
A=$B/asan/cutap
if [ -x "$A" ]; then
    SAN_LEAKS=$(san_leaks "$A")
    for what in dump jsonl; do
        rm -f "$WORK/asan.$what"
        if [ $what = dump ]; then
            CUTAP_TEST_WORKER_DELAY_US=20000 CUTAP_THREADS=2 sanitized "$A" dump "$WORK/t" >"$WORK/asan.$what" 2>"$WORK/asan.err"
        else
            CUTAP_TEST_WORKER_DELAY_US=20000 CUTAP_THREADS=2 sanitized "$A" export --format jsonl -o "$WORK/asan.$what" "$WORK/t" 2>"$WORK/asan.err"
        fi
        rc=$?
        if [ $rc != 0 ] || grep -q "Sanitizer" "$WORK/asan.err" || ! cmp -s "$WORK/one.$what" "$WORK/asan.$what" ||
            ! grep -q "the calling thread formatted [1-9]" "$WORK/asan.err"; then
            say "  $what under ASan, the calling thread helping: exit $rc"; head -20 "$WORK/asan.err" >&2; fails=$((fails + 1))
        else
            echo "$what under AddressSanitizer$([ "$SAN_LEAKS" = 1 ] && echo " and LeakSanitizer"), the calling thread helping: clean, the same bytes"
        fi
    done
else
    echo "(no ASan build of cutap: the sanitizers' run skipped)"
fi
[ "$fails" = 0 ]
