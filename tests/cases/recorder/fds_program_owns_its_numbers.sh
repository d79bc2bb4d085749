#!/usr/bin/env bash
# The program owns its descriptor numbers. A program that closes every
# descriptor from 3 up and puts a data file of its own on every number up
# to 1,000 (cutap's old number among them), then calls CUDA again: the
# data file is untouched and every call is recorded (cutap opens its file
# again by its path) under trace, stat, CUTAP_LOG and CUTAP_STAT, and a
# POSIX lock the program holds on that file stays held (closing any
# descriptor of a file drops a process's locks: cutap never closes one of
# the program's files, not even a duplicate it made to check it); with
# its trace file removed first, recording stops and cutap trace says so
# with the calls lost. A program that closes 0, 1 and 2 before its first
# call gets 0 and 1 from its next two opens, as bare.
. "$(dirname "$0")/../../lib/init.sh"

N=50000
check_data() {   # FILE.out: the program's own file untouched
    grep -qx 'data: 1000 bytes, unchanged' "$1" || { say "  the program's data file was changed:"; cat "$1" >&2; return 1; }
}
for mode in CUTAP_TRACE CUTAP_COUNT; do
    rm -rf "$WORK/r.$mode"
    env $mode="$WORK/r.$mode" LD_PRELOAD=$LIB $T/t_fds reuse $N "$WORK/data.$mode" >"$WORK/r.$mode.out" \
        || { say "  $mode: status $?"; exit 1; }
    check_data "$WORK/r.$mode.out" || exit 1
    got=$("$CUTAP" report --format csv "$WORK/r.$mode" | awk -F, '$2 == "cuCtxGetCurrent" {print $3}')
    [ "$got" = $((2 * N)) ] || { say "  $mode: $got of $((2 * N)) calls recorded"; exit 1; }
    "$CUTAP" report "$WORK/r.$mode" 2>&1 | grep -qi 'not recorded\|stopped' && { say "  $mode: a loss reported"; exit 1; }
done
# the program's lock on its file on cutap's old numbers
for run in "CUTAP_TRACE=$WORK/lk.tr" "CUTAP_COUNT=$WORK/lk.ct" "CUTAP_LOG=$WORK/lk.log"; do
    env $run LD_PRELOAD=$LIB $T/t_fds lock $N "$WORK/data.lock" >"$WORK/lock.out" || { say "  lock, $run: status $?"; exit 1; }
    grep -qx 'lock held: yes' "$WORK/lock.out" && check_data "$WORK/lock.out" \
        || { say "  lock, $run: the program's lock was dropped:"; cat "$WORK/lock.out" >&2; exit 1; }
done
# the text clients: the log goes on in its own file, the table is written
CUTAP_LOG="$WORK/log" CUTAP_STAT="$WORK/stat" LD_PRELOAD=$LIB $T/t_fds reuse $N "$WORK/data.log" >"$WORK/log.out" \
    || { say "  CUTAP_LOG: status $?"; exit 1; }
check_data "$WORK/log.out" || exit 1
[ "$(grep -c ' cuCtxGetCurrent(' "$WORK/log")" = $((2 * N)) ] || { say "  CUTAP_LOG: $(grep -c ' cuCtxGetCurrent(' "$WORK/log") lines"; exit 1; }
grep -q "^ *[0-9.]* *[0-9]* *$((2 * N)) .*cuCtxGetCurrent$" "$WORK/stat" || { say "  CUTAP_STAT table:"; cat "$WORK/stat" >&2; exit 1; }
# the command-line tools
"$CUTAP" trace -o "$WORK/cli" -- $T/t_fds reuse $N "$WORK/data.cli" >"$WORK/cli.out" 2>"$WORK/cli.err" \
    || { say "  cutap trace: status $?"; cat "$WORK/cli.err" >&2; exit 1; }
check_data "$WORK/cli.out" || exit 1
grep -q '^cutap: 1 process traced into .*: 100,001 calls' "$WORK/cli.err" \
    || { say "  cutap trace summary:"; cat "$WORK/cli.err" >&2; exit 1; }
"$CUTAP" stat -o "$WORK/st.txt" -- $T/t_fds reuse $N "$WORK/data.st" >"$WORK/st.out" 2>"$WORK/st.err" \
    || { say "  cutap stat: status $?"; cat "$WORK/st.err" >&2; exit 1; }
check_data "$WORK/st.out" || exit 1

# the trace file removed before the descriptor is taken: stop, say so
mkdir -p "$WORK/rm"
"$CUTAP" trace -o "$WORK/rm" -- $T/t_fds reuse $N "$WORK/data.rm" "$WORK/rm" >"$WORK/rm.out" 2>"$WORK/rm.err" \
    || { say "  removed file: status $?"; cat "$WORK/rm.err" >&2; exit 1; }
check_data "$WORK/rm.out" || exit 1
grep -Eq "^cutap: process [0-9]+ \(.*t_fds\): recording stopped: the program closed cutap's descriptor of the trace file and it could not be opened again: No such file or directory; [0-9,]+ calls not recorded$" \
    "$WORK/rm.err" || { say "  removed file: the loss is not said:"; cat "$WORK/rm.err" >&2; exit 1; }

# 0, 1 and 2 closed before the first call
for run in "env CUTAP_TRACE=$WORK/s.tr LD_PRELOAD=$LIB" "env CUTAP_COUNT=$WORK/s.ct LD_PRELOAD=$LIB" \
           "$CUTAP trace -o $WORK/s.cli --" "$CUTAP stat -o $WORK/s.st --"; do
    rm -f "$WORK/std"
    $run $T/t_fds std "$WORK/std" </dev/null >/dev/null 2>&1
    rc=$?
    [ $rc = 0 ] && grep -qx 'stdin 0 stdout 1' "$WORK/std" || { say "  $run: status $rc: $(cat "$WORK/std")"; exit 1; }
done
