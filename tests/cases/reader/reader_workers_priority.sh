#!/usr/bin/env bash
# Issue #27: where the formatting workers and the reading thread are more
# than the CPUs the command may use (two workers and the reader on one
# CPU here, as on the 2-core machines with the default two), the workers
# lower their priority by 10 (cli/parallel.c), so that the reading thread,
# which every block waits for, keeps its CPU: each thread's nice, read in
# /proc while a dump is held on a full pipe, is the command's for the
# reading thread and 10 more for each worker. Where the CPUs are enough
# (three or more here: checked only where the machine has them), no
# thread's priority changes.
. "$(dirname "$0")/../../lib/init.sh"

command -v taskset >/dev/null || { say "  no taskset"; exit 77; }
"$CUTAP" trace -o "$WORK/t" -- "$T/t_record" mix 30000 >/dev/null 2>"$WORK/t.err" || { say "  traced run failed"; exit 1; }

# nice of each of PID's threads, "tid nice" a line (field 19 of stat, after the name)
nices() {
    local s
    for s in /proc/"$1"/task/*/stat; do
        sed -n 's/^\([0-9]*\) (.*) \(.*\)$/\1 \2/p' "$s" 2>/dev/null | awk '{print $1, $18}'
    done
}

# dump with CUTAP_THREADS=2 on CPUS into a pipe nobody reads (it blocks once
# the pipe is full); prints the threads' nice values once there are three
# threads and they stay the same for a second, the reading thread first
held_dump() {
    local cpus=$1 fifo=$WORK/fifo pid i prev= now=
    rm -f "$fifo"
    mkfifo "$fifo" || return 1
    exec 3<>"$fifo"   # (opened for reading and writing: it does not wait for a reader, and nothing reads)
    CUTAP_THREADS=2 taskset -c "$cpus" "$CUTAP" dump "$WORK/t" >"$fifo" 2>"$WORK/dump.err" &
    pid=$!
    for i in $(seq 100); do
        sleep 0.1
        now=$(nices "$pid" | sort -n | awk -v p="$pid" '$1 == p {print "reader", $2; next} {print "worker", $2}')
        [ "$(printf '%s\n' "$now" | grep -c .)" = 3 ] && [ "$now" = "$prev" ] && [ "$i" -ge 10 ] && break
        prev=$now
    done
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    exec 3<&-
    printf '%s\n' "$now"
}

base=$(nice)
[ "$base" -lt 19 ] || { say "  this shell runs at nice 19: no lower priority to take"; exit 77; }
want=$((base + 10 > 19 ? 19 : base + 10))
got=$(held_dump 0)
exp=$(printf 'reader %s\nworker %s\nworker %s\n' "$base" "$want" "$want")
[ "$got" = "$exp" ] || { say "  one CPU, two workers: threads' nice values"; say "$got"; say "  expected"; say "$exp"; exit 1; }
echo "one CPU, two workers and the reader: reader at nice $base, workers at $want"

if [ "$(nproc)" -ge 3 ]; then
    got=$(held_dump 0-2)
    exp=$(printf 'reader %s\nworker %s\nworker %s\n' "$base" "$base" "$base")
    [ "$got" = "$exp" ] || { say "  three CPUs, two workers: threads' nice values"; say "$got"; say "  expected"; say "$exp"; exit 1; }
    echo "three CPUs: every thread at nice $base"
else
    echo "(fewer than 3 CPUs here: the case of CPUs enough for every thread not run)"
fi
