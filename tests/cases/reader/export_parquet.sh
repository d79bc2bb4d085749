#!/usr/bin/env bash
# export --format parquet (issue #33): a trace of several processes, two
# ranks, two hosts (a file copied with its header's host changed), NVTX
# ranges and kernel names, exported to a directory of Parquet files (one
# per process and table) and read back with DuckDB (libduckdb through its
# C API, tests/lib/duckdb_sql.py): every call, process, thread and name
# equals an independent reading (the JSON lines export, the files'
# headers), with --text too; the files are named HOST-PID-START; an
# existing output is kept without --force, replaced with it only when it
# is an earlier export. Skipped (77) without libduckdb.so.
. "$(dirname "$0")/../../lib/init.sh"

command -v python3 >/dev/null || exit 77
[ -n "${CUTAP_DUCKDB_LIB:-}" ] || { say "  no libduckdb.so: set CUTAP_DUCKDB_LIB (.ci/get-duckdb.sh)"; exit 77; }
d=$WORK/pq
mkdir -p "$d"
RANK=0 CUTAP_TRACE=$d LD_PRELOAD=$LIB $T/t_record threads 3 40 >/dev/null 2>&1 || exit 1
RANK=1 CUTAP_TRACE=$d LD_PRELOAD=$LIB $T/t_record kernels >/dev/null 2>&1 || exit 1
CUTAP_TRACE=$d LD_PRELOAD=$LIB NVTX_INJECTION64_PATH=$LIB $T/t_nvtx >/dev/null 2>&1 || exit 1
f=$(ls "$d"/*.cutap | head -1)
cp "$f" "$d/nodeb.cutap"
printf 'node-b\0' | dd of="$d/nodeb.cutap" bs=1 seek=112 conv=notrunc 2>/dev/null   # header: host
"$CUTAP" export --format jsonl -o "$WORK/pq.jsonl" "$d" || exit 1
for text in "" --text; do
    rm -rf "$WORK/out"
    "$CUTAP" export --format parquet $text -o "$WORK/out" "$d" || { say "  export $text failed"; exit 1; }
    python3 "$TL/parquet_check.py" "$d" "$WORK/out" "$WORK/pq.jsonl" $text || { say "  (export $text)"; exit 1; }
done
# one file per process and table, named HOST-PID-START
for t in calls processes threads names counters gpu; do
    n=$(ls "$WORK/out/$t" | grep -c '^[A-Za-z0-9._-]*-[0-9]*-[0-9]*\.parquet$')
    [ "$n" = 4 ] || { say "  $t: $n files named HOST-PID-START.parquet, want 4:"; ls "$WORK/out/$t" >&2; exit 1; }
done
ls "$WORK/out/calls" | grep -q '^node-b-' || { say "  no file of host node-b"; exit 1; }
# Parquet's format version: 2 by default (its pages say so), 1 on request
# (read back the same), anything else refused before writing
v2=$(python3 "$TL/duckdb_sql.py" "SELECT count(*) FROM parquet_metadata('$WORK/out/calls/*.parquet') WHERE encodings LIKE '%DELTA%'")
rm -rf "$WORK/v1"
CUTAP_PARQUET_VERSION=1 "$CUTAP" export --format parquet -o "$WORK/v1" "$d" || { say "  CUTAP_PARQUET_VERSION=1 failed"; exit 1; }
v1=$(python3 "$TL/duckdb_sql.py" "SELECT count(*) FROM parquet_metadata('$WORK/v1/calls/*.parquet') WHERE encodings LIKE '%DELTA%'")
n1=$(python3 "$TL/duckdb_sql.py" "SELECT count(*) FROM '$WORK/v1/calls/*.parquet'")
n2=$(python3 "$TL/duckdb_sql.py" "SELECT count(*) FROM '$WORK/out/calls/*.parquet'")
[ "$v2" -gt 0 ] && [ "$v1" = 0 ] && [ "$n1" = "$n2" ] \
    || { say "  format versions: delta-encoded column chunks $v2 (v2) and $v1 (v1), rows $n2 and $n1"; exit 1; }
CUTAP_PARQUET_VERSION=3 "$CUTAP" export --format parquet -o "$WORK/v3" "$d" 2>"$WORK/v3.err"; [ $? = 1 ] \
    && grep -q "CUTAP_PARQUET_VERSION=3" "$WORK/v3.err" && [ ! -e "$WORK/v3" ] || { say "  CUTAP_PARQUET_VERSION=3 not refused"; exit 1; }
# kept without --force; replaced with it; never replaces what is not an export
"$CUTAP" export --format parquet -o "$WORK/out" "$d" 2>"$WORK/err"; [ $? = 1 ] && grep -q 'exists' "$WORK/err" \
    || { say "  an existing export was not kept"; exit 1; }
touch "$WORK/out/calls/mark.parquet"
"$CUTAP" export --format parquet --force -o "$WORK/out" "$d" && [ ! -e "$WORK/out/calls/mark.parquet" ] \
    || { say "  --force did not replace the earlier export"; exit 1; }
mkdir -p "$WORK/other"; echo keep >"$WORK/other/notes.txt"
"$CUTAP" export --format parquet --force -o "$WORK/other" "$d" 2>"$WORK/err"; [ $? = 1 ] \
    && grep -q 'not a Parquet export' "$WORK/err" && [ -e "$WORK/other/notes.txt" ] \
    || { say "  --force replaced a directory that is not an export"; cat "$WORK/err" >&2; exit 1; }
[ -z "$(ls -d "$WORK"/*.tmp.* "$WORK"/*.old.* 2>/dev/null)" ] || { say "  left behind: $(ls -d "$WORK"/*.tmp.* "$WORK"/*.old.*)"; exit 1; }
