#!/usr/bin/env bash
# cutap stat -o FILE: never through a symlink, never over an existing
# file without --force, 0600, and left as it was (a new one not made)
# when the command cannot run.
. "$(dirname "$0")/../../lib/init.sh"

printf 'target\n' >"$WORK/so_target"; ln -sfn "$WORK/so_target" "$WORK/so_link"
"$CUTAP" stat -o "$WORK/so_link" -- $T/t_record many 3 >/dev/null 2>"$WORK/so.err"; [ $? = 1 ] || exit 1
"$CUTAP" stat --force -o "$WORK/so_link" -- $T/t_record many 3 >/dev/null 2>>"$WORK/so.err"; [ $? = 1 ] || exit 1
[ "$(cat "$WORK/so_target")" = target ] || { say "  symlink target changed"; exit 1; }
printf 'old\n' >"$WORK/so_old"
"$CUTAP" stat -o "$WORK/so_old" -- $T/t_record many 3 >/dev/null 2>>"$WORK/so.err"; [ $? = 1 ] || exit 1
grep -q 'exists (--force replaces it)' "$WORK/so.err" && [ "$(cat "$WORK/so_old")" = old ] || { cat "$WORK/so.err" >&2; exit 1; }
"$CUTAP" stat --force -o "$WORK/so_old" -- "$WORK/no-such-program" 2>/dev/null; [ $? = 127 ] || exit 1
[ "$(cat "$WORK/so_old")" = old ] || { say "  truncated although the command did not run"; exit 1; }
"$CUTAP" stat -o "$WORK/so_new" -- "$WORK/no-such-program" 2>/dev/null; [ $? = 127 ] && [ ! -e "$WORK/so_new" ] || exit 1
"$CUTAP" stat --force -o "$WORK/so_old" -- $T/t_record many 3 >/dev/null 2>&1 || exit 1
grep -q cuCtxGetCurrent "$WORK/so_old" && ! grep -q old "$WORK/so_old" || exit 1
"$CUTAP" stat -o "$WORK/so_new" -- $T/t_record many 3 >/dev/null 2>&1 || exit 1
[ "$(stat -c %a "$WORK/so_new")" = 600 ] && grep -q cuCtxGetCurrent "$WORK/so_new" || exit 1
# --force on a FIFO (what was opened is checked: the open neither
# blocks nor writes into it)
rm -f "$WORK/so_fifo"; mkfifo "$WORK/so_fifo" || exit 1
timeout 10 "$CUTAP" stat --force -o "$WORK/so_fifo" -- $T/t_record many 3 >/dev/null 2>"$WORK/so.err"
[ $? = 1 ] && grep -q 'not a regular file' "$WORK/so.err" || { say "  --force onto a FIFO:"; cat "$WORK/so.err" >&2; exit 1; }
