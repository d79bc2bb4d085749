#!/usr/bin/env bash
# The folders import one way (docs/ARCHITECTURE.md): every #include of
# src/, cli/ and include/, resolved as the Makefile's -I options resolve
# it, goes to the includer's own folder or to a folder of a lower layer in
# the page's table, so no two folders import each other and no circle
# forms. The checker is shown to catch it, on copies of the tree: a file of
# src/common that includes the core's header (an import upward), one of
# src/core that includes resolve's (the old circle), a folder the page
# does not place, and an include nothing resolves.
. "$(dirname "$0")/../../lib/init.sh"

command -v python3 >/dev/null || exit 77
python3 "$TL/layout_check.py" imports || exit 1

# a copy of what the check reads, to break
copy() {
    rm -rf "$WORK/t"; mkdir -p "$WORK/t/docs"
    cp -r Makefile src cli include "$WORK/t/" && cp docs/ARCHITECTURE.md "$WORK/t/docs/"
}
expect() {   # expect WHAT PATTERN: the check fails, saying PATTERN
    if out=$(python3 "$TL/layout_check.py" imports --root "$WORK/t" 2>&1); then
        say "  $1: not caught"; exit 1
    fi
    grep -q -- "$2" <<<"$out" || { say "  $1: not said ($2)"; printf '%s\n' "$out" | tail -5 >&2; exit 1; }
    say "  $1: caught"
}
copy; echo '#include "core_internal.h"' >>"$WORK/t/src/common/filter_expr.c"
expect "src/common imports from src/core" 'src/common/filter_expr.c:.*src/common (layer [0-9]*) imports core_internal.h from src/core'
copy; echo '#include "resolve_internal.h"' >>"$WORK/t/src/core/dispatch.c"
expect "src/core imports from src/resolve" 'src/core/dispatch.c:.*imports resolve_internal.h from src/resolve'
copy; mkdir "$WORK/t/src/extra"; printf '#include "core_internal.h"\n' >"$WORK/t/src/extra/x.c"
expect "a folder the page does not place" 'folder src/extra has no row'
copy; echo '#include "no_such_header.h"' >>"$WORK/t/cli/util.c"
expect "an include nothing resolves" 'cli/util.c:.*"no_such_header.h" is found nowhere'
