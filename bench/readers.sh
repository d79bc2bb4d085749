#!/bin/sh
# Reader rates (issue #27): calls per second of each reader on one trace of
# N calls (default 3,000,000 cuCtxGetCurrent on the fake driver, made by
# bench/passthrough under cutap trace), dump to /dev/null, the exports to a
# file in /tmp (written, synced, renamed: as a user gets them), best of R
# runs (default 3), against
# issue #27's target of 10 M calls/s for dump and every export; dump and
# the JSON exports also on one thread (CUTAP_THREADS=1), side by side.
# Below each export, its floor on this machine in the same run: writing
# as many bytes as it wrote to the same file system, synced (dd from
# /dev/zero: no formatting at all, then one fsync), and for SQLite,
# SQLite's own prepared inserts of as many rows of the same columns
# (bench/sqlite_floor). The file exports (not SQLite) make their output
# durable while they format it (cli/export/cmd_export.c: a syncer thread),
# so they can beat dd's floor by up to its fsync (0.1 s a 100 MiB on the
# development VM); where the floor is far under the target, the target is
# still out of reach of that format on this machine.
#   bench/readers.sh [N] [R]
set -eu
cd "$(dirname "$0")/.."
N=${1:-3000000}
R=${2:-3}
B=$PWD/build
W=$(mktemp -d /tmp/cutap-readers.XXXXXX)
trap 'rm -rf "$W"' EXIT
LD_LIBRARY_PATH="$B/fake" "$B/cutap" trace -o "$W/t" -- "$B/bench/passthrough" --child $((N / 7)) >/dev/null 2>&1
calls=$("$B/cutap" report --format csv "$W/t" 2>/dev/null | awk -F, 'NR > 1 {n += $3} END {print n + 0}')
best() {   # best wall time of R runs of the command, in seconds ($W/out removed before each, untimed:
    b=        # unlinking a 100 MiB file costs 70-90 ms on the development VM, more than the export's fsync)
    for _ in $(seq "$R"); do
        rm -f "$W/out"
        s=$(date +%s.%N)
        "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; return 1; }
        e=$(date +%s.%N)
        b=$(awk -v s="$s" -v e="$e" -v b="$b" 'BEGIN {d = e - s; print (b == "" || d < b) ? d : b}')
    done
    echo "$b"
}
row() {   # NAME TARGET(calls/s, 0: none) COMMAND...
    name=$1 target=$2; shift 2
    t=$(best "$@") || { printf '%-26s %10s\n' "$name" failed; return; }
    awk -v n="$name" -v t="$t" -v c="$calls" -v g="$target" 'BEGIN {
        r = c / t; printf "%-26s %8.2f s %8.2f M calls/s", n, t, r / 1e6
        if (g > 0) printf "   %s (target %.0f M/s)", (r >= g ? "met" : "NOT met"), g / 1e6
        printf "\n" }'
}
echo "readers on $calls calls (bench/readers.sh, best of $R, $(nproc) cores)"
row "report" 0 "$B/cutap" report "$W/t"
row "report --tree" 0 "$B/cutap" report --tree "$W/t"
row "dump" 10000000 "$B/cutap" dump "$W/t"
row "dump, one thread" 0 env CUTAP_THREADS=1 "$B/cutap" dump "$W/t"
ex() { echo "exec '$B/cutap' export --format $1 -o '$W/out' '$W/t'"; }
floor() {   # the export just written to $W/out: its bytes written by dd, synced
    mb=$(( ($(stat -c %s "$W/out") + 1048575) / 1048576 ))
    row "  floor: ${mb} MiB dd, fsync" 10000000 dd if=/dev/zero of="$W/out" bs=1M count=$mb conv=fsync
}
row "export jsonl" 10000000 sh -c "$(ex jsonl)"
floor
row "export jsonl, one thread" 0 env CUTAP_THREADS=1 sh -c "$(ex jsonl)"
row "export perfetto (JSON)" 10000000 sh -c "$(ex perfetto)"
floor
row "export perfetto, one thread" 0 env CUTAP_THREADS=1 sh -c "$(ex perfetto)"
row "export perfetto-proto" 10000000 sh -c "$(ex perfetto-proto)"
floor
if "$B/cutap" export --format sqlite -o "$W/probe.db" "$W/t" >/dev/null 2>&1; then
    row "export sqlite" 10000000 sh -c "$(ex sqlite)"
    [ -x "$B/bench/sqlite_floor" ] &&
        row "  floor: SQLite's inserts" 10000000 "$B/bench/sqlite_floor" "$calls" "$W/out"
else
    echo "export sqlite: no libsqlite3 here (skipped)"
fi
