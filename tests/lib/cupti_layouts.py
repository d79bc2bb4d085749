#!/usr/bin/env python3
"""cupti_layouts.py CC INCLUDE_DIR[+CUDA_INCLUDE_DIR]...: the CUPTI structures cutap reads by
offset (src/record/gpu.c put(), gpu_internal.h CB_SITE/CB_CORR) laid out
as cutap reads them in each CUPTI's own headers.

cutap reads CUPTI's activity records through fixed offsets of their
common prefix (a CUPTI writes the newest version of each record it
knows: CUpti_ActivityKernel8 in 11.8, 10 in 13.0), and the callback data
of its subscriber's callbacks. For each directory holding cupti.h, the
newest version of each record family declared in its cupti_activity.h is
found, and a program built against that directory prints each field's
offsetof, compared with the offset cutap reads (EXPECT below, written
from gpu.c: a change there must be made here too). Prints one line per
directory; exit 1 if a field is elsewhere or missing, 2 if a directory
cannot be read or built against. --shift FAMILY.FIELD first: that field
expected 4 bytes further (the case shows the check fails then).
"+CUDA_INCLUDE_DIR": where its cuda.h
is, when not beside it (Debian's libcupti-dev of 12.4 ships no cuda.h,
and its cupti.h needs one of 12.4 or later: 13.0's does)."""
import os
import re
import subprocess
import sys
import tempfile

EXPECT = {
    "Kernel": dict(kind=0, start=16, end=24, deviceId=40, contextId=44, streamId=48, gridX=52, gridY=56, gridZ=60,
                   blockX=64, blockY=68, blockZ=72, correlationId=92, name=104),
    "Memcpy": dict(kind=0, copyKind=4, srcKind=5, dstKind=6, flags=7, bytes=8, start=16, end=24, deviceId=32,
                   contextId=36, streamId=40, correlationId=44, graphNodeId=64, graphId=72),
    "Memset": dict(kind=0, value=4, bytes=8, start=16, end=24, deviceId=32, contextId=36, streamId=40,
                   correlationId=44, graphNodeId=64, graphId=72),
    "MemcpyPtoP": dict(kind=0, copyKind=4, bytes=8, start=16, end=24, deviceId=32, contextId=36, streamId=40,
                       srcDeviceId=44, dstDeviceId=52, correlationId=60, graphNodeId=72, graphId=80),
}
FIXED = {   # structures without versions
    "CUpti_ActivityAPI": dict(kind=0, cbid=4, start=8, end=16, threadId=28, correlationId=32),
    "CUpti_ActivityExternalCorrelation": dict(kind=0, externalKind=4, externalId=8, correlationId=16),
    "CUpti_CallbackData": dict(callbackSite=0, correlationId=64),
}


def newest(text, family):
    ns = [int(n or 0) for n in re.findall(r"\}\s*CUpti_Activity%s(\d*)\s*;" % family, text)]
    return "CUpti_Activity%s%s" % (family, max(ns) if max(ns) > 0 else "") if ns else None


def check(cc, arg):
    inc, _, cuda = arg.partition("+")
    text = ""
    for h in ("cupti_activity.h", "cupti_activity_deprecated.h"):
        p = os.path.join(inc, h)
        if os.path.exists(p):
            text += open(p, errors="replace").read()
    if not text:
        return 2, "%s: no cupti_activity.h" % inc
    structs = dict(FIXED)
    for fam, fields in EXPECT.items():
        name = newest(text, fam)
        if not name:
            return 1, "%s: no CUpti_Activity%s" % (inc, fam)
        structs[name] = fields
    prog = ["#include <stddef.h>", "#include <stdio.h>", "#include <cupti.h>", "int main(void) {"]
    for s, fields in structs.items():
        for f in fields:
            prog.append('    printf("%s %s %%zu\\n", offsetof(%s, %s));' % (s, f, s, f))
    prog += ["    return 0;", "}"]
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, "l.c"), os.path.join(d, "l")
        open(src, "w").write("\n".join(prog) + "\n")
        b = subprocess.run([cc, "-I", inc] + (["-I", cuda] if cuda else []) + ["-o", exe, src],
                           capture_output=True, text=True)
        if b.returncode:
            # a field this CUPTI lacks shows as a compile error naming it
            return 1, "%s: does not build against it:\n%s" % (inc, b.stderr[-2000:])
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    bad = []
    for line in out.splitlines():
        s, f, off = line.split()
        want = structs[s][f]
        if int(off) != want:
            bad.append("%s.%s at %s, cutap reads %d" % (s, f, off, want))
    names = ", ".join(sorted(n for n in structs if n not in FIXED))
    if bad:
        return 1, "%s (%s): %s" % (inc, names, "; ".join(bad))
    return 0, "%s: %d fields as cutap reads them (%s, API, ExternalCorrelation, CallbackData)" % (
        inc, sum(len(v) for v in structs.values()), names)


def main():
    args = sys.argv[1:]
    if args[:1] == ["--shift"]:   # --shift FAMILY.FIELD: expect it 4 bytes on (the check must then fail)
        fam, field = args[1].split(".")
        (EXPECT.get(fam) or FIXED[fam])[field] += 4
        args = args[2:]
    if len(args) < 2:
        print(__doc__)
        return 2
    worst = 0
    for inc in args[1:]:
        rc, msg = check(args[0], inc)
        print(msg)
        worst = max(worst, rc)
    return worst


if __name__ == "__main__":
    sys.exit(main())
