#!/usr/bin/env bash
# The command links no SQLite: --format sqlite loads libsqlite3.so.0 (or
# $CUTAP_SQLITE_LIB) when asked for. Without it: status 1, a message
# naming the library, no output and no temporary left; the other
# formats never touch it.
. "$(dirname "$0")/../../lib/init.sh"

"$CUTAP" trace -o "$WORK/nl" -- $T/t_record kernels >/dev/null 2>&1 || exit 1
mkdir -p "$WORK/nlout"
for lib in /nonexistent/libsqlite3.so:'cannot be loaded: /nonexistent/libsqlite3.so' libc.so.6:'has no sqlite3_'; do
    want=${lib#*:}; lib=${lib%%:*}
    CUTAP_SQLITE_LIB=$lib "$CUTAP" export --format sqlite -o "$WORK/nlout/x.sqlite" "$WORK/nl" 2>"$WORK/nl.err"
    st=$?
    [ $st = 1 ] || { say "  CUTAP_SQLITE_LIB=$lib: exit $st, want 1"; cat "$WORK/nl.err" >&2; exit 1; }
    grep -q "^cutap export: --format sqlite needs libsqlite3.so.0.*$want" "$WORK/nl.err" \
        || { say "  CUTAP_SQLITE_LIB=$lib: no message with '$want':"; cat "$WORK/nl.err" >&2; exit 1; }
    [ -z "$(ls -A "$WORK/nlout")" ] || { say "  left behind: $(ls -A "$WORK/nlout")"; exit 1; }
done
for f in perfetto jsonl; do
    CUTAP_SQLITE_LIB=/nonexistent/libsqlite3.so "$CUTAP" export --format $f -o "$WORK/nlout/x.$f" "$WORK/nl" \
        && [ -s "$WORK/nlout/x.$f" ] || { say "  --format $f failed without libsqlite3"; exit 1; }
done
CUTAP_SQLITE_LIB=/nonexistent/libsqlite3.so "$CUTAP" report "$WORK/nl" >/dev/null || exit 1
# the real library, named by the variable
real=$(/sbin/ldconfig -p 2>/dev/null | awk '$1 == "libsqlite3.so.0" { print $NF; exit }')
[ -n "$real" ] || exit 0
CUTAP_SQLITE_LIB=$real "$CUTAP" export --format sqlite -o "$WORK/nlout/x.sqlite" "$WORK/nl" \
    && [ -s "$WORK/nlout/x.sqlite" ]
