#!/usr/bin/env bash
# A tid the kernel gave to a second thread after the first exited, each
# numbering its record runs from 0 (tests/mk_trace.c tidreuse): the
# streaming reader takes a second run 0 of a tid as another thread, so the
# calls come out in time order and the inner call keeps its parent (read
# by tid alone, the runs interleaved: a call dumped before an earlier one,
# the inner call at the top).
. "$(dirname "$0")/../../lib/init.sh"

[ -x $MK ] || exit 77
d=$WORK/tr; mkdir -p "$d"
$MK tidreuse "$d" || exit 1
"$CUTAP" export --format jsonl -o "$WORK/tr.jsonl" "$d" || exit 1
python3 - "$WORK/tr.jsonl" <<'PY' || exit 1
import json, sys
cs = [c for c in map(json.loads, open(sys.argv[1])) if c["type"] == "call"]
names = [c["name"] for c in cs]
assert names == ["cuInit", "cuCtxSynchronize", "cuLaunchKernel", "cuCtxGetCurrent"], names
assert [c["t_ns"] for c in cs] == sorted(c["t_ns"] for c in cs), [c["t_ns"] for c in cs]
by = {c["id"]: c for c in cs}
inner = cs[3]
assert inner["parent"] and by[inner["parent"]]["name"] == "cuLaunchKernel" and inner["depth"] == 1, inner
PY
"$CUTAP" report --tree --format csv "$d" | grep -q '^cuLaunchKernel > cuCtxGetCurrent,driver,cuCtxGetCurrent,1,1,' \
    || { "$CUTAP" report --tree --format csv "$d" >&2; exit 1; }
