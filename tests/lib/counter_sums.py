#!/usr/bin/env python3
"""counter_sums.py DIR: the counters of the counting-mode files in DIR read
straight from the files (format version 2 counter chunks, version 3
counter entries), summed per id over threads and files: "id ID calls
errors timed sampled", one id a line."""
import glob, struct, sys
sums = {}
for f in glob.glob(sys.argv[1] + "/*.cutap"):
    d = open(f, "rb").read()
    cs = struct.unpack_from("<I", d, 16)[0]
    for c in range(4096, len(d) - cs + 1, cs):
        magic, typ = struct.unpack_from("<IH", d, c)
        if magic == 0x4b4e4843 and typ == 2:
            first = struct.unpack_from("<I", d, c + 32)[0]
            for i in range((cs - 64) // 64):
                calls, errors, total, mn, mx, timed, sampled, st = struct.unpack_from("<8Q", d, c + 64 + 64 * i)
                if calls:
                    s = sums.setdefault(first + i, [0, 0, 0, 0])
                    for k, v in enumerate((calls, errors, timed, sampled)):
                        s[k] += v
        elif magic == 0x4b4e4843 and typ == 3:   # version 3: counter entries, 128 bytes
            for e in range(c + 64, c + cs - 127, 128):
                emagic, tid, eid = struct.unpack_from("<IiI", d, e)
                calls, errors, total, mn, mx, timed, sampled, st = struct.unpack_from("<8Q", d, e + 64)
                if emagic == 0x544e4543 and calls:
                    s = sums.setdefault(eid, [0, 0, 0, 0])
                    for k, v in enumerate((calls, errors, timed, sampled)):
                        s[k] += v
for i in sorted(sums):
    print("id", i, *sums[i])
