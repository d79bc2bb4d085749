#!/usr/bin/env bash
# Issue #30: a usage error (an unknown option, a missing or extra operand,
# a bad value, an unknown command) is at most 3 lines on stderr, says what
# is wrong, ends by pointing to the subcommand's --help, and exits 2;
# --help still prints the whole usage on stdout and exits 0; --delay and
# --duration take a unit (0ms, 30s).
. "$(dirname "$0")/../../lib/init.sh"

check() {   # check ARGS...: a usage error
    "$CUTAP" "$@" >"$WORK/o" 2>"$WORK/e"
    local rc=$? n
    n=$(wc -l <"$WORK/e")
    if [ $rc != 2 ] || [ "$n" -gt 3 ] || [ "$n" -lt 2 ] || [ -s "$WORK/o" ] ||
        ! tail -1 "$WORK/e" | grep -qE "^Try 'cutap( [a-z]+)? --help' for more information\.$"; then
        say "  cutap $*: exit $rc, $n lines:"; cat "$WORK/e" >&2; exit 1
    fi
}
check trace --bogus -- true
check trace
check trace --runtime=x -- true
check trace --duration=-1 -- true
check stat --zz -- true
check report --bogus x
check report
check report a b
check dump -Q x
check dump
check export --format jsonl
check export --bogus
check ps a b
check freeze
check run
check nosuchcommand
grep -q "^cutap trace: unrecognized option '--bogus'" <("$CUTAP" trace --bogus -- true 2>&1) \
    || { say "  getopt's message does not name 'cutap trace'"; exit 1; }
for c in trace stat report dump export ps freeze run; do
    "$CUTAP" $c --help >"$WORK/h" 2>&1 && [ "$(wc -l <"$WORK/h")" -gt 3 ] && grep -q "^usage: cutap $c" "$WORK/h" \
        || { say "  cutap $c --help"; head -3 "$WORK/h" >&2; exit 1; }
done
# durations take their unit where seconds are asked for (--delay, --duration)
"$CUTAP" trace --delay 0ms --duration 30s -o "$WORK/du" -- true 2>"$WORK/du.err" || { say "  --delay 0ms --duration 30s refused"; cat "$WORK/du.err" >&2; exit 1; }
