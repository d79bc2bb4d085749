#!/usr/bin/env bash
# Issue #31: the reader's join on damaged GPU records. In a t_gpu trace the
# file is patched: (1) a CORR record given another's correlation id (as when
# CUPTI's 32-bit ids wrap): the activity of both correlations is joined to
# no call (which launched it is not known), never to a wrong one; (2) a
# CORR record pointed at the second slot of a two-slot call record whose
# first byte is made 1 (a call record's kind): no call starts there, so its
# activity is unjoined, and still exported (JSON lines "call":null), never
# lost. report --gpu counts them; every GPU record is still exported.
# Both ways of joining: the pairs written through CUPTI's callbacks
# (GPU_CORR meta records in the thread's run, the default) are patched,
# and with CUTAP_GPU_DIAG=push CUPTI's CORR GPU records (the same fields
# at the same offsets).
. "$(dirname "$0")/../../lib/init.sh"

for m in cb push; do
if [ $m = push ]; then export CUTAP_GPU_DIAG=push; else unset CUTAP_GPU_DIAG; fi
gpu_run dj 2 1 || { say "  $m: cutap trace --gpu failed"; exit 1; }
f=$(ls "$WORK/dj"/*.cutap)
exp=$(python3 - "$f" <<'PY'
import struct, sys
path = sys.argv[1]
b = bytearray(open(path, "rb").read())
cs = struct.unpack_from("<I", b, 16)[0]
corr, act, calls = [], [], {}   # CORR (offset, correlation, ext), activity correlations, (take, slot) -> nslots
for off in range(4096, len(b) - cs + 1, cs):
    magic, ctype = struct.unpack_from("<IH", b, off)
    if magic != 0x4b4e4843:
        continue
    take = struct.unpack_from("<Q", b, off + 56)[0]
    s = 1
    while s < cs // 64:
        r = off + 64 * s
        kind, typ, ns = b[r], b[r + 1], struct.unpack_from("<H", b, r + 2)[0]
        if not kind or not ns:
            break
        if kind == 1:
            calls[(take, s)] = ns
        elif (kind == 3 and ctype == 5 and typ == 4) or (kind == 2 and ctype == 1 and typ == 10):
            # a pair: CORR GPU record or GPU_CORR meta record, correlation at 4, place at 8
            corr.append((r, struct.unpack_from("<I", b, r + 4)[0], struct.unpack_from("<Q", b, r + 8)[0]))
        elif kind == 3 and ctype == 5 and typ in (1, 2, 3):
            act.append(struct.unpack_from("<I", b, r + 4)[0])
        s += ns
n = lambda c: act.count(c)
# (1) B takes A's correlation
(ra, ca, ea), (rb, cb, eb) = corr[0], corr[1]
struct.pack_into("<I", b, rb + 4, ca)
lost = n(ca) + n(cb)
# (2) C points into the middle of a two-slot call, whose second slot starts with 1
for rc, cc, ec in corr[2:]:
    if n(cc) and calls.get((ec >> 24, ec & 0xffffff)) == 2:
        take, slot = ec >> 24, ec & 0xffffff
        break
else:
    sys.exit("no CORR of a two-slot call")
chunk = next(off for off in range(4096, len(b) - cs + 1, cs)
             if struct.unpack_from("<I", b, off)[0] == 0x4b4e4843 and struct.unpack_from("<Q", b, off + 56)[0] == take)
b[chunk + 64 * (slot + 1)] = 1
struct.pack_into("<Q", b, rc + 8, take << 24 | (slot + 1))
lost += n(cc)
open(path, "wb").write(b)
print(len(act), len(act) - lost, lost)
PY
) || { say "  patching failed"; exit 1; }
set -- $exp
total=$1 joined=$2 unjoined=$3
"$CUTAP" report --gpu "$WORK/dj" >"$WORK/dj.rep" 2>/dev/null
grep -q "$joined of $total joined to their launching call" "$WORK/dj.rep" \
    || { say "  $m: report --gpu: want $joined of $total joined:"; head -3 "$WORK/dj.rep" >&2; exit 1; }
[ "$unjoined" -gt 0 ] || { say "  $m: nothing patched"; exit 1; }
rm -f "$WORK/dj.jsonl"
"$CUTAP" export --format jsonl -o "$WORK/dj.jsonl" "$WORK/dj" 2>/dev/null
got=$(grep -c '"type":"gpu"' "$WORK/dj.jsonl") nul=$(grep -c '"type":"gpu","call":null' "$WORK/dj.jsonl")
[ "$got" = "$total" ] && [ "$nul" = "$unjoined" ] || { say "  $m: jsonl: $got GPU lines ($nul unjoined), want $total ($unjoined)"; exit 1; }
done
