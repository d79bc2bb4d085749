#!/usr/bin/env bash
# The cross-rank SQL of docs/FORMAT.md ("Cross-rank questions in SQL")
# runs on a Parquet export of two ranks (t_ranks: ncclAllReduce through
# the fake NCCL, then cuCtxSynchronize) read with DuckDB, and answers:
# calls per rank and function as the trace has them (3 all-reduces per
# rank), one row per all-reduce with both ranks and a spread >= 0, the
# slowest 1 % per host, synchronization per rank. Then two crafted ranks
# whose all-reduces each hold an NVTX range of the same name, as NCCL
# 2.28's do (mk_trace ncclranks): the collectives are paired call with
# call, the ranges left out (the query without its layer condition paired
# ranges in between: 6 rows), and their synchronization counted once (a
# range of the same name inside it: query 4 without its layer condition
# counted 2). Skipped (77) without libduckdb.so.
. "$(dirname "$0")/../../lib/init.sh"

command -v python3 >/dev/null || exit 77
[ -n "${CUTAP_DUCKDB_LIB:-}" ] || { say "  no libduckdb.so: set CUTAP_DUCKDB_LIB (.ci/get-duckdb.sh)"; exit 77; }
export LD_LIBRARY_PATH=$FL:$LD_LIBRARY_PATH   # the fake NCCL (tests/fakelibs.mk)
d=$WORK/ranks
mkdir -p "$d"
for r in 0 1; do
    RANK=$r "$CUTAP" trace -o "$WORK/r$r" -- $T/t_ranks 3 >"$WORK/r$r.out" 2>&1 || { cat "$WORK/r$r.out" >&2; exit 1; }
    cp "$WORK/r$r"/*.cutap "$d/"
done
"$CUTAP" export --format parquet -o "$WORK/out" "$d" || exit 1
# the ```sql blocks of the section, in order (OUT/ names the export)
awk '/^### Cross-rank questions in SQL/ { on = 1; next } on && /^## / { on = 0 }
     on && /^```sql/ { q = ""; inq = 1; next } on && inq && /^```/ { inq = 0; gsub(/\n/, " ", q); print q; next }
     on && inq { q = q $0 "\n" }' docs/FORMAT.md >"$WORK/queries"
[ "$(wc -l <"$WORK/queries")" = 4 ] || { say "  $(wc -l <"$WORK/queries") queries in docs/FORMAT.md, want 4"; exit 1; }
queries() {   # EXPORT PREFIX: every query on EXPORT, answers in PREFIX1..4
    local k=0 q
    while IFS= read -r q; do
        k=$((k + 1))
        python3 "$TL/duckdb_sql.py" "${q//OUT\//$1/}" >"$2$k" || { say "  query $k failed: $q"; exit 1; }
    done <"$WORK/queries"
}
queries "$WORK/out" "$WORK/q"
# 1: calls per rank and function
for r in 0 1; do
    grep -q "^$r	ncclAllReduce	3	" "$WORK/q1" || { say "  query 1: rank $r has not 3 ncclAllReduce:"; cat "$WORK/q1" >&2; exit 1; }
done
# 2: the three all-reduces, each entered by both ranks
n=$(awk -F'\t' '$1 == "ncclAllReduce" && $3 == 2 && $4 >= 0 && $5 != $6' "$WORK/q2" | wc -l)
[ "$n" = 3 ] || { say "  query 2: $n all-reduces seen by both ranks, first != last, want 3:"; cat "$WORK/q2" >&2; exit 1; }
# 3: the slowest 1 % of one host: at least one call, the longest first
[ -s "$WORK/q3" ] && sort -t'	' -k5,5nr -c "$WORK/q3" 2>/dev/null || { say "  query 3:"; cat "$WORK/q3" >&2; exit 1; }
# 4: each rank's cuCtxSynchronize
[ "$(cut -f1 "$WORK/q4" | sort | tr '\n' ' ')" = "0 1 " ] || { say "  query 4:"; cat "$WORK/q4" >&2; exit 1; }
# NCCL 2.28 pushes an NVTX range named after the collective inside it
# (the 2-rank DDP trace of the H200): query 2 pairs calls with calls, not
# with the ranges (mk_trace ncclranks: rank 1 enters each all-reduce 500
# ns after rank 0, its range 200 us after its call)
mkdir -p "$WORK/nr" && "$MK" ncclranks "$WORK/nr" && "$CUTAP" export --format parquet -o "$WORK/nrout" "$WORK/nr" || exit 1
queries "$WORK/nrout" "$WORK/nr"
n=$(awk -F'\t' '$1 == "ncclAllReduce" && $3 == 2 && $4 == 500 && $5 == 0 && $6 == 1' "$WORK/nr2" | wc -l)
[ "$n" = 3 ] && [ "$(wc -l <"$WORK/nr2")" = 4 ] && grep -q "^cudaStreamSynchronize	1	2	0	" "$WORK/nr2" ||
    { say "  query 2 on ranges named as their calls: want 3 all-reduces (spread 500 ns, rank 0 first) and 1 sync:"; cat "$WORK/nr2" >&2; exit 1; }
# query 4: each rank's one synchronization of 1 us, its range left out
[ "$(sort "$WORK/nr4" | tr '\t\n' ' |')" = "0 1000 1|1 1000 1|" ] ||
    { say "  query 4 counts the ranges as synchronization:"; cat "$WORK/nr4" >&2; exit 1; }
grep -q "^0	ncclAllReduce	3	" "$WORK/nr1" && grep -q "^1	ncclAllReduce	3	" "$WORK/nr1" ||
    { say "  query 1 counts the ranges as calls:"; cat "$WORK/nr1" >&2; exit 1; }
exit 0
