#!/usr/bin/env bash
# No hand-written source file (C, assembly, Python, shell, make) has more
# than 800 lines (docs/ARCHITECTURE.md); generated files and data are not
# counted. The checker is shown to catch a file of 801 lines, a script
# without an extension of 801, a file outside generated/ whose banner says
# DO NOT EDIT, and to leave 800 lines and a file under generated/ alone.
. "$(dirname "$0")/../../lib/init.sh"

command -v python3 >/dev/null || exit 77
python3 "$TL/layout_check.py" lengths || exit 1

mkdir -p "$WORK/t/src/core" "$WORK/t/src/generated" "$WORK/t/docs"
seq 801 | sed 's#^#/* #; s#$# */#' >"$WORK/t/src/core/long.c"
{ echo '/* DO NOT EDIT: generated */'; seq 5000 | sed 's#^#/* #; s#$# */#'; } >"$WORK/t/src/generated/big.c"
seq 800 | sed 's#^#/* #; s#$# */#' >"$WORK/t/src/core/fits.c"
mkdir -p "$WORK/t/tests"
{ echo '#!/bin/sh'; seq 800 | sed 's/^/: /'; } >"$WORK/t/tests/runner"
{ echo '# DO NOT EDIT (claims to be generated)'; seq 900 | sed 's/^/# /'; } >"$WORK/t/src/core/claims.py"
if out=$(python3 "$TL/layout_check.py" lengths --root "$WORK/t" 2>&1); then
    say "  a file of 801 lines: not caught"; exit 1
fi
for want in 'src/core/long.c: 801 lines' 'tests/runner: 801 lines' 'src/core/claims.py: 901 lines'; do
    grep -q "$want" <<<"$out" || { say "  not said ($want): $out"; exit 1; }
done
if grep -q 'big.c\|fits.c' <<<"$out"; then say "  counted what it must not: $out"; exit 1; fi
say "  801 lines, a script of 801, a banner outside generated/: caught; 800 lines and a generated file: left alone"
