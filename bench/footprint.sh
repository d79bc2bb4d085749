#!/bin/sh
# The distinct 64-byte lines of code and data one call touches, per object,
# counted by valgrind lackey (bench/footprint.c), side by side: bare, cutap
# with no client, stat and trace. Inside a program whose own work evicts
# them between calls, each line is a cache or TLB miss a loop never pays
# (issue #27).   usage: bench/footprint.sh [MODE ...]   (default: all four)
# BENCH_LIB/BENCH_SYM choose the call as for bench/passthrough; FOOTPRINT_DETAIL=1
# lists each line (object, mapping, offset).
set -eu
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "bench/footprint.sh: valgrind not installed"; exit 77; }
B=$PWD/build
W=$(mktemp -d /tmp/cutap-footprint.XXXXXX)
trap 'rm -rf "$W"' EXIT
[ $# -gt 0 ] || set -- bare pass stat trace
printf '%-6s %-28s %6s %6s\n' mode object code data
for mode in "$@"; do
    rm -rf "$W/t"; mkdir -p "$W/t"
    pre="" env=""
    case $mode in
        bare) ;;
        pass) pre=$B/libcutap.so ;;
        stat) pre=$B/libcutap.so env="CUTAP_COUNT=$W/t CUTAP_STAT_SLOW_NS=1000000000" ;;
        trace) pre=$B/libcutap.so env="CUTAP_TRACE=$W/t" ;;
        *) echo "footprint.sh: unknown mode $mode" >&2; exit 2 ;;
    esac
    # shellcheck disable=SC2086
    env LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-$B/fake}" ${pre:+LD_PRELOAD="$pre"} $env \
        valgrind --tool=lackey --trace-mem=yes --log-file="$W/log" "$B/bench/footprint" >"$W/out"
    [ -z "${FOOTPRINT_DETAIL:-}" ] || grep "^MAP" "$W/out"
    awk -v mode="$mode" -v detail="${FOOTPRINT_DETAIL:-}" '
        FNR == NR {
            if ($1 == "MARK") mark = $2
            else if ($1 == "MAP") {
                split($2, r, "-"); n++; lo[n] = r[1]; hi[n] = r[2]
                nm = ($7 == "") ? "anon" : $7; sub(".*/", "", nm); name[n] = nm
            }
            next
        }
        function hex(s,   i, v, c) { v = 0; s = tolower(s)
            for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
            return v }
        function obj(a,   i) { for (i = 1; i <= n; i++) if (a >= hex(lo[i]) && a < hex(hi[i])) { off = a - hex(lo[i]); mi = i; return name[i] } return "?" }
        $1 == "I" || $1 == "L" || $1 == "S" || $1 == "M" {
            split($2, p, ","); a = hex(p[1])
            if ($1 == "I" && sprintf("%x", a) == mark) { hits++; if (hits == 2) exit; next }
            if (hits != 1) next
            ln = int(a / 64); e = a + p[2] - 1; le = int(e / 64)
            for (l = ln; l <= le; l++) { if ($1 == "I") code[l] = 1; else data[l] = 1 }
        }
        END {
            for (l in code) { o = obj(l * 64); c[o]++; tc++; if (detail) printf "  code %s %s+%x\n", mode, o, off }
            for (l in data) { o = obj(l * 64); d[o]++; td++; if (detail) printf "  data %s %s@%s+%x\n", mode, o, lo[mi], off }
            for (o in c) seen[o] = 1
            for (o in d) seen[o] = 1
            for (o in seen) printf "%-6s %-28s %6d %6d\n", mode, o, c[o], d[o]
            printf "%-6s %-28s %6d %6d\n", mode, "TOTAL", tc, td
        }' "$W/out" "$W/log"
done
