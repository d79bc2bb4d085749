#!/usr/bin/env bash
# The real CUDA 11.8 runtime (Debian's libcudart.so.11.0, where the machine
# has one: skipped elsewhere) under cutap trace on the fake driver
# (tests/t_real_rt11.c): it starts and fails to initialise (no GPU), and
# the output and status stay the bare run's; its calls are typed by CUDA
# 11.8's headers: cudaGraphInstantiate with 11.8's 5 parameters,
# cudaMemPrefetchAsync with its int device, cudaRuntimeGetVersion and
# cudaMalloc as 13.0 declares them, cudaThreadSynchronize (which 13.0 no
# longer has) intercepted at all; each recorded once with the words the
# program passed, under 11.8's parameter names (tests/lib/older_typed.py);
# dump decodes them and marks nothing untyped; a plugin is told 11.8's
# parameters (cutap_call_nargs, cutap_call_arg: tests/plugins/argnames.c).
. "$(dirname "$0")/../../lib/init.sh"

d=$WORK/rt11 prog=$T/t_real_rt11
"$prog" >"$d.bare" 2>/dev/null
rc=$?
[ $rc = 77 ] && { say "  no libcudart.so.11.0 on this machine"; exit 77; }
[ $rc = 0 ] || { say "  bare run: status $rc"; cat "$d.bare" >&2; exit 1; }
"$CUTAP" trace -o "$d.tr" -- "$prog" >"$d.out" 2>"$d.err" || { say "  cutap trace: status $?"; tail -5 "$d.err" >&2; exit 1; }
diff "$d.bare" "$d.out" >&2 || { say "  output under cutap trace (>) differs from the bare run's (<)"; exit 1; }
"$CUTAP" export --format jsonl -o "$d.jsonl" "$d.tr" 2>/dev/null || exit 1
python3 "$TL/older_typed.py" "$d.err" "$d.jsonl" >/dev/null || exit 1
"$CUTAP" dump "$d.tr" >"$d.dump" 2>/dev/null || exit 1
grep -q '^[0-9.]* \[[0-9/]*\] cudaGraphInstantiate(pGraphExec=0x[0-9a-f]*, graph=0x[0-9a-f]*, pErrorNode=0x[0-9a-f]*, pLogBuffer=0x[0-9a-f]*, bufferSize=64) = cudaError' "$d.dump" \
    || { say "  dump does not decode 11.8's cudaGraphInstantiate:"; grep cudaGraphInstantiate "$d.dump" >&2; exit 1; }
! grep -q "(untyped" "$d.dump" || { say "  calls marked untyped:"; grep "(untyped" "$d.dump" | head -3 >&2; exit 1; }
# the plugin API: 11.8's signature of the call being made
CUTAP_PLUGINS=$T/argnames.so "$CUTAP" trace -o "$d.tr2" -- "$prog" >/dev/null 2>"$d.plug" || exit 1
for want in "argnames cudaGraphInstantiate 5 pGraphExec:2,graph:2,pErrorNode:2,pLogBuffer:2,bufferSize:1" \
            "argnames cudaMemPrefetchAsync 4 devPtr:2,count:1,dstDevice:0,stream:2" \
            "argnames cudaMalloc 2 devPtr:2,size:1" "argnames cudaThreadSynchronize 0 -"; do
    grep -qx "$want" "$d.plug" || { say "  the plugin was not told: $want"; grep "^argnames" "$d.plug" >&2; exit 1; }
done
