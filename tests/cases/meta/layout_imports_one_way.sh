#!/usr/bin/env bash
# The folders import one way (docs/ARCHITECTURE.md): every #include of
# src/, cli/ and include/, resolved as the Makefile's -I options resolve
# it, goes to the includer's own folder or to a folder of a lower layer in
# the page's table, so no two folders import each other and no circle
# forms; a folder's private headers (an *_internal.h its row does not
# offer) are included only inside it. The checker is shown to catch it, on
# copies of the tree: a file of src/common that includes the core's header
# (an import upward), the same with <...>, one of src/core that includes
# resolve's (the old circle), a private header of src/record included from
# src/generated, a computed #include, a folder the page does not place
# (with and without includes), a folder with two rows, and an include
# nothing resolves.
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
copy; echo '#include <core_internal.h>' >>"$WORK/t/src/common/filter_expr.c"
expect "src/common imports from src/core with <...>" 'src/common/filter_expr.c:.*imports core_internal.h from src/core'
copy; echo '#include "writer_internal.h"' >>"$WORK/t/src/generated/fast_table.c"
expect "a private header used outside its folder" 'src/generated/fast_table.c:.*writer_internal.h is private to src/record'
copy; printf '#define H "core_internal.h"\n#include H\n' >>"$WORK/t/src/core/ids.c"
expect "a computed include" 'src/core/ids.c:.*computed #include'
copy; mkdir "$WORK/t/src/lone"; printf 'int lone(void) { return 1; }\n' >"$WORK/t/src/lone/x.c"
expect "a folder with sources but no includes" 'folder src/lone has no row'
copy; grep '^| `src/core` |' docs/ARCHITECTURE.md >>"$WORK/t/docs/ARCHITECTURE.md"
expect "a folder with two rows" 'folder src/core has more than one row'
