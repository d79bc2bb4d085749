#!/usr/bin/env bash
# A program built against CUDA 12 or 11 (gen/old_major_generator.py): each
# layer's old fake (libcudart.so.12, libcusparse.so.11, ...) has every
# function that major's headers declare with another signature than 13.0
# (cudaGraphInstantiate with 5 arguments in 11, cudaMemPrefetchAsync with an
# int device in 12 and 11, cusparse's descriptors without const), and two
# functions that major does not declare: one taking more arguments than
# 13.0 declares (three on the stack) and one taking fewer than 13.0's
# outputs (the others left holding an unmapped address); through the PLT
# (versioned references such as cudaMalloc@libcudart.so.12) and through
# dlopen + dlsym. Under cutap trace and cutap stat: the output and status of
# the bare run (every word reaches the fakes unchanged), every call
# recorded exactly once, the nested calls under their callers, the calls
# that major declares typed with its signature (words and parameter names:
# tests/lib/older_typed.py), the others untyped (raw register words, dump
# saying why), the failures counted as errors in both modes, and report
# naming the layers of another major. Arguments: ERA_MODE (12_plt, 12_dl,
# 11_plt, 11_dl) [nowx: under a W^X policy, tests/lib_nowx.c preloaded];
# one case per line of tests/cases/variants.tsv.
. "$(dirname "$0")/../../lib/init.sh"

[ "${2:-}" = nowx ] && export LD_PRELOAD=$T/libnowx.so
prog=$T/t_old$1 d=$WORK/old$1 major=${1%_*}
libs_env "$prog" >"$d.bare" 2>"$d.bare.err" || { say "  bare run failed"; tail -5 "$d.bare.err" >&2; exit 1; }
rm -rf "$d.tr" "$d.st"
libs_env "$CUTAP" trace -o "$d.tr" -- "$prog" >"$d.out" 2>"$d.err" || { say "  cutap trace: status $?"; tail -5 "$d.err" >&2; exit 1; }
diff "$d.bare" "$d.out" >&2 || { say "  output under cutap trace (>) differs from the bare run's (<)"; exit 1; }
libs_env "$CUTAP" stat -o "$d.st" -- "$prog" >"$d.sout" 2>"$d.serr" || { say "  cutap stat: status $?"; tail -5 "$d.serr" >&2; exit 1; }
diff "$d.bare" "$d.sout" >&2 || { say "  output under cutap stat (>) differs from the bare run's (<)"; exit 1; }
# plus the cublasLtMatmul the fake cublasSgemm_v2 makes
{ called "$d.bare"; echo cublasLtMatmul; } >"$d.called"
"$CUTAP" report --format csv "$d.tr" | awk -F, 'NR > 1 && $1 != "driver" { for (i = 0; i < $3; i++) print $2 }' >"$d.seen"
same_counts "$d.called" "$d.seen" || exit 1
# the calls that failed (each 'out' function returns 1) are
# errors in the trace and in counting mode, untyped as they are
sed -n 's/^\([A-Za-z_0-9]*\) = 1$/\1/p' "$d.bare" | sort >"$d.failed"
# (a layer has one where that major leaves a function with an output
# undeclared: the runtime, cuBLAS, cuDNN, nvJitLink or cuSPARSE)
[ "$(wc -l <"$d.failed")" -ge 4 ] || { say "  fewer than 4 failing calls"; exit 1; }
rm -rf "$d.cnt"
CUTAP_COUNT=$d.cnt LD_PRELOAD=$LIB libs_env "$prog" >/dev/null 2>&1 || exit 1
for m in tr cnt; do
    "$CUTAP" report --format csv "$d.$m" 2>/dev/null | awk -F, 'NR > 1 && $1 != "driver" && $4 > 0 { print $2 }' | sort >"$d.$m.err"
    diff "$d.failed" "$d.$m.err" >&2 || { say "  $m: calls that failed (<) and calls counted as errors (>) differ"; exit 1; }
done
"$CUTAP" report "$d.tr" 2>&1 >/dev/null | grep -q "note: process [0-9]*: libcudart.so.$major" \
    || { say "  report does not say the runtime layer is of another major"; exit 1; }
"$CUTAP" report --tree --format csv "$d.tr" | cut -d, -f1 >"$d.tree"
for path in "cudaMalloc > cuMemAlloc_v2" "cudaFree > cuMemFree_v2" "cublasSgemm_v2 > cublasLtMatmul > cuLaunchKernel"; do
    grep -qx "$path" "$d.tree" || { say "  no call path '$path' in the tree"; cat "$d.tree" >&2; exit 1; }
done
"$CUTAP" export --format jsonl -o "$d.jsonl" "$d.tr" || exit 1
# typed as that major declares them, or untyped (6 raw registers)
python3 "$TL/older_typed.py" "$d.err" "$d.jsonl" >/dev/null || exit 1
# dump says why a call is untyped
"$CUTAP" dump "$d.tr" >"$d.dump" 2>/dev/null || exit 1
u=$(sed -n 's/^UNTYPED //p' "$d.err" | head -1)
[ -n "$u" ] || { say "  no untyped call announced"; exit 1; }
grep "$u(" "$d.dump" | grep -q "(untyped: CUDA [0-9 and]*'s headers do not declare it for lib" \
    || { say "  dump does not say why $u is untyped"; grep "$u(" "$d.dump" >&2; exit 1; }
