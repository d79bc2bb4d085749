#!/usr/bin/env bash
# Resource limits are met like a full disk, never with a signal. Under
# ulimit -f 300 (below the registry's full size) cutap trace and cutap stat
# run a command as bare; under ulimit -f 1024 a traced program outgrowing
# the limit runs on as bare (status, output), recording stops, the header
# says EFBIG, recorded + lost = made, and cutap trace says so; the same
# through CUTAP_LOG and CUTAP_STAT files. The program's own writes past the
# limit still get their SIGXFSZ, as bare. Under ulimit -v the trace stops
# when a segment cannot be mapped, said the same way.
. "$(dirname "$0")/../../lib/init.sh"

for cmd in trace stat; do
    out=$(ulimit -f 300; "$CUTAP" $cmd $([ $cmd = trace ] && echo "-o $WORK/f300") -- sh -c 'echo hi' 2>"$WORK/f300.$cmd.err")
    rc=$?
    [ $rc = 0 ] && [ "$out" = hi ] || { say "  ulimit -f 300, cutap $cmd: status $rc, output '$out'"; cat "$WORK/f300.$cmd.err" >&2; exit 1; }
done

# (a program printing little: its own output must fit the limit too)
PROG="$T/t_record threads 1 70000"
UNDER="CUTAP_TRACE=$WORK/p LD_PRELOAD=$LIB" bare_same f1 bash -c "ulimit -f 1024; exec $PROG" || exit 1
N=$(sed -n 's/^CALLS //p' "$WORK/f1.bo")
f=$(ls "$WORK"/p/*.cutap) || exit 1
read -r ver flags err reason lost <<<"$(hdr_loss "$f")"
[ $((flags & 4)) = 4 ] && [ "$err" = 27 ] && [ "$reason" = 1 ] \
    || { say "  header: flags $flags errno $err reason $reason (EFBIG, could not be extended expected)"; exit 1; }
rec=$("$CUTAP" report --format csv "$WORK/p" 2>/dev/null | awk -F, 'NR > 1 {n += $3} END {print n}')
[ -n "$rec" ] && [ $((rec + lost)) = $N ] && [ "$lost" -gt 0 ] || { say "  recorded $rec + lost $lost != $N"; exit 1; }

(ulimit -f 1024; exec "$CUTAP" trace -o "$WORK/cli" -- $PROG) >"$WORK/cli.out" 2>"$WORK/cli.err" \
    || { say "  cutap trace under ulimit -f 1024: status $?"; cat "$WORK/cli.err" >&2; exit 1; }
cmp -s "$WORK/f1.bo" "$WORK/cli.out" || { say "  cutap trace: output differs"; exit 1; }
grep -Eq "^cutap: process [0-9]+ \(.*t_record\): recording stopped after [0-9,]+ calls: the trace file could not be extended: File too large; [0-9,]+ calls not recorded$" \
    "$WORK/cli.err" || { cat "$WORK/cli.err" >&2; exit 1; }
(ulimit -f 1024; exec "$CUTAP" stat -o "$WORK/st.txt" -- $PROG) >"$WORK/st.out" 2>"$WORK/st.err" \
    || { say "  cutap stat under ulimit -f 1024: status $?"; cat "$WORK/st.err" >&2; exit 1; }
grep -q "cuCtxGetCurrent" "$WORK/st.txt" || { say "  cutap stat wrote no table"; exit 1; }

# the text clients: a log far past the limit, a table written at exit
UNDER="CUTAP_LOG=$WORK/log CUTAP_STAT=$WORK/stat LD_PRELOAD=$LIB" bare_same f2 bash -c "ulimit -f 1024; exec $PROG" || exit 1
[ "$(stat -c %s "$WORK/log")" -le 1048576 ] || { say "  the log outgrew the limit"; exit 1; }

# a warning of cutap's to the program's stderr (not recording), that
# stderr a file at its limit: the warning is lost, the program runs on
bash -c "ulimit -f 0; exec $T/t_record many 3 >/dev/null 2>$WORK/w0.bare"; rb=$?
CUTAP_DRIVER=/nonexistent LD_PRELOAD=$LIB bash -c "ulimit -f 0; exec $T/t_record many 3 >/dev/null 2>$WORK/w0.err"; rc=$?
[ $rb = 0 ] && [ $rc = 0 ] && [ ! -s "$WORK/w0.err" ] || { say "  a warning past the file-size limit: status $rc (bare $rb)"; exit 1; }
# the program's own write past the limit: its SIGXFSZ, as bare
# (bash -c reports its child's signal as status 153)
UNDER="CUTAP_TRACE=$WORK/own LD_PRELOAD=$LIB" bare_same own bash -c "exec 2>/dev/null; ulimit -f 10; $T/t_record many 10 >/dev/null; head -c 100000 /dev/zero >$WORK/big; echo \$?" \
    || exit 1
[ "$(cat "$WORK/own.bo")" = 153 ] || { say "  bare: head past the limit ended with $(cat "$WORK/own.bo"), not SIGXFSZ: this check proves nothing"; exit 1; }

# address space: a segment that cannot be mapped stops recording, said
(ulimit -v 150000; exec "$CUTAP" trace -o "$WORK/as" -- $T/t_record many 3000000) >"$WORK/as.out" 2>"$WORK/as.err" \
    || { say "  cutap trace under ulimit -v: status $?"; cat "$WORK/as.err" >&2; exit 1; }
grep -Eq "^cutap: process [0-9]+ \(.*t_record\): recording stopped after [0-9,]+ calls: the trace file could not be mapped: Cannot allocate memory; [0-9,]+ calls not recorded$" \
    "$WORK/as.err" || { say "  ulimit -v: the loss is not said:"; cat "$WORK/as.err" >&2; exit 1; }
if grep -q "not traced" "$WORK/as.err"; then say "  ulimit -v: a process also listed as not traced:"; cat "$WORK/as.err" >&2; exit 1; fi
exit 0
