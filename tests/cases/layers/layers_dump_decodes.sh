#!/usr/bin/env bash
# dump decodes the runtime, cuBLAS and NCCL stand-ins' arguments and
# statuses, and indents the driver calls a runtime call makes under it; the
# exports carry the same decoded text and statuses.
. "$(dirname "$0")/../../lib/init.sh"

layers_trace ld || exit 1
"$CUTAP" dump "$WORK/ld" >"$WORK/ld.txt" || exit 1
while IFS= read -r pat; do
    grep -qE -- "$pat" "$WORK/ld.txt" || { say "  no line matches: $pat"; cat "$WORK/ld.txt" >&2; exit 1; }
done <"$HERE/layers_dump_decodes.dump-patterns"
# The driver calls a runtime call makes: the next lines, one level deeper.
grep -A1 '\] cudaMalloc(.*size=4096)' "$WORK/ld.txt" | tail -1 \
    | grep -qE '\]   cuMemAlloc_v2\(dptr=0x[0-9a-f]+→0x7f[0-9a-f]+, bytesize=4096\) = CUDA_SUCCESS <' \
    && grep -A1 '\] cudaMemcpy(' "$WORK/ld.txt" | tail -1 | grep -q '\]   cuMemcpyHtoD_v2(dstDevice=0x7f' \
    || { say "  driver calls not indented under their runtime call:"; cat "$WORK/ld.txt" >&2; exit 1; }
# The exports decode like dump: "decoded" is what dump prints between
# the parentheses, "status" the result by name; "args" stays the raw words.
command -v python3 >/dev/null || exit 0
for f in jsonl sqlite perfetto; do "$CUTAP" export --format $f -o "$WORK/ld.$f" "$WORK/ld" || exit 1; done
python3 "$TL/layers_exports_decode.py" "$WORK"
