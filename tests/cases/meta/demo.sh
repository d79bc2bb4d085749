#!/usr/bin/env bash
# make demo (the README's first command): entry points through
# cuGetProcAddress (per-thread variants), decoded arguments, an export table
# by name and a call through it, and the summary table.
. "$(dirname "$0")/../../lib/init.sh"

make -s demo >"$WORK/demo.out" 2>&1 || { tail -20 "$WORK/demo.out" >&2; exit 1; }
# Entry points the demo got through cuGetProcAddress (per-thread
# variants), decoded arguments, the export table by name and a call
# through it, and the summary table.
for want in ' cuMemcpyHtoD_v2_ptds(' ' cuLaunchKernel_ptsz(' ' FAKE_SIZED#1(' '<FAKE_SIZED>' \
    'cuGetProcAddress_v2(symbol="cuMemAlloc", ' 'Time(%)' 'demo: driver version 13000' '1 process traced into'; do
    grep -qF -- "$want" "$WORK/demo.out" || { say "  demo output lacks '$want'"; cat "$WORK/demo.out" >&2; exit 1; }
done
