#!/usr/bin/env bash
# No hand-written source file (C, assembly, Python, shell, make) has more
# than 800 lines (docs/ARCHITECTURE.md); generated files and data are not
# counted. The checker is shown to catch a file of 801 lines, and to
# leave a generated one of any length alone.
. "$(dirname "$0")/../../lib/init.sh"

command -v python3 >/dev/null || exit 77
python3 "$TL/layout_check.py" lengths || exit 1

mkdir -p "$WORK/t/src/core" "$WORK/t/src/generated" "$WORK/t/docs"
seq 801 | sed 's#^#/* #; s#$# */#' >"$WORK/t/src/core/long.c"
{ echo '/* DO NOT EDIT: generated */'; seq 5000 | sed 's#^#/* #; s#$# */#'; } >"$WORK/t/src/generated/big.c"
seq 800 | sed 's#^#/* #; s#$# */#' >"$WORK/t/src/core/fits.c"
if out=$(python3 "$TL/layout_check.py" lengths --root "$WORK/t" 2>&1); then
    say "  a file of 801 lines: not caught"; exit 1
fi
grep -q 'src/core/long.c: 801 lines' <<<"$out" || { say "  not said: $out"; exit 1; }
if grep -q 'big.c\|fits.c' <<<"$out"; then say "  counted what it must not: $out"; exit 1; fi
say "  a file of 801 lines: caught; 800 lines and a generated file: left alone"
