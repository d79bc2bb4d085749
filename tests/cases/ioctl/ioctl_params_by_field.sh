#!/usr/bin/env bash
# Issue #32: RM parameter blocks by field (cutap trace --ioctl-params). A
# program makes RM_ALLOC and RM_CONTROL requests of real shapes to the fake
# kernel driver (t_ioctl params): NV01_DEVICE_0 with NV0080_ALLOC_PARAMETERS
# (also with paramsSize 0, as libcuda passes it: sized by class, as is an
# NV01_MEMORY_LOCAL_USER's NV_MEMORY_ALLOCATION_PARAMS, paired by driver),
# NV2080_CTRL_CMD_GPU_GET_INFO_V2 (the "driver" fills data of the 2 entries
# asked), NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION_V2 (it fills 4 strings and
# 2 numbers), a private command (no layout: hex), a 6152-byte
# NV2080_CTRL_CMD_FB_GET_REMAPPED_ROWS block (cut to 4096: entries[400] at
# 4808 not shown), and params pointers that are unmapped (the driver's
# NV_ERR_INVALID_ADDRESS, as bare; no crash) and an unmapped NVOS54 block
# (EFAULT, as bare), and one the driver refuses (on nvidia0: -1/EINVAL: the
# block as passed, not read after the call). Checked: the program's output is unchanged; dump shows
# the fields by path and the driver's changes as before→after; the JSON
# lines, Perfetto JSON, SQLite and Parquet exports carry the same fields
# ("params" object, slice argument, params column); without the option no block is recorded.
. "$(dirname "$0")/../../lib/init.sh"

nvk_env
LD_PRELOAD=$NVK "$T/t_ioctl" params "$NVDEV" >"$WORK/bare" 2>&1 || { say "  bare t_ioctl params failed"; cat "$WORK/bare" >&2; exit 1; }
grep -q '^GPU_GET_INFO_V2 unmapped: 0 ok status 0x1e$' "$WORK/bare" || { say "  the bare run"; cat "$WORK/bare" >&2; exit 1; }
for mode in on off; do
    opt=; [ $mode = on ] && opt=--ioctl-params
    LD_PRELOAD=$NVK "$CUTAP" trace $opt -o "$WORK/$mode" -- "$T/t_ioctl" params "$NVDEV" >"$WORK/$mode.out" 2>"$WORK/$mode.err" \
        || { say "  traced t_ioctl params ($mode) failed"; cat "$WORK/$mode.err" >&2; exit 1; }
    diff "$WORK/bare" "$WORK/$mode.out" >&2 || { say "  output changed under cutap ($mode)"; exit 1; }
    "$CUTAP" dump "$WORK/$mode" >"$WORK/$mode.dump" || exit 1
    "$CUTAP" export --format jsonl -o "$WORK/$mode.jsonl" "$WORK/$mode" || exit 1
done

# off (the default): no block recorded, nothing shown
if grep -q '^ *params ' "$WORK/off.dump" || grep -q '"params"' "$WORK/off.jsonl"; then
    say "  blocks recorded without --ioctl-params"; grep params "$WORK/off.dump" | head -3 >&2; exit 1
fi
grep -q 'cmd=NV2080_CTRL_CMD_GPU_GET_INFO_V2' "$WORK/off.dump" || { say "  off: no GPU_GET_INFO_V2 call"; exit 1; }

# on: dump, by field, the driver's changes marked
d=$WORK/on.dump
for s in '^ *params NV0080_ALLOC_PARAMETERS, 56 bytes: hClientShare=0xcaf00001, vaMode=2$' \
         '^ *params NV2080_CTRL_GPU_GET_INFO_V2_PARAMS, 564 bytes: gpuInfoListSize=2, gpuInfoList\[0\]\.index=3, gpuInfoList\[0\]\.data=0→49, gpuInfoList\[1\]\.index=7, gpuInfoList\[1\]\.data=0→113$' \
         '^ *params NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_V2_PARAMS, 1032 bytes: driverVersionBuffer=""→"580.159.04", versionBuffer=""→"580.159.04", driverBranch=""→"r580_00", titleBuffer=""→"cutap fake NVIDIA kernel module", changelistNumber=0→0x227ba70, officialChangelistNumber=0→0x227ba70$' \
         "^ *params of command 0x20809064 (no layout), 24 bytes: x'efbeadde0100000002000000030000000400000005000000'$" \
         '^ *params NV2080_CTRL_FB_GET_REMAPPED_ROWS_PARAMS, 6152 bytes, cut to 4096: entryCount=2, entries\[0\]\.remapRegVal=4660$' \
         '^ *params NV2080_CTRL_GPU_GET_INFO_V2_PARAMS, 564 bytes, not readable before the call, not readable after it:$' \
         '^ *params NV0080_ALLOC_PARAMETERS, 56 bytes, not readable before the call, not readable after it:$' \
         '^ *params NV_MEMORY_ALLOCATION_PARAMS, 128 bytes: owner=4660, flags=128$' \
         '^ *params NV2080_CTRL_GPU_GET_INFO_V2_PARAMS, 564 bytes, not read after the call: gpuInfoListSize=2, gpuInfoList\[0\]\.index=3, gpuInfoList\[1\]\.index=7$'; do
    grep -q "$s" "$d" || { say "  dump lacks: $s"; grep -A1 'RM_' "$d" >&2; exit 1; }
done
# the unmapped params pointers: two controls, the driver's own status; the
# unmapped NVOS54 block: EFAULT and no block
[ "$(grep -c 'cmd=NV2080_CTRL_CMD_GPU_GET_INFO_V2,.*status=NV_ERR_INVALID_ADDRESS) = NV_ERR_INVALID_ADDRESS' "$d")" = 2 ] \
    || { say "  the unmapped pointers' results"; grep -A1 'INVALID_ADDRESS' "$d" >&2; exit 1; }
grep -A1 'RM_CONTROL(fd=[0-9]*, dev=nvidiactl, (block not read)) = -1 EFAULT' "$d" | grep -q params \
    && { say "  a block recorded for an unreadable NVOS54"; exit 1; }
[ "$(grep -c '^ *params NV0080_ALLOC_PARAMETERS, 56 bytes: hClientShare=0xcaf00001, vaMode=2$' "$d")" = 2 ] \
    || { say "  the device's block with paramsSize 0"; grep -B1 '^ *params NV0080' "$d" >&2; exit 1; }
[ "$(grep -c '^ *params ' "$d")" = 11 ] || { say "  not 11 blocks"; grep '^ *params ' "$d" >&2; exit 1; }

# the exports: the same fields
python3 - "$WORK/on.jsonl" <<'PY' || exit 1
import json, sys
ps = [x["params"] for x in map(json.loads, open(sys.argv[1])) if "params" in x]
by = {}
for p in ps:
    by.setdefault(p["struct"], []).append(p)
info = by["NV2080_CTRL_GPU_GET_INFO_V2_PARAMS"]
ok = (len(ps) == 11 and info[0]["fields"] == {"gpuInfoListSize": 2, "gpuInfoList[0].index": 3, "gpuInfoList[0].data": 49,
                                              "gpuInfoList[1].index": 7, "gpuInfoList[1].data": 113}
      and info[0]["changed"] == {"gpuInfoList[0].data": [0, 49], "gpuInfoList[1].data": [0, 113]}
      and [(i["before"], i["after"]) for i in info] == [(True, True), (True, False), (False, False), (False, False)]
      and by["NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_V2_PARAMS"][0]["changed"]["driverBranch"] == ["", "r580_00"]
      and by[None][0]["hex_before"] == "efbeadde0100000002000000030000000400000005000000"
      and by["NV_MEMORY_ALLOCATION_PARAMS"][0]["fields"] == {"owner": 4660, "flags": 128}
      and by["NV2080_CTRL_FB_GET_REMAPPED_ROWS_PARAMS"][0]["cut"] is True
      and by["NV2080_CTRL_FB_GET_REMAPPED_ROWS_PARAMS"][0]["len"] == 4096
      and by["NV2080_CTRL_FB_GET_REMAPPED_ROWS_PARAMS"][0]["fields"] == {"entryCount": 2, "entries[0].remapRegVal": 4660})
if not ok:
    print("  jsonl params: %s" % json.dumps(ps)[:2000], file=sys.stderr)
    sys.exit(1)
PY
if python3 -c 'import sqlite3' 2>/dev/null && ldconfig -p | grep -q 'libsqlite3.so.0'; then
    "$CUTAP" export --format sqlite -o "$WORK/on.sqlite" "$WORK/on" || exit 1
    python3 - "$WORK/on.sqlite" "$WORK/on.jsonl" <<'PY' || exit 1
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = [json.loads(r[0]) for r in db.execute("SELECT params FROM calls WHERE params IS NOT NULL ORDER BY id")]
lines = [x["params"] for x in map(json.loads, open(sys.argv[2])) if "params" in x]
if rows != lines or db.execute("SELECT count(*) FROM calls WHERE params IS NULL AND name_id IN "
                               "(SELECT id FROM strings WHERE value = 'RM_CONTROL')").fetchone()[0] != 1:
    print("  sqlite params differ from the JSON lines: %d rows, %d lines" % (len(rows), len(lines)), file=sys.stderr)
    sys.exit(1)
PY
fi
# Perfetto JSON: each block as an argument of its slice
"$CUTAP" export --format perfetto -o "$WORK/on.json" "$WORK/on" || exit 1
python3 - "$WORK/on.json" "$WORK/on.jsonl" <<'PY' || exit 1
import json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
got = [e["args"]["params"] for e in ev if "params" in e.get("args", {})]
want = [x["params"] for x in map(json.loads, open(sys.argv[2])) if "params" in x]
if got != want:
    print("  perfetto params: %d, JSON lines %d" % (len(got), len(want)), file=sys.stderr)
    sys.exit(1)
PY
if [ -n "${CUTAP_DUCKDB_LIB:-}" ]; then
    "$CUTAP" export --format parquet -o "$WORK/on.pq" "$WORK/on" || exit 1
    python3 "$TL/parquet_check.py" "$WORK/on" "$WORK/on.pq" "$WORK/on.jsonl" || { say "  the Parquet export's params"; exit 1; }
    n=$(python3 "$TL/duckdb_sql.py" "SELECT count(*) FROM '$WORK/on.pq/calls/*.parquet' WHERE params IS NOT NULL")
    [ "$n" = 11 ] || { say "  $n Parquet rows with params, not 11"; exit 1; }
fi
exit 0
