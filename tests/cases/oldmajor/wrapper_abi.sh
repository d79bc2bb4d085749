#!/usr/bin/env bash
# Every exported entry with a fast path through cutap_hot leaves the
# caller's registers and stack untouched on the way to its target (a
# caller of another major passes other arguments than the generated
# signature declares): tests/tools/wrapper_abi.py reads the machine code.
. "$(dirname "$0")/../../lib/init.sh"

command -v objdump >/dev/null || exit 77
python3 tests/tools/wrapper_abi.py "$LIB" >"$WORK/abi.out" || { tail -20 "$WORK/abi.out" >&2; exit 1; }
say "  $(tail -1 "$WORK/abi.out")"
