#!/usr/bin/env bash
# CUTAP_LIBRARY names the library cutap trace preloads; a missing one is
# refused.
. "$(dirname "$0")/../../lib/init.sh"

CUTAP_LIBRARY=$WORK/none.so "$CUTAP" trace -o "$WORK/lc1" -- true 2>"$WORK/lc1.err"; [ $? = 1 ] || exit 1
grep -q 'CUTAP_LIBRARY=.*none.so' "$WORK/lc1.err" || exit 1
CUTAP_LIBRARY=$LIB "$CUTAP" trace -o "$WORK/lc2" -- $T/t_record many 1 >/dev/null 2>&1 && [ "$(ls "$WORK/lc2" | wc -l)" = 1 ]
