#!/usr/bin/env bash
# dump: decoded arguments, outputs, error names, strings, demangled kernel
# names, --no-demangle, --pid over a directory of two processes.
. "$(dirname "$0")/../../lib/init.sh"

"$CUTAP" trace -o "$WORK/dd" -- $T/t_record errors >/dev/null 2>&1 || exit 1
"$CUTAP" trace -o "$WORK/dd2" -- $T/t_record kernels >/dev/null 2>&1 || exit 1
cp "$WORK"/dd2/*.cutap "$WORK/dd/k.cutap"   # a second process in the directory
"$CUTAP" dump "$WORK/dd" >"$WORK/dd.txt" || exit 1
while IFS= read -r pat; do
    grep -qE -- "$pat" "$WORK/dd.txt" || { say "  no line matches: $pat"; cat "$WORK/dd.txt" >&2; exit 1; }
done <"$HERE/dump_decodes.dump-patterns"
# --no-demangle keeps the mangled name; --pid selects one process
"$CUTAP" dump --no-demangle "$WORK/dd" | grep -q 'f=0xf0000000<_Z6vecaddPfS_i>' || exit 1
pid=$(grep -m1 ' cuLaunchKernel(' "$WORK/dd.txt" | sed 's/.*\[\([0-9]*\)\/.*/\1/')
[ "$("$CUTAP" dump --pid "$pid" "$WORK/dd" | grep -c .)" = 7 ] || { say "  --pid $pid"; exit 1; }
"$CUTAP" dump --pid 1 "$WORK/dd" >/dev/null 2>&1; [ $? = 1 ]
