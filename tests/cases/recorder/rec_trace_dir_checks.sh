#!/usr/bin/env bash
# cutap trace refuses, before the command runs, an -o that is not a
# directory of ours that only we can write (and whose parent nobody
# else owns): /proc, a regular file, a symlink, another user's
# directory or a directory in one, a directory others may write.
. "$(dirname "$0")/../../lib/init.sh"

printf 'x\n' >"$WORK/reg"
mkdir -p "$WORK/real" "$WORK/theirs" "$WORK/open" "$WORK/their_parent"
ln -sfn "$WORK/real" "$WORK/link"
chown 65534 "$WORK/theirs" "$WORK/their_parent"; chmod 0777 "$WORK/open"
for d in /proc/cutap-x "$WORK/reg" "$WORK/link" "$WORK/theirs" "$WORK/their_parent/t" "$WORK/open"; do
    rm -f "$WORK/ran"
    "$CUTAP" trace -o "$d" -- touch "$WORK/ran" 2>"$WORK/dc.err"; rc=$?
    [ $rc = 1 ] && [ ! -e "$WORK/ran" ] || { say "  -o $d: exit $rc, command run: $([ -e "$WORK/ran" ] && echo yes)"; exit 1; }
    grep -q "^cutap: \(refusing -o\|cannot create\) $d" "$WORK/dc.err" || { cat "$WORK/dc.err" >&2; exit 1; }
done
[ "$(cat "$WORK/reg")" = x ] && [ -z "$(ls -A "$WORK/real")" ] || exit 1
# Writable by a group other than ours: refused; by our own group
# (umask 002 with user private groups): accepted.
mkdir -p "$WORK/grp" "$WORK/owngrp"; chgrp 65534 "$WORK/grp"; chmod 0770 "$WORK/grp" "$WORK/owngrp"
"$CUTAP" trace -o "$WORK/grp" -- true 2>"$WORK/dc.err"; [ $? = 1 ] && grep -q 'writable by other users' "$WORK/dc.err" || exit 1
"$CUTAP" trace -o "$WORK/owngrp" -- true 2>"$WORK/dc.err" || { cat "$WORK/dc.err" >&2; exit 1; }
# Ours: directory 0700, files 0600.
"$CUTAP" trace -o "$WORK/mine" -- $T/t_record many 3 >/dev/null 2>&1 || exit 1
[ "$(stat -c %a "$WORK/mine")" = 700 ] && [ "$(stat -c %a "$WORK/mine"/*.cutap "$WORK/mine/.cutap-procs" | sort -u)" = 600 ] \
    || { stat -c '%a %n' "$WORK/mine" "$WORK/mine"/* "$WORK/mine"/.cutap-procs >&2; exit 1; }
