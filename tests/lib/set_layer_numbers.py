#!/usr/bin/env python3
"""set_layer_numbers.py FILE: makes a version 4 trace file of t_layers a version
3 one whose ID_NAME records give cudaMalloc the layer number 99 and
ncclAllReduce 2^64 - 1 (layers this reader does not know), in place."""
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
assert struct.unpack_from("<I", d, 8)[0] in (4, 5)
struct.pack_into("<I", d, 8, 3)
done = set()
for off in range(4096, len(d) - 64, 64):
    # meta record (kind 2), ID_NAME (sub 1): the key (offset 8) is the layer
    if d[off] == 2 and d[off + 1] == 1:
        text = bytes(d[off + 24:off + 64]).split(b"\0")[0]
        key = {b"cudaMalloc": 99, b"ncclAllReduce": 2**64 - 1}.get(text)
        if key is not None:
            struct.pack_into("<Q", d, off + 8, key)
            done.add(text)
assert len(done) == 2, done
open(sys.argv[1], "wb").write(d)
