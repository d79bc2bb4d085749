#!/usr/bin/env bash
# C unit tests of the -e / CUTAP_FILTER language (tests/unit/
# test_filter_expr.c, in-process on src/common/filter_expr.c): globs on
# names, any positive term selects and any exclusion wins, layer terms by
# every layer's name in any case, calls without a name, the 254-character
# term limit, and every way an expression is refused, with its message.
. "$(dirname "$0")/../../lib/init.sh"

"$T/unit" filter_expr
