#!/usr/bin/env bash
# Issue #30: report --sort KEY orders each table's rows by that key,
# largest first (name: alphabetical), self time by default; --top N keeps
# the first N rows of each table (text: the rest summed in one line whose
# calls and self time complete the table's); --by layer makes one table
# per layer, largest self time first, each with its share of the whole.
# t_static_rt makes runtime calls with driver calls inside them.
. "$(dirname "$0")/../../lib/init.sh"

CUTAP_TRACE=$WORK/t LD_PRELOAD=$LIB $T/t_static_rt >/dev/null 2>&1 || exit 1
R() { "$CUTAP" report "$@" "$WORK/t"; }
# CSV columns: 3 calls, 5 total_ns, 6 avg_ns, 8 max_ns, 10 time_pct (self's share), 2 name
sorted() {   # sorted KEY COLUMN [-n|-d]: the CSV rows in that column's order
    R --format csv --sort "$1" >"$WORK/s.csv" 2>/dev/null || { say "  --sort $1: status $?"; exit 1; }
    tail -n +2 "$WORK/s.csv" | cut -d, -f"$2" >"$WORK/col"
    if [ "$3" = -d ]; then sort -c "$WORK/col" 2>/dev/null
    else sort -c -g -r "$WORK/col" 2>/dev/null; fi || { say "  --sort $1: column $2 not in order"; cat "$WORK/s.csv" >&2; exit 1; }
}
sorted self 10 -n; sorted total 5 -n; sorted calls 3 -n; sorted avg 6 -n; sorted max 8 -n
LC_ALL=C sorted name 2 -d
# the default is self time: the same order as --sort self
diff <(R --format csv) <(R --format csv --sort self) >&2 || { say "  default order is not self time"; exit 1; }
# --sort total puts a nesting runtime call above the driver calls made inside it
R --format csv --sort total | awk -F, 'NR > 1 && $2 == "cudaMalloc" { m = NR } NR > 1 && $2 == "cuMemAlloc_v2" { a = NR }
    END { exit !(m && a && m < a) }' || { say "  --sort total: cudaMalloc not above cuMemAlloc_v2"; exit 1; }
n=$(R --format csv | tail -n +2 | wc -l)
[ "$n" -gt 4 ] || { say "  too few rows ($n) for --top"; exit 1; }
[ "$(R --format csv --top 3 | tail -n +2 | wc -l)" = 3 ] || { say "  --top 3 (csv)"; exit 1; }
[ "$(R --format json --top 2 | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["rows"]))')" = 2 ] \
    || { say "  --top 2 (json)"; exit 1; }
# text: 3 rows, then the rest: its calls and self time are the others' sums
R --top 3 >"$WORK/top.txt" 2>/dev/null || exit 1
grep -q "($((n - 3)) more rows, --top 3)" "$WORK/top.txt" || { say "  --top: no line for the rest"; cat "$WORK/top.txt" >&2; exit 1; }
R >"$WORK/all.txt" 2>/dev/null || exit 1
want=$(awk 'NR > 2 && $1 ~ /^[0-9.]+$/ { if (++k > 3) { c += $3; s += $9 } } END { print c, s }' "$WORK/all.txt")
got=$(awk '/more rows, --top/ { print $2, $3 }' "$WORK/top.txt")
[ "$want" = "$got" ] || { say "  --top: the rest is '$got', the rows left out sum to '$want'"; exit 1; }
# --by layer: a table per layer, runtime and driver, largest self first, shares of the whole adding up to 100
R --by layer >"$WORK/l.txt" 2>/dev/null || exit 1
grep -q '^== layer runtime: self [0-9]* ns, ' "$WORK/l.txt" && grep -q '^== layer driver: self [0-9]* ns, ' "$WORK/l.txt" \
    || { say "  --by layer: no runtime and driver tables"; cat "$WORK/l.txt" >&2; exit 1; }
awk '/^== layer/ { if (last != "" && $5 + 0 > last + 0) bad = 1; last = $5; pct += $7 }
     /^ *[0-9.]+ / && $10 != layer && layer != "" { mixed = 1 }
     /^== layer/ { layer = $3; sub(/:/, "", layer) }
     END { if (bad) print "layers not by self time"; if (mixed) print "a row in another layer'\''s table";
           if (pct < 99.9 || pct > 100.1) print "layer shares add up to " pct; exit bad || mixed || pct < 99.9 || pct > 100.1 }' \
    "$WORK/l.txt" >&2 || { cat "$WORK/l.txt" >&2; exit 1; }
[ "$(R --by layer --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["by"])')" = layer ] || exit 1
# bad values: usage errors; not with --tree/--errors
for a in "--sort bogus" "--top 0" "--top -1" "--top x" "--by nothing" "--sort calls --tree" "--top 3 --errors"; do
    R $a >/dev/null 2>&1; rc=$?
    [ $rc = 2 ] || { say "  report $a: status $rc, not 2"; exit 1; }
done
exit 0
