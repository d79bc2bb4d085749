#!/usr/bin/env bash
# Issue #15: a fake libcuda that talks to a fake NVIDIA kernel driver the
# way libcuda does (open, ioctl, mmap, munmap through glibc; requests of
# the real shapes: CHECK_VERSION_STR, CARD_INFO, RM_ALLOC with NVOS21 and
# NVOS64 blocks, REGISTER_FD, UVM_INITIALIZE, an RM_CONTROL wrapped in
# IOCTL_XFER_CMD, an RM_CONTROL the driver refuses with
# NV_ERR_NOT_SUPPORTED, and a thread of its own), from 4 threads at once
# (t_ioctl driver). Under cutap trace: the output is unchanged; every
# request the fake driver served is recorded once, on its thread, in its
# order, with its result (the fake's log against the JSON lines export);
# each is nested under the API call that made it (cuInit >
# RM_ALLOC(NV01_ROOT_CLIENT), cuMemAlloc_v2 > RM_ALLOC(NV01_MEMORY_LOCAL_USER)
# > ..., cuMemFree_v2 > munmap(NV01_MEMORY_LOCAL_USER), RM_FREE), the driver's own thread's at
# depth 0; the blocks are decoded (version string, PCI ids, class and
# control names, the wrapped control under its own name, NV_STATUS as the
# result and counted as an error).
. "$(dirname "$0")/../../lib/init.sh"

nvk_env
nvk_run drv driver || exit 1
"$CUTAP" export --format jsonl -o "$WORK/drv.jsonl" "$WORK/drv" || exit 1
# the fake's log (pid tid dev req nr result) against cutap's records
python3 - "$WORK/drv.log" "$WORK/drv.jsonl" <<'PY' || exit 1
import json, sys
names = {0x2a: "RM_CONTROL", 0x2b: "RM_ALLOC", 0x29: "RM_FREE", 0x4e: "RM_MAP_MEMORY", 0xc8: "CARD_INFO",
         0xc9: "REGISTER_FD", 0xd2: "CHECK_VERSION_STR", 0x30000001: "UVM_INITIALIZE"}
log = []
for line in open(sys.argv[1]):
    pid, tid, dev, req, nr, res = line.split()
    log.append((int(tid), names.get(int(nr, 16), nr), int(res)))
rec = []
for line in open(sys.argv[2]):
    x = json.loads(line)
    if x.get("type") == "call" and x["layer"] == "ioctl" and x["name"] not in ("open", "close", "mmap", "munmap"):
        r = x["result"]
        rec.append((x["tid"], x["name"], r - (1 << 64) if r >= 1 << 63 else r))
by = lambda l, t: [e for e in l if e[0] == t]
tids = sorted({e[0] for e in log} | {e[0] for e in rec})
bad = [t for t in tids if by(log, t) != by(rec, t)]
if len(log) < 40 or bad:
    print("  fake driver served %d, cutap recorded %d; threads differing: %s" % (len(log), len(rec), bad), file=sys.stderr)
    for t in bad[:2]:
        print("  log %s\n  rec %s" % (by(log, t)[:8], by(rec, t)[:8]), file=sys.stderr)
    sys.exit(1)
PY
"$CUTAP" report --tree --format csv "$WORK/drv" >"$WORK/tree.csv" || exit 1
for p in 'cuInit > open' 'cuInit > CHECK_VERSION_STR' 'cuInit > CARD_INFO' 'cuInit > RM_ALLOC(NV01_ROOT_CLIENT)' \
         'cuInit > RM_ALLOC(NV01_DEVICE_0)' 'cuInit > UVM_INITIALIZE' \
         'cuInit > RM_CONTROL(NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION)' 'cuInit > RM_CONTROL(NV2080_CTRL_CMD_GPU_GET_ID)' \
         'cuMemAlloc_v2 > RM_ALLOC(NV01_MEMORY_LOCAL_USER)' 'cuMemAlloc_v2 > RM_MAP_MEMORY' \
         'cuMemAlloc_v2 > mmap(NV01_MEMORY_LOCAL_USER)' 'cuMemFree_v2 > munmap(NV01_MEMORY_LOCAL_USER)' 'cuMemFree_v2 > RM_FREE' 'RM_CONTROL(NV2080_CTRL_CMD_GPU_GET_INFO)'; do
    grep -q "^$p," "$WORK/tree.csv" || { say "  no path '$p'"; cat "$WORK/tree.csv" >&2; exit 1; }
done
# 12 allocations, each with its RM_ALLOC, mapping and free; the background
# thread's 3 controls at depth 0 on their own thread
grep -q '^cuMemAlloc_v2 > RM_ALLOC(NV01_MEMORY_LOCAL_USER),ioctl,RM_ALLOC(NV01_MEMORY_LOCAL_USER),1,12,' "$WORK/tree.csv" \
    && grep -q '^cuMemFree_v2 > munmap(NV01_MEMORY_LOCAL_USER),ioctl,munmap(NV01_MEMORY_LOCAL_USER),1,12,' "$WORK/tree.csv" \
    && grep -q '^RM_CONTROL(NV2080_CTRL_CMD_GPU_GET_INFO),ioctl,RM_CONTROL(NV2080_CTRL_CMD_GPU_GET_INFO),0,3,' "$WORK/tree.csv" \
    || { say "  counts in the tree"; cat "$WORK/tree.csv" >&2; exit 1; }
"$CUTAP" dump "$WORK/drv" >"$WORK/drv.dump" || exit 1
for s in 'CHECK_VERSION_STR(fd=[0-9]*, dev=nvidiactl, cmd=0, reply=0x1, version="580.159.04") = 0' \
         'CARD_INFO(fd=[0-9]*, dev=nvidiactl, cards=0x1, pci=0000:65:00.0, vendor_id=0x10de, device_id=0x2330,' \
         'RM_ALLOC(.*hClass=NV01_DEVICE_0, .*status=NV_OK) = NV_OK' \
         'RM_CONTROL(fd=[0-9]*, dev=nvidiactl (xfer), .*cmd=NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION, .*paramsSize=0x28, status=NV_OK) = NV_OK' \
         'RM_CONTROL(.*cmd=NV2080_CTRL_CMD_GPU_GET_ID, .*status=NV_ERR_NOT_SUPPORTED) = NV_ERR_NOT_SUPPORTED' \
         'UVM_INITIALIZE(fd=[0-9]*, dev=nvidia-uvm, size=16, status=NV_OK) = NV_OK' \
         'open(dev=nvidia0, flags=O_RDWR|O_CLOEXEC, fd=[0-9]*) = 0' \
         'mmap(fd=[0-9]*, dev=nvidia0, length=1048576, prot=PROT_READ|PROT_WRITE, flags=MAP_SHARED, offset=0, addr=0x'; do
    grep -q "$s" "$WORK/drv.dump" || { say "  dump lacks: $s"; grep -E 'RM_|UVM|CARD|CHECK' "$WORK/drv.dump" | head -20 >&2; exit 1; }
done
# the refused control is the layer's one error
"$CUTAP" report --format csv -e layer=ioctl "$WORK/drv" >"$WORK/rep.csv" || exit 1
awk -F, '$1 == "ioctl" && $2 == "RM_CONTROL" { e = $4 } END { exit e != 1 }' "$WORK/rep.csv" \
    || { say "  RM_CONTROL errors"; cat "$WORK/rep.csv" >&2; exit 1; }
