#!/usr/bin/env python3
"""Rewrites a cutap trace file with 4 KiB chunks (the smallest the format
allows) and without chunks never taken, for the fuzz corpus
(tests/fuzz/corpus, README there): the recorder's 256 KiB chunks make
inputs too large for a fuzzer to mutate well.

    rechunk.py IN OUT [MAX]

MAX: at most that many pieces per thread (and chunk type), the first ones.

Record chunks are cut between records (a record of more than 63 slots is
dropped); each piece keeps its chunk's thread, name and clock pair, with
seq = old seq * 128 + piece, so a thread's order is kept. Counter chunks
keep only the counters that counted something, 63 (or 101 of version 1)
per piece, first_id set to match. Other chunk types (version 3 counter
entries) are cut the same way, two slots an entry."""
import struct, sys

SLOT, NEW = 64, 4096
src = open(sys.argv[1], "rb").read()
magic, version, hsize, cs, flags = struct.unpack_from("<8sIIII", src, 0)
assert magic == b"CUTAPTRC", "not a trace"
hdr = bytearray(src[:hsize])
struct.pack_into("<I", hdr, 16, NEW)
out = [bytes(hdr)]
limit = int(sys.argv[3]) if len(sys.argv) > 3 else None
count = {}


def piece(head, seq, body, first_id=None):
    key = head[4:12]   # type and tid
    count[key] = count.get(key, 0) + 1
    if limit is not None and count[key] > limit:
        return
    h = bytearray(head)
    struct.pack_into("<I", h, 12, seq)
    if first_id is not None:
        struct.pack_into("<I", h, 32, first_id)
    c = bytes(h) + body
    out.append(c + bytes(NEW - len(c)))


for off in range(hsize, len(src) - cs + 1, cs):
    c = src[off:off + cs]
    cmagic, ctype = struct.unpack_from("<IH", c, 0)
    if cmagic != 0x4b4e4843:
        continue
    head, seq = c[:SLOT], struct.unpack_from("<I", c, 12)[0]
    if ctype == 1:
        recs, s = [], 1
        while s < cs // SLOT:
            kind, _, nslots = struct.unpack_from("<BBH", c, s * SLOT)
            if kind == 0 or nslots == 0:
                break
            recs.append(c[s * SLOT:(s + nslots) * SLOT])
            s += nslots
        body, k = b"", 0
        for r in recs:
            if len(r) > NEW - SLOT:
                continue
            if len(body) + len(r) > NEW - SLOT:
                piece(head, seq * 128 + k, body)
                body, k = b"", k + 1
            body += r
        if body:
            piece(head, seq * 128 + k, body)
    elif ctype == 2:
        size = 40 if version == 1 else 64
        first = struct.unpack_from("<I", c, 32)[0]
        per = (NEW - SLOT) // size
        used = [i for i in range((cs - SLOT) // size) if struct.unpack_from("<Q", c, SLOT + i * size)[0]]
        k = 0
        while used:
            base = used[0]
            group = [i for i in used if i < base + per]
            used = used[len(group):]
            body = bytearray((NEW - SLOT))
            for i in group:
                body[(i - base) * size:(i - base + 1) * size] = c[SLOT + i * size:SLOT + (i + 1) * size]
            piece(head, seq * 128 + k, bytes(body), first + base)
            k += 1
    else:
        ents = [c[SLOT + i * 2 * SLOT:SLOT + (i + 1) * 2 * SLOT] for i in range((cs - SLOT) // (2 * SLOT))]
        ents = [e for e in ents if struct.unpack_from("<I", e, 0)[0]]
        for k in range(0, len(ents), (NEW - SLOT) // (2 * SLOT)):
            piece(head, seq * 128 + k, b"".join(ents[k:k + (NEW - SLOT) // (2 * SLOT)]))
open(sys.argv[2], "wb").write(b"".join(out))
