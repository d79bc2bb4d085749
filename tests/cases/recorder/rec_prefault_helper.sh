#!/usr/bin/env bash
# Trace mode populates the pages of the next chunks on a helper thread
# (src/record/file.c, "Page population off the calling thread"): a
# process past its first chunk has exactly one thread named cutap-pages,
# with SIGINT, SIGTERM, SIGUSR1, SIGCHLD and SIGALRM blocked (no signal
# meant for the program is delivered to it); a process of a handful of
# calls has none (its file stays one chunk); CUTAP_PREFAULT=0 makes none;
# every call is recorded in each case, and the file is no larger with the
# helper than without (it populates chunks of segments mapped already; it
# used to map and allocate the next segment, up to 64 MiB, ahead).
. "$(dirname "$0")/../../lib/init.sh"

for v in 20000:1:1 5:1:0 20000:0:0; do
    want=${v##*:}; pf=${v#*:}; pf=${pf%:*}; n=${v%%:*}
    rm -rf "$WORK/pf" "$WORK/pf.out"
    CUTAP_PREFAULT=$pf CUTAP_TRACE=$WORK/pf LD_PRELOAD=$LIB $T/t_record wait $n >"$WORK/pf.out" &
    pid=$!
    for i in $(seq 100); do grep -q ready "$WORK/pf.out" 2>/dev/null && break; sleep 0.05; done
    sleep 0.2   # the helper names itself as it starts
    names=$(cat /proc/$pid/task/*/comm 2>/dev/null | grep -c '^cutap-pages$')
    blk=$(for t in /proc/$pid/task/*; do grep -qx cutap-pages $t/comm && sed -n 's/^SigBlk:[[:space:]]*//p' $t/status; done)
    kill -TERM $pid; wait $pid 2>/dev/null
    [ "$names" = "$want" ] || { say "  $n calls, CUTAP_PREFAULT=$pf: $names helper threads, want $want"; exit 1; }
    if [ "$want" = 1 ]; then
        # bits of signals 2, 15, 10, 17, 14 (bit k-1 for signal k)
        (( (0x$blk >> 1 & 1) && (0x$blk >> 14 & 1) && (0x$blk >> 9 & 1) && (0x$blk >> 16 & 1) && (0x$blk >> 13 & 1) )) \
            || { say "  helper's blocked signals: $blk"; exit 1; }
    fi
    "$CUTAP" report --format csv "$WORK/pf" 2>/dev/null | grep -q "^driver,cuCtxGetCurrent,$n,0," \
        || { say "  $n calls, CUTAP_PREFAULT=$pf: not all recorded"; "$CUTAP" report "$WORK/pf" >&2; exit 1; }
    [ "$n" = 20000 ] && eval "size$pf=$(stat -c %s "$WORK"/pf/*.cutap)"
done
[ "$size1" = "$size0" ] || { say "  file with the helper $size1 bytes, without $size0"; exit 1; }
