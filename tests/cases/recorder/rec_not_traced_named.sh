#!/usr/bin/env bash
# Processes started but never traced, named with the reason: a static
# child, a child exec'd with an empty environment, a setuid child; a
# static command itself. The traced ones are not listed.
. "$(dirname "$0")/../../lib/init.sh"

[ -x $T/t_static ] || { say "  no static libc: skipped"; exit 77; }
cp /bin/true "$WORK/suid_true" && chown 65534 "$WORK/suid_true" && chmod 4755 "$WORK/suid_true" || exit 1
"$CUTAP" trace -o "$WORK/nt" -- sh -c "$T/t_static a; env -i LD_LIBRARY_PATH=$LD_LIBRARY_PATH $T/t_record many 1 >/dev/null; $WORK/suid_true; $T/t_record many 2" \
    >"$WORK/nt.out" 2>"$WORK/nt.err" || { cat "$WORK/nt.err" >&2; exit 1; }
line=$(grep '^cutap: .* not traced: ' "$WORK/nt.err")
[[ $line == "cutap: 3 processes not traced: "* ]] \
    && [[ $line == *"$T/t_static (pid "[0-9]*"): statically linked"* ]] \
    && [[ $line == *"$T/t_record (pid "[0-9]*"): its environment has no LD_PRELOAD of libcutap"* ]] \
    && [[ $line == *"$WORK/suid_true (pid "[0-9]*"): setuid"* ]] || { cat "$WORK/nt.err" >&2; exit 1; }
grep -q '^cutap: 1 process traced into ' "$WORK/nt.err" || { cat "$WORK/nt.err" >&2; exit 1; }
"$CUTAP" trace -o "$WORK/nt2" -- $T/t_static b >/dev/null 2>"$WORK/nt2.err" || exit 1
grep -q "^cutap: 1 process not traced: $T/t_static (pid [0-9]*): statically linked$" "$WORK/nt2.err" \
    || { cat "$WORK/nt2.err" >&2; exit 1; }
# posix_spawn (Python's os.posix_spawn): the static child named, the
# traced one not; an exec that failed (no such program) is no process.
if command -v python3 >/dev/null; then
    "$CUTAP" trace -o "$WORK/nt4" -- python3 "$TL/posix_spawn.py" $T/t_static $T/t_record >/dev/null 2>"$WORK/nt4.err" || { cat "$WORK/nt4.err" >&2; exit 1; }
    grep -q "^cutap: 1 process not traced: $T/t_static (pid [0-9]*): statically linked$" "$WORK/nt4.err" \
        && grep -q '^cutap: 1 process traced into ' "$WORK/nt4.err" || { cat "$WORK/nt4.err" >&2; exit 1; }
fi
# The normal case says nothing of it.
"$CUTAP" trace -o "$WORK/nt3" -- sh -c "$T/t_record many 2; true" >/dev/null 2>"$WORK/nt3.err" || exit 1
[ "$(wc -l <"$WORK/nt3.err")" = 1 ] && grep -q '^cutap: 1 process traced into .*: 2 calls, ' "$WORK/nt3.err" \
    || { cat "$WORK/nt3.err" >&2; exit 1; }
