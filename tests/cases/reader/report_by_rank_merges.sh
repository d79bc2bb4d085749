#!/usr/bin/env bash
# report --by rank over three ranks (RANK) merged from three runs into one
# directory.
. "$(dirname "$0")/../../lib/init.sh"

for r in 0 1 2; do
    RANK=$r "$CUTAP" trace -o "$WORK/rk$r" -- $T/t_record many $((r + 1)) >/dev/null 2>&1 || exit 1
done
mkdir -p "$WORK/rk"; cp "$WORK"/rk[0-9]/*.cutap "$WORK/rk/" 2>/dev/null
# copies of one host's files may share names: then copy under new names
[ "$(ls "$WORK/rk" | wc -l)" = 3 ] || { for r in 0 1 2; do cp "$WORK/rk$r"/*.cutap "$WORK/rk/r$r.cutap"; done; }
"$CUTAP" report --by rank --format csv "$WORK/rk" >"$WORK/rk.csv" || exit 1
for r in 0 1 2; do grep -q "^driver,cuCtxGetCurrent,$((r + 1)),0,.*,$r\$" "$WORK/rk.csv" || { cat "$WORK/rk.csv" >&2; exit 1; }; done
"$CUTAP" report --format csv "$WORK/rk" | grep -q '^driver,cuCtxGetCurrent,6,0,'
