#!/usr/bin/env bash
# Issue #15: the ioctl layer in every view. report -e layer=ioctl has a row
# per escape (RM_ALLOC: 15 = the 3 of cuInit and the 12 allocations),
# --requests a row per control command and class
# (RM_ALLOC(NV01_MEMORY_LOCAL_USER): 12); the exports carry the requests
# with their layer and decoded arguments (JSON lines, SQLite, Perfetto);
# cutap stat counts them, errors included; -e '!layer=ioctl' turns the
# layer off (the driver calls still recorded, nothing of layer ioctl, the
# output unchanged) and -e layer=ioctl keeps only it.
. "$(dirname "$0")/../../lib/init.sh"

nvk_env
nvk_run drv driver || exit 1
"$CUTAP" report --format csv -e layer=ioctl "$WORK/drv" >"$WORK/esc.csv" || exit 1
row() { awk -F, -v n="$2" '$2 == n { print $3 }' "$1"; }
[ "$(row "$WORK/esc.csv" RM_ALLOC)" = 15 ] && [ "$(row "$WORK/esc.csv" RM_CONTROL)" = 5 ] \
    && [ "$(row "$WORK/esc.csv" mmap)" = 12 ] && [ "$(row "$WORK/esc.csv" UVM_INITIALIZE)" = 1 ] \
    && ! grep -q '^driver,' "$WORK/esc.csv" || { say "  report by escape"; cat "$WORK/esc.csv" >&2; exit 1; }
"$CUTAP" report --format csv --requests -e layer=ioctl "$WORK/drv" >"$WORK/req.csv" || exit 1
[ "$(row "$WORK/req.csv" 'RM_ALLOC(NV01_MEMORY_LOCAL_USER)')" = 12 ] \
    && [ "$(row "$WORK/req.csv" 'RM_CONTROL(NV2080_CTRL_CMD_GPU_GET_INFO)')" = 3 ] \
    && [ "$(row "$WORK/req.csv" 'RM_ALLOC(NV01_ROOT_CLIENT)')" = 1 ] \
    || { say "  report --requests"; cat "$WORK/req.csv" >&2; exit 1; }
# exports
"$CUTAP" export --format jsonl -o "$WORK/drv.jsonl" "$WORK/drv" || exit 1
count() { python3 "$TL/jsonl_count.py" "$WORK/drv.jsonl" type=call "$@"; }
[ "$(count layer=ioctl name=RM_ALLOC 'decoded~hClass=NV01_MEMORY_LOCAL_USER, ')" = 12 ] \
    && [ "$(count layer=ioctl name=RM_CONTROL 'status=NV_ERR_NOT_SUPPORTED')" = 1 ] \
    || { say "  jsonl"; grep RM_ "$WORK/drv.jsonl" | head -3 >&2; exit 1; }
"$CUTAP" export --format perfetto -o "$WORK/drv.json" "$WORK/drv" || exit 1
python3 -c 'import json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
n = sum(1 for e in ev if e.get("name") == "RM_ALLOC")
sys.exit(0 if n == 15 else "perfetto: %d RM_ALLOC" % n)' "$WORK/drv.json" || exit 1
if python3 -c 'import sqlite3' 2>/dev/null && "$CUTAP" export --format sqlite -o "$WORK/drv.db" "$WORK/drv" 2>/dev/null; then
    got=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(
        "SELECT count(*) FROM calls_named WHERE layer = ? AND name = ?", ("ioctl", "RM_FREE")).fetchone()[0])' "$WORK/drv.db")
    [ "$got" = 12 ] || { say "  sqlite: $got RM_FREE"; exit 1; }
fi
# stat counts them
LD_PRELOAD=$NVK "$CUTAP" stat -o "$WORK/stat.txt" -- "$T/t_ioctl" driver >"$WORK/st.out" 2>/dev/null || exit 1
diff "$WORK/drv.bare" "$WORK/st.out" >&2 || { say "  output changed under stat"; exit 1; }
grep -Eq '\b15\b.*\bioctl +RM_ALLOC\b|RM_ALLOC.*\b15\b' "$WORK/stat.txt" && grep -q 'RM_CONTROL' "$WORK/stat.txt" \
    || { say "  stat"; cat "$WORK/stat.txt" >&2; exit 1; }
# the layer off, and alone
LD_PRELOAD=$NVK "$CUTAP" trace -e '!layer=ioctl' -o "$WORK/off" -- "$T/t_ioctl" driver >"$WORK/off.out" 2>/dev/null || exit 1
diff "$WORK/drv.bare" "$WORK/off.out" >&2 || { say "  output changed with the layer off"; exit 1; }
"$CUTAP" report --format csv "$WORK/off" >"$WORK/off.csv" || exit 1
! grep -q '^ioctl,' "$WORK/off.csv" && [ "$(row "$WORK/off.csv" cuMemAlloc_v2)" = 12 ] \
    || { say "  -e '!layer=ioctl'"; cat "$WORK/off.csv" >&2; exit 1; }
LD_PRELOAD=$NVK "$CUTAP" trace -e layer=ioctl -o "$WORK/only" -- "$T/t_ioctl" driver >/dev/null 2>&1 || exit 1
"$CUTAP" report --format csv "$WORK/only" >"$WORK/only.csv" || exit 1
! grep -q '^driver,' "$WORK/only.csv" && [ "$(row "$WORK/only.csv" RM_ALLOC)" = 15 ] \
    || { say "  -e layer=ioctl"; cat "$WORK/only.csv" >&2; exit 1; }
