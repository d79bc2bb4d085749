#!/usr/bin/env bash
# The whole command built with AddressSanitizer and UBSan: trace (--print too), stat,
# report in every format and grouping, dump, export on good inputs (GPU
# activity too: trace --gpu, report --gpu, dump, every export; Parquet where
# libduckdb.so is), and on
# bad ones (future version, random bytes, short file, damaged record, a
# FIFO, an empty directory, no libsqlite3): the right status and message,
# and no sanitizer report.
. "$(dirname "$0")/../../lib/init.sh"

A=$B/asan/cutap d=$WORK/as
[ -x "$A" ] || exit 77
rm -rf "$d"; mkdir -p "$d"
SAN_LEAKS=$(san_leaks "$A")
# acli STATUS ARGS...: the ASan cutap must exit with STATUS and report nothing
acli() {
    local want=$1; shift
    CUTAP_LIBRARY=$LIB sanitized timeout 120 "$A" "$@" >"$d/out" 2>"$d/err"
    local rc=$?
    if [ $rc != "$want" ] || grep -q -e 'Sanitizer' -e 'runtime error' "$d/err"; then
        say "  cutap $*: exit $rc, want $want"; head -40 "$d/err" >&2; return 1
    fi
}
# good inputs: a trace (one process), two processes, counting mode
acli 0 trace -o "$d/k" -- $T/t_record kernels || exit 1
grep -q '^CALL cuLaunchKernel' "$d/out" || exit 1
acli 0 trace -o "$d/fork" -- $T/t_fork || exit 1
# trace --print's follower: threads, and calls shown started then resumed
acli 0 trace --print="$d/print.txt" -o "$d/pr" -- $T/t_record threads 4 2000 || exit 1
[ "$(wc -l <"$d/print.txt")" = 24000 ] || { say "  --print: $(wc -l <"$d/print.txt") lines"; exit 1; }
CUTAP_PRINT_HOLD=2 acli 0 trace --inject 'cuCtxSynchronize:delay=100ms' --print="$d/print2.txt" -o "$d/pr2" \
    -- $T/t_static_rt || exit 1
grep -q 'resumed>(.*) = ' "$d/print2.txt" || { say "  --print: nothing resumed"; exit 1; }
acli 0 stat -o "$d/stat.txt" -- $T/t_threads || exit 1
grep -q 'cuCtxGetCurrent' "$d/stat.txt" || exit 1
CUTAP_COUNT=$d/count LD_PRELOAD=$LIB $T/t_threads >/dev/null 2>&1 || exit 1
for t in k fork count; do
    for fmt in text csv json; do
        acli 0 report --format $fmt "$d/$t" || exit 1
        for by in process thread rank; do acli 0 report --format $fmt --by $by "$d/$t" || exit 1; done
    done
    for fmt in jsonl perfetto sqlite; do
        acli 0 export --format $fmt -o "$d/$t.$fmt" "$d/$t" || exit 1
        [ -s "$d/$t.$fmt" ] || { say "  export $fmt of $t: empty"; exit 1; }
    done
done
for t in k fork; do acli 0 dump "$d/$t" || exit 1; done
# GPU activity (issue #31, the fake CUPTI's activity API)
acli 0 trace --gpu -o "$d/g" -- $T/t_gpu 2 2 || exit 1
for fmt in text csv json; do acli 0 report --gpu --format $fmt "$d/g" || exit 1; done
acli 0 report --gpu --top 2 "$d/g" && acli 0 dump "$d/g" && grep -q ' \[gpu\] kernel ' "$d/out" \
    || { say "  dump of the GPU trace: no [gpu] line"; exit 1; }
for fmt in jsonl perfetto perfetto-proto sqlite; do acli 0 export --format $fmt -o "$d/g.$fmt" "$d/g" || exit 1; done
# Parquet (libduckdb, not instrumented, loaded by the instrumented command)
if [ -n "${CUTAP_DUCKDB_LIB:-}" ]; then
    for t in k fork g; do acli 0 export --format parquet -o "$d/$t.pq" "$d/$t" || exit 1; done
    acli 0 export --format parquet --text -o "$d/g.pqt" "$d/g" || exit 1
fi
CUTAP_DUCKDB_LIB=/nonexistent/libduckdb.so acli 1 export --format parquet -o "$d/none.pq" "$d/k" \
    && grep -q 'CUTAP_DUCKDB_LIB=/nonexistent' "$d/err" && [ ! -e "$d/none.pq" ] || { say "  parquet without libduckdb"; exit 1; }
acli 1 report --gpu "$d/k" || exit 1   # no GPU activity: said, status 1
acli 0 dump "$d/k" && grep -q ' cuLaunchKernel(f=0x[0-9a-f]*<vecadd(float\*, float\*, int)>' "$d/out" \
    || { say "  dump of the kernels trace:"; head -20 "$d/out" >&2; exit 1; }
acli 0 dump --no-demangle "$d/k" || exit 1
acli 0 report --by process --format csv "$d/fork" || exit 1
pid=$(awk -F, 'NR > 1 && $2 == "cuMemAlloc_v2" { print $NF; exit }' "$d/out")
[ -n "$pid" ] || { say "  no child pid in the report"; exit 1; }
acli 0 dump --pid "$pid" "$d/fork" && [ "$(grep -c ' cuMemAlloc_v2(' "$d/out")" = 3 ] || exit 1
acli 1 dump --pid 1 "$d/fork" || exit 1
# bad inputs (as in reader_rejects_bad_files): status 1 and a message
acli 0 trace -o "$d/m" -- $T/t_record many 100 || exit 1
f=$(ls "$d/m"/*.cutap)
mkdir -p "$d/bad" "$d/empty"
cp "$f" "$d/bad/v.cutap"; printf '\x09\x00\x00\x00' | dd of="$d/bad/v.cutap" bs=1 seek=8 conv=notrunc 2>/dev/null
head -c 5000 /dev/urandom >"$d/bad/r.cutap"
head -c 100 "$f" >"$d/bad/s.cutap"
cp "$f" "$d/bad/d.cutap"; printf '\x07' | dd of="$d/bad/d.cutap" bs=1 seek=$((4096 + 64 * 50)) conv=notrunc 2>/dev/null
for b in v:'version 9 is not supported' r:'bad magic' s:'shorter than the header' d:'unknown record kind'; do
    want=${b#*:}; b=${b%%:*}
    acli 1 report "$d/bad/$b.cutap" && grep -q "$want" "$d/err" || { say "  report $b.cutap: no '$want'"; exit 1; }
    acli 1 dump "$d/bad/$b.cutap" || exit 1
    for fmt in jsonl perfetto sqlite; do acli 1 export --format $fmt -o "$d/bad.$b.$fmt" "$d/bad/$b.cutap" || exit 1; done
done
acli 1 report "$d/bad" || exit 1   # all four at once: the damaged one is read
# a FIFO named *.cutap beside a good file: refused, not waited on
mkdir -p "$d/ff"; cp "$f" "$d/ff/"
if mkfifo "$d/ff/z.cutap" 2>/dev/null; then
    acli 1 report "$d/ff" && grep -q 'z.cutap: not a regular file' "$d/err" || { say "  FIFO: no message"; exit 1; }
    acli 1 dump "$d/ff/z.cutap" || exit 1
fi
acli 1 report "$d/empty" && grep -q 'no trace files' "$d/err" || exit 1
# no libsqlite3: a message, no file
CUTAP_SQLITE_LIB=$d/none.so acli 1 export --format sqlite -o "$d/none.sqlite" "$d/k" || exit 1
grep -q 'needs libsqlite3.so.0' "$d/err" && [ ! -e "$d/none.sqlite" ]
