#!/usr/bin/env bash
# Issue #17, part 2: cutap trace --stack. The native stack of each call
# the filter selects, named at read time from the objects' symbols, with
# cutap's own frames left out: a launch made inside the fake NCCL's
# all-reduce shows the fake library's functions, then the program's main;
# other calls have none. With the term errors, only failing calls get one
# (an injected OOM at the 2nd allocation: that call alone), and report
# --errors shows it under the first failing call; JSON lines carry
# "stack". The program's output is unchanged; bad filters and cutap stat
# are refused.
. "$(dirname "$0")/../../lib/init.sh"

export LD_LIBRARY_PATH=$FL:$LD_LIBRARY_PATH
$T/t_ranks 2 >"$WORK/bare.out" 2>&1 || exit 1
"$CUTAP" trace --stack 'cuLaunchKernelEx' -o "$WORK/a" -- $T/t_ranks 2 >"$WORK/a.out" 2>/dev/null || exit 1
diff "$WORK/bare.out" "$WORK/a.out" >&2 || exit 1
"$CUTAP" dump "$WORK/a" >"$WORK/a.dump" 2>/dev/null || exit 1
python3 - "$WORK/a.dump" <<'PY' || { cat "$WORK/a.dump" >&2; exit 1; }
import re, sys
lines = open(sys.argv[1]).read().splitlines()
stacks, cur = {}, None
for l in lines:
    m = re.match(r"^[0-9.]+ \[\d+/\d+\] +(\w+)\(", l)
    if m:
        cur = [m.group(1), []]
        stacks.setdefault(m.group(1), []).append(cur[1])
    elif l.strip().startswith("at ") and cur:
        cur[1].append(l.strip()[3:])
launches = stacks["cuLaunchKernelEx"]
assert len(launches) == 2 and all(launches), launches
for s in launches:
    assert s[0].startswith("do_all_reduce+0x") and s[0].endswith("(libnccl.so.2)"), s
    assert any(f.startswith("ncclAllReduce+0x") for f in s), s
    assert any(f.startswith("main+0x") and f.endswith("(t_ranks)") for f in s), s
    assert not any("libcutap" in f for f in s), s
for name, ss in stacks.items():
    if name != "cuLaunchKernelEx":
        assert not any(ss), (name, ss)
PY
# errors: only the failing call
"$CUTAP" trace --stack errors --inject 'cuMemAlloc*:error=CUDA_ERROR_OUT_OF_MEMORY:when=2' -o "$WORK/e" -- \
    $T/t_inject alloc 3 >/dev/null 2>&1 || exit 1
"$CUTAP" export --format jsonl -o "$WORK/e.jsonl" "$WORK/e" 2>/dev/null || exit 1
python3 - "$WORK/e.jsonl" <<'PY' || exit 1
import json, sys
c = [json.loads(l) for l in open(sys.argv[1])]
c = [x for x in c if x.get("type") == "call"]
with_stack = [x for x in c if "stack" in x]
assert len(with_stack) == 1 and with_stack[0]["status"] == "CUDA_ERROR_OUT_OF_MEMORY", with_stack
s = with_stack[0]["stack"]
assert any(f.startswith("main+0x") and f.endswith("(t_inject)") for f in s), s
PY
"$CUTAP" report --errors "$WORK/e" 2>/dev/null | grep -A3 'cuMemAlloc_v2(dptr' | grep -q '^ *at main+0x[0-9a-f]* (t_inject)$' \
    || { "$CUTAP" report --errors "$WORK/e" >&2; exit 1; }
"$CUTAP" trace --stack 'layer=nosuch' -- true 2>/dev/null; [ $? = 2 ] || { say "  bad --stack taken"; exit 1; }
"$CUTAP" stat --stack errors -- true 2>/dev/null; [ $? = 2 ] || { say "  stat took --stack"; exit 1; }
exit 0
