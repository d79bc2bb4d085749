#!/usr/bin/env bash
# make demo (the README's first command): entry points through
# cuGetProcAddress (per-thread variants), decoded arguments, an export table
# by name and a call through it, and the summary table; each command it
# prints runs as printed (pasted into a shell).
. "$(dirname "$0")/../../lib/init.sh"

make -s demo >"$WORK/demo.out" 2>&1 || { tail -20 "$WORK/demo.out" >&2; exit 1; }
# Entry points the demo got through cuGetProcAddress (per-thread
# variants), decoded arguments, the export table by name and a call
# through it, and the summary table.
for want in ' cuMemcpyHtoD_v2_ptds(' ' cuLaunchKernel_ptsz(' ' FAKE_SIZED#1(' '<FAKE_SIZED>' \
    'cuGetProcAddress_v2(symbol="cuMemAlloc", ' 'Self(%)' 'demo: driver version 13000' '1 process traced into'; do
    grep -qF -- "$want" "$WORK/demo.out" || { say "  demo output lacks '$want'"; cat "$WORK/demo.out" >&2; exit 1; }
done
# the printed commands, pasted
grep '^== ' "$WORK/demo.out" | sed 's/^== //; s/   (.*//' >"$WORK/cmds"
[ "$(wc -l <"$WORK/cmds")" = 3 ] || { say "  not 3 commands printed"; cat "$WORK/cmds" >&2; exit 1; }
rm -rf build/demo-trace   # (the trace command refuses to write over a trace)
while read -r cmd; do
    sh -c "$cmd" >"$WORK/pasted.out" 2>&1 || { say "  printed, pasted, failed: $cmd"; tail -5 "$WORK/pasted.out" >&2; exit 1; }
done <"$WORK/cmds"
