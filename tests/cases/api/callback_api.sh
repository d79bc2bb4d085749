#!/usr/bin/env bash
# The callback API (tests/plugins/apitest.c): a plugin rewrites an argument,
# skips a call and supplies its result, sees nesting and its parent, gets
# scratch space, and makes an untyped call inside the post callback of
# another.
. "$(dirname "$0")/../../lib/init.sh"

CUTAP_PLUGINS=$T/apitest.so LD_PRELOAD=$LIB $T/t_api >"$WORK/api.out" 2>"$WORK/api.err" \
    || { cat "$WORK/api.out" "$WORK/api.err" >&2; exit 1; }
grep -q 'apitest: modified=1 skipped=1 nested_depth=1 parent=cuProfilerStart posts=[0-9]* scratch=ok inner=14 pairs=ok' "$WORK/api.err" \
    || { cat "$WORK/api.err" >&2; exit 1; }
