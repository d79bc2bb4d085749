#!/usr/bin/env bash
# A program that put a data file on fd 2 and then hits a recording
# failure: its data file is unchanged (warnings go to cutap's own
# channel: cutap trace prints them on its stderr).
. "$(dirname "$0")/../../lib/init.sh"

m=$WORK/wfs; small_fs "$m" 4m || exit $?
printf 'precious\n' >"$WORK/data"
"$CUTAP" trace -o "$m/t" -- sh -c "exec 2>>$WORK/data; $T/t_record many 200000 >/dev/null" 2>"$WORK/wf.err" || exit 1
[ "$(cat "$WORK/data")" = precious ] || { say "  data file changed:"; cat "$WORK/data" >&2; exit 1; }
grep -q 'warning: recording stopped: cannot extend the trace file: No space left on device' "$WORK/wf.err" \
    || { cat "$WORK/wf.err" >&2; exit 1; }
# Plain CUTAP_TRACE on a full disk: no registry can be made; silent.
rm -rf "$m"/*; fill_fs "$m"
CUTAP_TRACE=$m/p LD_PRELOAD=$LIB sh -c "exec 2>>$WORK/data; $T/t_record many 2000 >/dev/null" || exit 1
[ "$(cat "$WORK/data")" = precious ] || { say "  data file changed (plain CUTAP_TRACE):"; cat "$WORK/data" >&2; exit 1; }
