#!/usr/bin/env bash
# Plugin ABI version 2: a plugin built against the ids of another build
# (every id one higher, tests/tests.mk) that asks for cuCtxGetCurrent by
# name sees exactly its 5 calls; the same plugin with the id compiled in
# from those tables (what version 1 plugins did) sees none of them (so
# the case can fail); a version 1 plugin is refused with a message and
# the program runs as bare.
. "$(dirname "$0")/../../lib/init.sh"

CUTAP_PLUGINS=$T/abi_names.so LD_PRELOAD=$LIB $T/t_record many 5 >/dev/null 2>"$WORK/abi1.err" || exit 1
grep -qx 'abi-names: watched=5 other=0' "$WORK/abi1.err" || { cat "$WORK/abi1.err" >&2; exit 1; }
CUTAP_PLUGINS=$T/abi_numbers.so LD_PRELOAD=$LIB $T/t_record many 5 >/dev/null 2>"$WORK/abi2.err" || exit 1
grep -q '^abi-numbers: watched=0 ' "$WORK/abi2.err" || { cat "$WORK/abi2.err" >&2; exit 1; }
$T/t_record many 5 >"$WORK/abi3.want" 2>&1 || exit 1
CUTAP_PLUGINS=$T/api_v1.so LD_PRELOAD=$LIB $T/t_record many 5 >"$WORK/abi3.out" 2>"$WORK/abi3.err" || exit 1
grep -q "plugin $T/api_v1.so not used: it is of cutap API version 1" "$WORK/abi3.err" && ! grep -q 'init called' "$WORK/abi3.err" \
    && cmp -s "$WORK/abi3.want" "$WORK/abi3.out" || { cat "$WORK/abi3.err" >&2; exit 1; }
