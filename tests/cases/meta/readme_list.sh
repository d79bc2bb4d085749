#!/usr/bin/env bash
# The list of the cases in docs/TESTS.md (between its BEGIN and END
# tests/list lines) is what tests/list prints from the case headers: a case
# added, removed or redescribed without `tests/list --update-readme` fails
# here.
. "$(dirname "$0")/../../lib/init.sh"

sed -n '/^<!-- BEGIN tests\/list/,/^<!-- END tests\/list -->$/p' docs/TESTS.md >"$WORK/readme"
[ -s "$WORK/readme" ] || { say "  docs/TESTS.md has no BEGIN/END tests/list block"; exit 1; }
tests/list >"$WORK/list" || exit 1
diff "$WORK/readme" "$WORK/list" >&2 || { say "  docs/TESTS.md (<) and tests/list (>) differ: run tests/list --update-readme"; exit 1; }
