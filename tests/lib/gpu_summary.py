#!/usr/bin/env python3
"""gpu_summary.py DIR: the GPU activity of the one trace file in DIR
(issue #31, `cutap trace --gpu`), read with tests/gpu/gpu_check.py's
parser (docs/FORMAT.md; nothing of cutap's reader), one "key value" a line:

  bits        the header's gpu bits by name (ASKED|STARTED|...), or 0
  error, why  gpu_error, gpu_why
  dropped, lost, header_records   the header's counts
  records     GPU records in the file
  kernel, memcpy, memset, api   records by type
  corr        correlation pairs: corr_gpu (CORR GPU records: external ids)
              + corr_cb (GPU_CORR meta records of the threads: callbacks)
  api_driver, api_runtime   API records of each domain
  joined      activity records (kernels, copies, memsets) joined to a call
              record through a CORR record
  unjoined    those not joined
  by FUNC N   activity records joined to calls of FUNC
  copy KIND N copies by direction (HtoD, DtoH, DtoD, HtoH, PtoP, ...)
  shape NAME GRID BLOCK N   kernels by name, grid and block
  tmin, tmax  the earliest start and latest end of the activity records
  backwards   activity or API records ending before they start
  corr_dup    pairs whose correlation another pair has too
"""
import collections
import glob
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpu"))
import gpu_check  # noqa: E402

BITS = ["ASKED", "STARTED", "FAILED", "REALTIME", "FLUSHED", "TAKEN", "CALLBACKS", "PUSHED", "UNKNOWN_IDS"]
COPY = {1: "HtoD", 2: "DtoH", 3: "HtoA", 4: "AtoH", 5: "AtoA", 6: "AtoD", 7: "DtoA", 8: "DtoD", 9: "HtoH",
        10: "PtoP"}


def main():
    files = [f for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.cutap"))) if gpu_check.read(f)]
    if len(files) != 1:
        sys.exit("gpu_summary.py: %d trace files in %s, want 1" % (len(files), sys.argv[1]))
    f = gpu_check.read(files[0])
    g = f["gpus"]
    bits = "|".join(b for i, b in enumerate(BITS) if f["gpu"] >> i & 1) or "0"
    print("bits", bits)
    print("error", f["err"])
    print("why", f["why"])
    print("dropped", f["dropped"])
    print("lost", f["lost"])
    print("header_records", f["nrec"])
    print("records", len(g))
    kinds = collections.Counter(x[1] for x in g)
    for k, n in (("kernel", 1), ("memcpy", 2), ("memset", 3), ("api", 5)):
        print(k, kinds[n])
    pr = gpu_check.pairs(f)
    print("corr", len(pr))
    print("corr_gpu", kinds[4])
    print("corr_cb", len(f["cmeta"]))
    print("api_driver", sum(1 for x in g if x[1] == 5 and x[7] == 0))
    print("api_runtime", sum(1 for x in g if x[1] == 5 and x[7] == 1))
    corrs = collections.Counter(c for c, _ in pr)
    corr = dict(pr)
    act = [x for x in g if x[1] in (1, 2, 3)]
    by = collections.Counter()
    joined = 0
    for x in act:
        ext = corr.get(x[3])
        cid = f["calls"].get((ext >> 24, ext & 0xffffff)) if ext is not None else None
        fn = f["ids"].get(cid) if cid is not None else None
        if fn:
            joined += 1
            by[fn] += 1
    print("joined", joined)
    print("unjoined", len(act) - joined)
    for fn, n in sorted(by.items()):
        print("by", fn, n)
    for k, n in sorted(collections.Counter(COPY.get(x[9] & 0xff, str(x[9] & 0xff)) for x in act if x[1] == 2).items()):
        print("copy", k, n)
    shapes = collections.Counter()
    for x in act:
        if x[1] == 1:
            grid = struct.unpack_from("<3I", x[10], 0)
            block = struct.unpack_from("<3I", x[10], 12)
            shapes[(f["names"].get(x[9], "?"), "%d,%d,%d" % grid, "%d,%d,%d" % block)] += 1
    for (name, grid, block), n in sorted(shapes.items()):
        print("shape", name, grid, block, n)
    print("tmin", min((x[4] for x in act), default=0))
    print("tmax", max((x[5] for x in act), default=0))
    print("backwards", sum(1 for x in g if x[1] in (1, 2, 3, 5) and x[5] < x[4]))
    print("corr_dup", sum(n for n in corrs.values() if n > 1))


if __name__ == "__main__":
    main()
