#!/bin/sh
# Parquet export rate (issue #33): a trace of N calls (default 20,000,000
# cuCtxGetCurrent on the fake driver, made by bench/passthrough under
# cutap trace, in one process), exported R times (default 3) with
# --format parquet, and once more with --text; per run: wall seconds, CPU
# seconds (user + system of the command and DuckDB's threads), rows per
# CPU-second and per wall second, peak RSS, the calls file's size. The
# target is 5 M calls per CPU-second. Needs libduckdb.so
# (CUTAP_DUCKDB_LIB, or .ci/get-duckdb.sh's .duckdb/).
#   bench/parquet.sh [N] [R]
set -eu
cd "$(dirname "$0")/.."
N=${1:-20000000}
R=${2:-3}
B=$PWD/build
[ -n "${CUTAP_DUCKDB_LIB:-}" ] || CUTAP_DUCKDB_LIB=$PWD/.duckdb/libduckdb.so
export CUTAP_DUCKDB_LIB
W=$(mktemp -d /tmp/cutap-parquet.XXXXXX)
trap 'rm -rf "$W"' EXIT
LD_LIBRARY_PATH="$B/fake" "$B/cutap" trace -o "$W/t" -- "$B/bench/passthrough" --child $((N / 7)) >/dev/null 2>&1
calls=$("$B/cutap" report --format csv "$W/t" 2>/dev/null | awk -F, 'NR > 1 {n += $3} END {print n + 0}')
echo "trace: $calls calls, $(du -sm "$W/t" | cut -f1) MiB; $(nproc) CPUs; DuckDB $CUTAP_DUCKDB_LIB"
run() {   # LABEL ARGS...
    label=$1; shift
    rm -rf "$W/o"
    /usr/bin/time -f '%e %U %S %M' -o "$W/time" "$B/cutap" export --format parquet "$@" -o "$W/o" "$W/t" >/dev/null 2>&1 \
        || { echo "$label: failed"; return; }
    size=$(du -sk "$W/o/calls" | cut -f1)
    awk -v l="$label" -v c="$calls" -v s="$size" '{ cpu = $2 + $3
        printf "%-10s wall %6.2f s  cpu %6.2f s  %5.2f M rows/cpu-s  %5.2f M rows/s wall  peak RSS %4.0f MiB  calls %5.0f MiB  %s\n",
               l, $1, cpu, c / cpu / 1e6, c / $1 / 1e6, $4 / 1024, s / 1024, (c / cpu >= 5e6 ? "met" : "NOT met") }' "$W/time"
}
for i in $(seq "$R"); do run "default" ; done
run "--text" --text
