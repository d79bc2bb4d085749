#!/usr/bin/env bash
# Issue #15: requests made straight to the fake NVIDIA driver, bad ones
# included (t_ioctl raw): bad pointers to the block, to a wrapped block and
# to a UVM command's params (EFAULT from the driver), blocks of a wrong
# size, requests on the wrong device, a version mismatch (EINVAL with the
# driver's version written back), an escape and a UVM command no table
# knows, a dup'd descriptor, a pipe dup2'd over a marked descriptor, a
# request on a closed descriptor. Under cutap trace the program prints
# exactly what it prints bare (each return value and errno); every request
# the driver saw is recorded once with its outcome (-1 EFAULT / EINVAL as
# the result, the block shown as not read), the unknown numbers in hex
# (NV_ESC_0xee, UVM_0x999, never a guessed name), the dup'd descriptor's
# requests recorded, the pipe's FIONREAD not.
. "$(dirname "$0")/../../lib/init.sh"

nvk_env
nvk_run raw raw "$NVDEV" || exit 1
"$CUTAP" dump "$WORK/raw" >"$WORK/raw.dump" || exit 1
for s in 'RM_CONTROL(fd=[0-9]*, dev=nvidiactl, (block not read)) = -1 EFAULT' \
         'RM_CONTROL(fd=[0-9]*, dev=nvidiactl (xfer), (block not read)) = -1 EFAULT' \
         'UVM_INITIALIZE(fd=[0-9]*, dev=nvidia-uvm, size=16, (block not read)) = -1 EFAULT' \
         'CHECK_VERSION_STR(fd=[0-9]*, dev=nvidiactl, cmd=0, reply=0x0, version="580.159.04") = -1 EINVAL' \
         'NV_ESC_0xee(fd=[0-9]*, dev=nvidiactl, request=_IOC(_IOC_READ|_IOC_WRITE, .F., 0xee, 8), arg=0x[0-9a-f]*) = -1 EINVAL' \
         'UVM_0x999(fd=[0-9]*, dev=nvidia-uvm, request=0x999, arg=0x[0-9a-f]*) = -1 EINVAL' \
         'RM_ALLOC(.*hClass=0xbad, .*status=NV_ERR_INVALID_CLASS) = NV_ERR_INVALID_CLASS' \
         'ioctl(fd=[0-9]*, dev=nvidiactl, request=0x541b, arg=0x[0-9a-f]*) = -1 ENOTTY'; do
    grep -q -- "$s" "$WORK/raw.dump" || { say "  dump lacks: $s"; grep -vE 'cu[A-Z]' "$WORK/raw.dump" | cut -c1-220 >&2; exit 1; }
done
# every request the driver saw, once, in order, with its result; the
# pipe's FIONREAD (after dup2 over the uvm descriptor) and the request on
# a closed descriptor never reached it and are not recorded
"$CUTAP" export --format jsonl -o "$WORK/raw.jsonl" -e layer=ioctl "$WORK/raw" || exit 1
python3 - "$WORK/raw.log" "$WORK/raw.jsonl" <<'PY' || exit 1
import json, sys
log = [(int(l.split()[4], 16), int(l.split()[5])) for l in open(sys.argv[1])]
rec = []
for line in open(sys.argv[2]):
    x = json.loads(line)
    if x.get("type") != "call" or x["name"] in ("open", "close", "mmap", "munmap"):
        continue
    r = x["result"] - (1 << 64) if x["result"] >= 1 << 63 else x["result"]
    rec.append((x["name"], r, x["decoded"]))
if len(rec) != len(log) or any(r[1] != l[1] for r, l in zip(rec, log)):
    print("  driver log %d requests, cutap %d" % (len(log), len(rec)), file=sys.stderr)
    for l, r in zip(log, rec):
        print("   ", l, r[:2], file=sys.stderr)
    sys.exit(1)
if any("FIONREAD" in r[2] or "0x541b" in r[2] and "nvidia-uvm" in r[2] for r in rec):
    sys.exit("  the pipe's FIONREAD was recorded")
PY
