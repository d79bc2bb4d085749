#!/usr/bin/env bash
# Issue #14: a library carrying its own static runtime copy
# (tests/lib_dnn_static_rt.c, as cuDNN and PyTorch's libraries do) beside a
# shared libcudart, both reporting each call to CUPTI from inside the
# driver's tools hook, as on a GPU (tests/rt_copy.h), from 16 threads at
# once (t_rt_mix.c). By default (issue #25: the copies' own reports, no
# CUPTI) and under --runtime=cupti every runtime call is recorded
# exactly once: the shared cudart's by our wrapper (its CUPTI reports
# dropped: 2400 before, counted twice), the library copy's from CUPTI (800
# were missing before), each cudaMalloc with its cuMemAlloc_v2 nested
# under it; with and without correlationData, in trace and in stat. The
# symbols-only mode (--runtime=symbols) sees the shared calls only. The hook calls that carry
# the reports are not recorded (CUTAP_HOOK_CALLS=1 records them), their
# frames still tell the copies apart, also with layer hidden left out.
# The calls libcupti itself makes through the export tables are not
# recorded. The
# library copy's calls are named by their object (libfakednn.so) in dump,
# the JSON lines, SQLite, report --by object and report --tree (a path
# element of their own); the shared ones are not.
. "$(dirname "$0")/../../lib/init.sh"

prog=$T/t_rt_mix
n=$((2 * 16 * 50))
$prog 16 50 >"$WORK/bare.out" || exit 1
rows() { "$CUTAP" report --format csv "$1" | awk -F, -v n="$2" '$2 == n { print $3 }'; }
for corr in 0 1 default; do
    rm -rf "$WORK/c$corr"
    if [ $corr = default ]; then opt=--runtime=all; else opt=--runtime=cupti; fi
    FAKE_CUPTI_NO_CORR=$corr "$CUTAP" trace $opt -o "$WORK/c$corr" -- $prog 16 50 >"$WORK/c.out" 2>"$WORK/c.err" \
        || { cat "$WORK/c.err" >&2; exit 1; }
    diff "$WORK/bare.out" "$WORK/c.out" >&2 || { say "  output changed"; exit 1; }
    [ "$(rows "$WORK/c$corr" cudaMalloc)" = $n ] && [ "$(rows "$WORK/c$corr" cuMemAlloc_v2)" = $n ] \
        || { say "  corr $corr: cudaMalloc $(rows "$WORK/c$corr" cudaMalloc), cuMemAlloc_v2 $(rows "$WORK/c$corr" cuMemAlloc_v2), want $n"; exit 1; }
    "$CUTAP" report --tree --format csv "$WORK/c$corr" >"$WORK/c.csv" || exit 1
    # the tree keeps the two apart: the library copy's calls are path
    # elements of their own, named by the object
    grep -q "^cudaMalloc > cuMemAlloc_v2,driver,cuMemAlloc_v2,1,$((n / 2))," "$WORK/c.csv" \
        && grep -q "^cudaMalloc \[libfakednn.so\] > cuMemAlloc_v2,driver,cuMemAlloc_v2,1,$((n / 2))," "$WORK/c.csv" \
        && ! grep -q '^cuMemAlloc_v2,' "$WORK/c.csv" \
        || { say "  corr $corr: not every cuMemAlloc_v2 under its cudaMalloc"; cat "$WORK/c.csv" >&2; exit 1; }
    # attributed to the object whose copy reported them, and only those
    obj=$(cd "$T/dnn" && pwd -P)/libfakednn.so
    "$CUTAP" export --format jsonl -o "$WORK/c$corr.jsonl" "$WORK/c$corr" || exit 1
    count() { python3 "$TL/jsonl_count.py" "$WORK/c$corr.jsonl" type=call name=cudaMalloc "$@"; }
    [ "$(count "object=$obj")" = $((n / 2)) ] && [ "$(count '!object')" = $((n / 2)) ] \
        || { say "  corr $corr: objects $(count "object=$obj") / $(count '!object')"; exit 1; }
    [ "$("$CUTAP" dump "$WORK/c$corr" | grep -c ' cudaMalloc(.* \[libfakednn.so\]$')" = $((n / 2)) ] || { say "  dump"; exit 1; }
    "$CUTAP" report --by object --format csv "$WORK/c$corr" >"$WORK/c.obj.csv" || exit 1
    grep -qx "runtime,cudaMalloc,$((n / 2)),0,.*,$obj" "$WORK/c.obj.csv" && grep -qx "runtime,cudaMalloc,$((n / 2)),0,.*," "$WORK/c.obj.csv" \
        || { cat "$WORK/c.obj.csv" >&2; exit 1; }
    if python3 -c 'import sqlite3' 2>/dev/null && "$CUTAP" export --format sqlite -o "$WORK/c$corr.db" "$WORK/c$corr" 2>/dev/null; then
        got=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(
            "SELECT count(*) FROM calls_named c JOIN strings o ON o.id = c.object_id WHERE c.name = ? AND o.value = ?",
            ("cudaMalloc", sys.argv[2])).fetchone()[0])' "$WORK/c$corr.db" "$obj")
        [ "$got" = $((n / 2)) ] || { say "  sqlite: $got"; exit 1; }
    fi
    FAKE_CUPTI_NO_CORR=$corr "$CUTAP" stat $opt -o "$WORK/s$corr.txt" -- $prog 16 50 >/dev/null 2>&1 || exit 1
    grep -Eq " $n +0 .* runtime +cudaMalloc\$" "$WORK/s$corr.txt" || { say "  stat, corr $corr:"; cat "$WORK/s$corr.txt" >&2; exit 1; }
done
"$CUTAP" trace --runtime=symbols -o "$WORK/sym" -- $prog 16 50 >/dev/null 2>&1 || exit 1
[ "$(rows "$WORK/sym" cudaMalloc)" = $((n / 2)) ] || { say "  symbols only: $(rows "$WORK/sym" cudaMalloc)"; exit 1; }
# the hook calls that carry the reports are not recorded (by default they
# are cutap's own slots, under --runtime=cupti hidden trampolines)
# (CUTAP_HOOK_CALLS=1 records them: one at the entry and one at the exit
# of each runtime call), yet the copy is told apart by their frames, also
# with layer hidden left out
[ -z "$(rows "$WORK/c0" 'TOOLS_RUNTIME_CALLBACK_HOOKS#1')" ] && [ -z "$(rows "$WORK/cdefault" 'TOOLS_RUNTIME_CALLBACK_HOOKS#1')" ] \
    || { say "  hook calls recorded"; exit 1; }
CUTAP_HOOK_CALLS=1 "$CUTAP" trace --runtime=cupti -o "$WORK/hk" -- $prog 16 50 >/dev/null 2>&1 || exit 1
[ "$(rows "$WORK/hk" 'TOOLS_RUNTIME_CALLBACK_HOOKS#1')" = $((2 * n)) ] && [ "$(rows "$WORK/hk" cudaMalloc)" = $n ] \
    || { say "  CUTAP_HOOK_CALLS=1: $(rows "$WORK/hk" 'TOOLS_RUNTIME_CALLBACK_HOOKS#1') hook calls"; exit 1; }
"$CUTAP" trace --runtime=cupti -e '!layer=hidden' -o "$WORK/nh" -- $prog 16 50 >/dev/null 2>&1 || exit 1
[ "$(rows "$WORK/nh" cudaMalloc)" = $n ] || { say "  hidden left out: $(rows "$WORK/nh" cudaMalloc)"; exit 1; }
# libcupti's own calls through the export tables (the real one makes
# dozens per runtime call; the fake one slot call per report) are the
# instrument's, not recorded; the program's calls are unchanged
rm -rf "$WORK/tc"
FAKE_CUPTI_TABLE_CALLS=1 "$CUTAP" trace --runtime=cupti -o "$WORK/tc" -- $prog 16 50 >/dev/null 2>&1 || exit 1
[ -z "$(rows "$WORK/tc" 'FAKE_SIZED#1')" ] && [ "$(rows "$WORK/tc" cudaMalloc)" = $n ] \
    || { say "  libcupti's slot calls: $(rows "$WORK/tc" 'FAKE_SIZED#1')"; exit 1; }
