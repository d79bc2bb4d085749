#!/usr/bin/env bash
# After the command exited, SIGTERM ends cutap's wait for orphans (and
# cutap exits with the command's status); `cutap stat -o FILE` does not
# leak FILE into the command; an LD_PRELOAD entry that merely contains
# cutap's path is not cutap.
. "$(dirname "$0")/../../lib/init.sh"

# (the orphan's pid is written where this case finds it: it kills its own
# orphan only, and signals cutap once the command has exited)
"$CUTAP" trace -o "$WORK/sg" -- sh -c 'sleep 30 >/dev/null 2>&1 & echo $! >"$0"; exit 4' "$WORK/sg.pid" 2>/dev/null &
cp=$!
i=0; while [ ! -s "$WORK/sg.pid" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
orphan=$(cat "$WORK/sg.pid" 2>/dev/null)
[ -n "$orphan" ] && on_exit "kill $orphan 2>/dev/null"
sleep 0.5; kill -TERM $cp
i=0; while kill -0 $cp 2>/dev/null && [ $i -lt 40 ]; do sleep 0.1; i=$((i + 1)); done
kill -0 $cp 2>/dev/null && { say "  cutap still waiting after SIGTERM"; kill -9 $cp; exit 1; }
wait $cp; st=$?; [ $st = 4 ] || { say "  status $st, want 4"; exit 1; }
# `cutap stat -o FILE`: the command does not inherit the report file.
"$CUTAP" stat -o "$WORK/sg.txt" -- sh -c 'for f in /proc/$$/fd/*; do readlink $f; done; true' >"$WORK/sg.fds" 2>/dev/null || exit 1
grep -q 'sg.txt' "$WORK/sg.fds" && { say "  report file leaked into the command"; exit 1; }
# A LD_PRELOAD entry that merely contains cutap's path is not cutap.
LD_PRELOAD="$LIB.old" "$CUTAP" trace -o "$WORK/sg2" -- $T/t_record many 2 >/dev/null 2>&1 || exit 1
[ "$(ls "$WORK/sg2" | wc -l)" = 1 ]
