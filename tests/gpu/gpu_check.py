"""An independent reading of a trace's GPU activity (issue #31): parses the
trace files itself (docs/FORMAT.md, nothing of cutap's reader), and prints
per process the GPU records by kind, kernels per name, how many activity
records join to a call record (through CUPTI's correlation ids, paired
with the call's place by a CORR GPU record or a GPU_CORR meta record in
the calling thread's run), and which functions launched them.

    gpu_check.py DIR [--expect 'scale=150 add_one=100 memcpy=150 memset=100']

With --expect: exits 1 unless the counts (kernel names matched as
substrings of the mangled names) and every record's join are as said."""
import collections
import glob
import struct
import sys

SLOT = 64


def read(path):
    b = open(path, "rb").read()
    if b[:8] != b"CUTAPTRC":
        return None
    csize = struct.unpack_from("<I", b, 16)[0]
    gpu, gerr, dropped, lost, nrec = struct.unpack_from("<IiQQQ", b, 1576)
    why = b[1608:1608 + 128].split(b"\0")[0].decode(errors="replace")
    ids, calls, names = {}, {}, {}
    gpus, cmeta = [], []
    for off in range(4096, len(b) - csize + 1, csize):
        magic, ctype = struct.unpack_from("<IH", b, off)
        if magic != 0x4b4e4843:
            continue
        take = struct.unpack_from("<Q", b, off + 56)[0]
        s = 1
        while s < csize // SLOT:
            r = off + s * SLOT
            kind, sub, ns = b[r], b[r + 1], struct.unpack_from("<H", b, r + 2)[0]
            if not kind or not ns:
                break
            if kind == 1:
                calls[(take, s)] = struct.unpack_from("<I", b, r + 4)[0]
            elif kind == 2:
                aux = struct.unpack_from("<I", b, r + 4)[0]
                text = b[r + 24:r + ns * SLOT].split(b"\0")[0].decode(errors="replace")
                if sub == 1:
                    ids[aux] = text
                elif sub == 7:
                    names[aux + 1] = text
                elif sub == 10 and ctype == 1:   # GPU_CORR, in a thread's run of records
                    cmeta.append((aux, struct.unpack_from("<Q", b, r + 8)[0]))
            elif kind == 3 and ctype == 5:
                gpus.append(struct.unpack_from("<BBHIQQIIII", b, r) + (b[r + 40:r + 64],))
            s += ns
    return dict(gpu=gpu, err=gerr, dropped=dropped, lost=lost, nrec=nrec, why=why, ids=ids, calls=calls,
                names=names, gpus=gpus, cmeta=cmeta)


def pairs(f):
    """(correlation id, call place) pairs of both kinds: CORR GPU records,
    then GPU_CORR meta records."""
    return [(x[3], x[4]) for x in f["gpus"] if x[1] == 4] + f["cmeta"]


def main():
    d = sys.argv[1]
    expect = {}
    if "--expect" in sys.argv:
        for kv in sys.argv[sys.argv.index("--expect") + 1].split():
            k, v = kv.split("=")
            expect[k] = int(v)
    bad = 0
    for path in sorted(glob.glob(d + "/*.cutap")):
        f = read(path)
        if f is None:
            continue
        g = f["gpus"]
        corr = dict(pairs(f))
        kinds = collections.Counter(x[1] for x in g)
        act = [x for x in g if x[1] in (1, 2, 3)]
        print("%s: gpu=0x%x records %d (header %d) dropped %d lost %d%s" %
              (path.split("/")[-1], f["gpu"], len(g), f["nrec"], f["dropped"], f["lost"],
               " FAILED: " + f["why"] if f["gpu"] & 4 else ""))
        print("  kernels %d, memcpy %d, memset %d, correlations %d (%d by callbacks), api %d" %
              (kinds[1], kinds[2], kinds[3], kinds[4] + len(f["cmeta"]), len(f["cmeta"]), kinds[5]))
        per_name = collections.Counter(f["names"].get(x[9], "?") for x in act if x[1] == 1)
        launched = collections.Counter()
        joined = 0
        for x in act:
            ext = corr.get(x[3])
            fn = None
            if ext is not None:
                cid = f["calls"].get((ext >> 24, ext & 0xffffff))
                fn = f["ids"].get(cid) if cid is not None else None
            if fn:
                joined += 1
            launched[("kernel", "memcpy", "memset")[x[1] - 1] + " <- " + (fn or "(not joined)")] += 1
        print("  joined to their launching call: %d of %d" % (joined, len(act)))
        for k, v in sorted(launched.items()):
            print("    %-60s %d" % (k, v))
        for k, v in per_name.most_common(12):
            print("    kernel %-50.50s %d" % (k, v))
        if expect:
            got = {"memcpy": kinds[2], "memset": kinds[3]}
            for k in expect:
                if k not in got:
                    got[k] = sum(v for n, v in per_name.items() if k in n)
            for k, v in expect.items():
                if got[k] != v:
                    print("  MISMATCH %s: %d, expected %d" % (k, got[k], v))
                    bad = 1
            if joined != len(act):
                print("  MISMATCH: %d records not joined" % (len(act) - joined))
                bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
