#!/usr/bin/env bash
# Issue #17, part 2: cutap report --errors. A process whose context
# synchronisation returns an illegal address (injected) after three kernel
# launches: the sticky error is named with its call, and the three launches
# since the start (no good synchronisation before) are listed; a process
# whose allocations fail from the second on: the first failing one is
# shown with its arguments and result, INJECTED, "and 2 more", and the
# sticky errors after the first are counted per function; a process
# without errors is not listed; --errors refuses --format and --tree.
# --sync-launches: the fake driver's second launch "faults" (the context
# synchronisation after it returns an illegal address): without the option
# the error shows at cuCtxSynchronize after 3 launches; with
# --sync-launches 'cuLaunchKernel*' the second launch returns it itself.
. "$(dirname "$0")/../../lib/init.sh"

export LD_LIBRARY_PATH=$FL:$LD_LIBRARY_PATH
"$CUTAP" trace -o "$WORK/e" --inject 'cuCtxSynchronize:error=CUDA_ERROR_ILLEGAL_ADDRESS' \
    --inject 'cuMemAlloc*:error=CUDA_ERROR_ILLEGAL_ADDRESS:when=2+:rank=1' -- \
    sh -c "$T/t_ranks 3; RANK=1 $T/t_inject alloc 4; RANK=2 $T/t_inject alloc 1" >/dev/null 2>&1 || exit 1
"$CUTAP" report --errors "$WORK/e" >"$WORK/e.txt" 2>/dev/null || { cat "$WORK/e.txt" >&2; exit 1; }
python3 - "$WORK/e.txt" <<'PY' || { cat "$WORK/e.txt" >&2; exit 1; }
import re, sys
t = open(sys.argv[1]).read()
procs = re.split(r"\n(?=process )", t)
assert procs[0].startswith("cutap report --errors: 3 processes, 4 failing calls"), procs[0]
assert len(procs) == 3, "process without errors listed, or one missing: %d" % (len(procs) - 1)
r, a = procs[1], procs[2]
assert "(t_ranks)" in r and re.search(r"sticky error.*\n +[0-9.]+ \[\d+\] cuCtxSynchronize\(\) = CUDA_ERROR_ILLEGAL_ADDRESS INJECTED", r), r
assert "since the start (no successful synchronisation before it)" in r, r
assert len(re.findall(r"cuLaunchKernelEx\(config=\{gridDimX=8,.*f=0xfa4e0100.*= CUDA_SUCCESS", r)) == 3, r
assert "(t_inject)" in a and " rank 1:" in a, a
assert re.search(r"cuMemAlloc_v2\(dptr=0x[0-9a-f]+, bytesize=1048576\) = CUDA_ERROR_ILLEGAL_ADDRESS INJECTED\n +and 2 more failing cuMemAlloc_v2", a), a
assert "then 2 x cuMemAlloc_v2 returned a sticky error" in a, a
assert "none recorded" in a, a
PY
FAKE_LAUNCH_FAULT=2 "$CUTAP" trace -o "$WORK/s0" -- $T/t_ranks 3 >/dev/null 2>&1
FAKE_LAUNCH_FAULT=2 "$CUTAP" trace -o "$WORK/s1" --sync-launches 'cuLaunchKernel*' -- $T/t_ranks 3 >/dev/null 2>&1
"$CUTAP" report --errors "$WORK/s0" >"$WORK/s0.txt" 2>/dev/null && "$CUTAP" report --errors "$WORK/s1" >"$WORK/s1.txt" 2>/dev/null || exit 1
python3 - "$WORK/s0.txt" "$WORK/s1.txt" <<'PY' || { cat "$WORK/s0.txt" "$WORK/s1.txt" >&2; exit 1; }
import re, sys
s0, s1 = open(sys.argv[1]).read(), open(sys.argv[2]).read()
first = lambda t: re.search(r"sticky error.*\n +[0-9.]+ \[\d+\] (\w+)\(.*\) = (\w+)", t).groups()
assert first(s0) == ("cuCtxSynchronize", "CUDA_ERROR_ILLEGAL_ADDRESS"), first(s0)
assert first(s1) == ("cuLaunchKernelEx", "CUDA_ERROR_ILLEGAL_ADDRESS"), first(s1)
launched = lambda t: len(re.findall(r"\n +[0-9.]+ \[\d+\] cuLaunchKernelEx\(", t.split("kernel launches since")[1]))
assert launched(s0) == 3 and launched(s1) == 2, (launched(s0), launched(s1))
PY
"$CUTAP" stat --sync-launches 'cuLaunchKernel*' -- true 2>/dev/null; [ $? = 2 ] || { say "  stat took --sync-launches"; exit 1; }
for o in "--format json" "--tree" "--by thread"; do
    # shellcheck disable=SC2086
    "$CUTAP" report --errors $o "$WORK/e" >/dev/null 2>&1; [ $? = 2 ] || { say "  --errors took $o"; exit 1; }
done
exit 0
