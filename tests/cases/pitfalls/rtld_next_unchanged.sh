#!/usr/bin/env bash
# Another library's dlsym(RTLD_NEXT) gets the same answers under cutap; a
# driver name looked up with RTLD_NEXT gets cutap's wrapper.
. "$(dirname "$0")/../../lib/init.sh"

$T/t_rtldnext >"$WORK/rn.bare" 2>"$WORK/rn.bare.err" || exit 1
LD_PRELOAD=$LIB $T/t_rtldnext >"$WORK/rn.cutap" 2>"$WORK/rn.cutap.err" || exit 1
diff "$WORK/rn.bare" "$WORK/rn.cutap" >&2 || exit 1
grep -q 'tap_probe here=2 next=libnext_a.so value=1' "$WORK/rn.cutap" || exit 1
# A driver name looked up with RTLD_NEXT gets cutap's wrapper.
grep -q 'cuInit owner: libcutap.so' "$WORK/rn.cutap.err" || { cat "$WORK/rn.cutap.err" >&2; exit 1; }
