#!/usr/bin/env bash
# Issue #17, part 1: --inject. On the fake driver and NCCL:
#  - error= at exactly the calls when= names (N, N+, N+S, N..M), counted per
#    process over the calls NAMES selects; the real function is not reached
#    (the fake driver hands out device pointers in sequence: a call not made
#    takes none); its outputs untouched;
#  - threads: 4 x 250 calls with when=500 fail exactly once;
#  - per process: each process of a shell, and a forked child, count from 1;
#  - a library layer with its own status names (ncclSystemError), rank=
#    (only RANK=1's process), delay= (the call made 300 ms late);
#  - injected calls marked: dump INJECTED, report counts them apart (not
#    among errors), JSON lines "injected";
#  - cutap run (nothing recorded) and cutap stat inject the same;
#  - bad specs refused before the command starts, naming the wrong part:
#    a status of another layer, no function selected, a layer that cannot
#    be injected, a function that returns no status, bad when/rank/delay,
#    an unknown key;
#  - numbers the selected functions' result type cannot hold (issue #24
#    item 8: error=4294967296 reached a CUresult caller as 0, CUDA_SUCCESS,
#    the call skipped and its pointer never written): too large, negative
#    for an unsigned type, beyond 64 bits, with trailing junk; the
#    message names the type by its public name (CUresult, cudaError_t, not
#    the enum tags cudaError_enum, cudaError) and shows a status of it;
#    retval= on a function that returns nothing or that no header declares.
. "$(dirname "$0")/../../lib/init.sh"

export LD_LIBRARY_PATH=$FL:$LD_LIBRARY_PATH
OOM='cuMemAlloc*:error=CUDA_ERROR_OUT_OF_MEMORY'
failed_at() { sed -n 's/^\(.*\)alloc \([0-9]*\) = 2 0x0$/\1\2/p' "$1" | tr '\n' ' '; }
# the pointers handed out: consecutive whatever failed
ptrs_ok() { python3 -c '
import sys
p = [int(l.split()[-1], 16) for l in open(sys.argv[1]) if " = 0 0x" in l]
sys.exit(any(b - a != 1 << 20 for a, b in zip(p, p[1:])))' "$1"; }
check_when() {   # WHEN EXPECTED
    "$CUTAP" run --inject "$OOM:when=$1" -- $T/t_inject alloc 10 >"$WORK/w.out" 2>&1 || { cat "$WORK/w.out" >&2; exit 1; }
    [ "$(failed_at "$WORK/w.out")" = "$2" ] || { say "  when=$1: failed at '$(failed_at "$WORK/w.out")', want '$2'"; exit 1; }
    ptrs_ok "$WORK/w.out" || { say "  when=$1: a pointer was taken by a call not made"; cat "$WORK/w.out" >&2; exit 1; }
    grep -q '^alloc 10 = ' "$WORK/w.out" || exit 1
}
check_when 3 "3 "
check_when 8+ "8 9 10 "
check_when 2+3 "2 5 8 "
check_when 4..6 "4 5 6 "
check_when 11 ""
"$CUTAP" run --inject "$OOM" -- $T/t_inject alloc 3 >"$WORK/all.out" 2>&1
[ "$(failed_at "$WORK/all.out")" = "1 2 3 " ] || { say "  no when=: not every call"; exit 1; }

# threads: the 500th call of the process, exactly once
"$CUTAP" run --inject 'cuCtxGetDevice:error=CUDA_ERROR_INVALID_CONTEXT:when=500' -- $T/t_inject threads 4 250 \
    >"$WORK/t.out" 2>&1 || exit 1
grep -qx 'failed 1 of 1000' "$WORK/t.out" || { cat "$WORK/t.out" >&2; exit 1; }

# per process: two processes of a shell, a forked child
"$CUTAP" run --inject "$OOM:when=2" -- sh -c "$T/t_inject alloc 3; $T/t_inject alloc 3" >"$WORK/p.out" 2>&1 || exit 1
[ "$(failed_at "$WORK/p.out")" = "2 2 " ] || { say "  per process: '$(failed_at "$WORK/p.out")'"; exit 1; }
"$CUTAP" run --inject "$OOM:when=2" -- $T/t_inject fork 3 >"$WORK/f.out" 2>&1 || exit 1
[ "$(failed_at "$WORK/f.out")" = "child 2 parent 2 " ] || { say "  fork: '$(failed_at "$WORK/f.out")'"; exit 1; }

# traced: marks, report, JSON lines; NCCL's own status names, rank=, delay=
"$CUTAP" trace -o "$WORK/tr" --inject "$OOM:when=2" --inject 'ncclAllReduce:error=ncclSystemError:when=2:rank=1' \
    --inject 'ncclAllReduce:delay=300ms:when=3' -- \
    sh -c "RANK=0 $T/t_inject nccl 3; RANK=1 $T/t_inject nccl 3; $T/t_inject alloc 3" >"$WORK/tr.out" 2>"$WORK/tr.err" \
    || { cat "$WORK/tr.err" >&2; exit 1; }
grep -c '^nccl 2 = 2$' "$WORK/tr.out" | grep -qx 1 && grep -c '^nccl 2 = 0$' "$WORK/tr.out" | grep -qx 1 \
    || { say "  rank=1: not only in rank 1"; cat "$WORK/tr.out" >&2; exit 1; }
"$CUTAP" dump "$WORK/tr" >"$WORK/tr.dump" 2>/dev/null || exit 1
grep -q 'cuMemAlloc_v2(dptr=0x[0-9a-f]*, bytesize=1048576) = CUDA_ERROR_OUT_OF_MEMORY (2) <[^>]*> INJECTED (not made)' \
    "$WORK/tr.dump" && grep -q 'ncclAllReduce(.*) = ncclSystemError (2) <[^>]*> INJECTED (not made)' "$WORK/tr.dump" \
    || { say "  dump marks"; grep -e Alloc -e ncclAll "$WORK/tr.dump" >&2; exit 1; }
[ "$(grep -c 'ncclAllReduce(.*) = ncclSuccess <[0-9.]* ms> INJECTED (delayed)' "$WORK/tr.dump")" = 2 ] \
    || { say "  delayed calls"; grep ncclAll "$WORK/tr.dump" >&2; exit 1; }
"$CUTAP" export --format jsonl -o "$WORK/tr.jsonl" "$WORK/tr" 2>/dev/null || exit 1
python3 - "$WORK/tr.jsonl" <<'PY' || exit 1
import json, sys
c = [json.loads(l) for l in open(sys.argv[1])]
c = [x for x in c if x.get("type") == "call"]
made = [x for x in c if x.get("injected") == "not made"]
late = [x for x in c if x.get("injected") == "delayed"]
assert sorted(x["name"] for x in made) == ["cuMemAlloc_v2", "ncclAllReduce"], made
assert len(late) == 2 and all(x["dur_ns"] >= 300e6 for x in late), late
assert all(x["name"] == "ncclAllReduce" for x in late)
PY
if python3 -c 'import sqlite3' 2>/dev/null && ldconfig -p | grep -q 'libsqlite3.so.0'; then
    "$CUTAP" export --format sqlite -o "$WORK/tr.db" "$WORK/tr" 2>/dev/null || exit 1
    python3 - "$WORK/tr.db" <<'PY' || exit 1
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT name, injected FROM calls_named WHERE injected IS NOT NULL ORDER BY id").fetchall()
assert sorted(rows) == sorted([("cuMemAlloc_v2", "not made"), ("ncclAllReduce", "not made"), ("ncclAllReduce", "delayed"),
                               ("ncclAllReduce", "delayed")]), rows
PY
fi
"$CUTAP" report --format json "$WORK/tr" >"$WORK/tr.json" 2>/dev/null || exit 1
python3 - "$WORK/tr.json" <<'PY' || exit 1
import json, sys
rows = {r["name"]: r for r in json.load(open(sys.argv[1]))["rows"]}
assert rows["cuMemAlloc_v2"]["injected"] == 1 and rows["cuMemAlloc_v2"]["errors"] == 0, rows["cuMemAlloc_v2"]
assert rows["ncclAllReduce"]["injected"] == 3 and rows["ncclAllReduce"]["errors"] == 0, rows["ncclAllReduce"]
PY
"$CUTAP" report "$WORK/tr" 2>/dev/null | grep -q 'cuMemAlloc_v2 (1 injected)' || { say "  report text"; exit 1; }

# stat injects too
"$CUTAP" stat --inject "$OOM:when=1" -- $T/t_inject alloc 2 >"$WORK/s.out" 2>"$WORK/s.err" || exit 1
[ "$(failed_at "$WORK/s.out")" = "1 " ] || { say "  stat did not inject"; exit 1; }

# refused before anything runs, naming the wrong part
refuse() {   # SPEC TEXT
    "$CUTAP" run --inject "$1" -- touch "$WORK/ran" 2>"$WORK/r.err"; rc=$?
    [ $rc = 2 ] && [ ! -e "$WORK/ran" ] && grep -qF -- "$2" "$WORK/r.err" \
        || { say "  '$1': exit $rc, want 2 and '$2'"; cat "$WORK/r.err" >&2; exit 1; }
    "$CUTAP" trace -o "$WORK/never" --inject "$1" -- true 2>/dev/null; [ $? = 2 ] && [ ! -e "$WORK/never" ] \
        || { say "  trace took '$1'"; exit 1; }
}
refuse 'cuMemAlloc_v2:error=cudaErrorMemoryAllocation' "'cudaErrorMemoryAllocation' is not a status of cuMemAlloc_v2"
said() { grep -qF -- "$1" "$WORK/r.err" || { say "  want '$1' in:"; cat "$WORK/r.err" >&2; exit 1; }; }
said "(layer driver, type CUresult, e.g. CUDA_ERROR_INVALID_VALUE)"
refuse 'cudaMalloc:error=CUDA_ERROR_OUT_OF_MEMORY' "is not a status of cudaMalloc"
said "(layer runtime, type cudaError_t, e.g. cudaErrorInvalidValue)"
# out of the result type's range: refused, not truncated
refuse 'cuMemAlloc*:error=4294967296' "4294967296 is out of the range of CUresult, the result type of cuMemAlloc"
said "(0..4294967295): the caller would get 0, CUDA_SUCCESS"
said "give a status of CUresult, by name or number: e.g. CUDA_ERROR_INVALID_VALUE (1)"
refuse 'cuMemAlloc_v2:retval=0x100000000' "4294967296 is out of the range of CUresult"
refuse 'cuMemAlloc_v2:error=-1' "-1 is out of the range of CUresult"
refuse 'cudaMalloc:error=4294967298' "4294967298 is out of the range of cudaError_t"
said "e.g. cudaErrorInvalidValue (1)"
refuse 'ncclAllReduce:error=0x100000002' "out of the range of ncclResult_t"
said "the caller would get 2, ncclSystemError"
refuse 'cublasSgemm_v2:error=4294967299' "out of the range of cublasStatus_t"
refuse 'cublasIsamax:retval=2147483648' "2147483648 is out of the range of int, the result type of cublasIsamax (-2147483648..2147483647): the caller would get -2147483648"
refuse 'cublasIsamax:retval=-2147483649' "out of the range of int"
refuse 'cudaGetErrorString:retval=-1' "out of the range of const char *"
refuse 'cuMemAlloc*:error=18446744073709551616' "not a number (decimal or 0x hex, 64 bits at most)"
refuse 'cuMemAlloc*:retval=-9223372036854775809' "not a number"
refuse 'cuMemAlloc*:error=4x' "'error=4x': not a number"
refuse 'cuMemAlloc*:error=0x' "not a number"
refuse 'cuMemAlloc*:error=+2' "not a number"
refuse '__cudaRegisterFunction:retval=0' "__cudaRegisterFunction returns nothing (void)"
refuse 'cuMemGetAttribute:retval=1' "no header declares cuMemGetAttribute: its result cannot be set"
# the edges of the ranges are taken
for ok in 'cuMemAlloc*:error=4294967295' 'cuMemAlloc*:error=0xffffffff' 'cublasIsamax:retval=-2147483648' \
          'cublasIsamax:retval=2147483647' 'cudaGetErrorString:retval=18446744073709551615' 'cuMemGetAttribute:delay=1ms'; do
    "$CUTAP" run --inject "$ok" -- true 2>"$WORK/ok.err" || { say "  '$ok' refused:"; cat "$WORK/ok.err" >&2; exit 1; }
done
refuse 'cuNoSuchThing*:error=1' "selects none of the"
refuse 'layer=nvtx:delay=1s' "cannot be injected"
refuse 'cudaGetErrorString:error=1' "error= needs functions that return a status"
refuse 'cuMemAlloc*:error=2:when=0' "when= takes N, N+, N+S or N..M"
refuse 'cuMemAlloc*:error=2:when=5..2' "when= takes"
refuse 'cuMemAlloc*:error=2:rank=x' "rank= takes"
refuse 'cuMemAlloc*:delay=-1s' "delay= takes a duration"
refuse 'cuMemAlloc*:errror=2' "unknown key"
refuse 'cuMemAlloc*' "says neither error=, retval= nor delay="
refuse ':error=2' "no function names"
# retval: any value, named or not
"$CUTAP" run --inject 'cuMemAlloc*:retval=999:when=1' -- $T/t_inject alloc 1 >"$WORK/rv.out" 2>&1
grep -qx 'alloc 1 = 999 0x0' "$WORK/rv.out" || { cat "$WORK/rv.out" >&2; exit 1; }
# the largest CUresult reaches the caller whole (t_inject prints it as an int)
"$CUTAP" run --inject 'cuMemAlloc*:error=0xffffffff:when=1' -- $T/t_inject alloc 1 >"$WORK/rv.out" 2>&1
grep -qx 'alloc 1 = -1 0x0' "$WORK/rv.out" || { cat "$WORK/rv.out" >&2; exit 1; }
exit 0
