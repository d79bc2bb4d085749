#!/usr/bin/env python3
"""cupti_layouts.py [--shift FAMILY.FIELD] CC INCLUDE_DIR[+CUDA_INCLUDE_DIR]...:
the CUPTI structures cutap reads by offset laid out as cutap reads them,
in each CUPTI's own headers.

cutap reads CUPTI's activity records through fixed offsets of their
common prefix (a CUPTI writes the newest version of each record it
knows: CUpti_ActivityKernel8 in 11.8, 10 in 13.0), and the callback data
of its subscriber's callbacks: the macros of src/record/cupti_offsets.h,
which record/gpu.c and gpu_internal.h read through. For each directory
holding cupti.h, the newest version of each record family declared in
its headers is found, and a program built against that directory and
cupti_offsets.h prints each field's offsetof and the macro cutap reads
it at (EXPECT below: field to macro). Prints one line per directory;
exit 1 if a field is elsewhere or missing, 2 if a directory cannot be
read or built against. --shift: that field expected 4 bytes further (the
case shows the check fails then). "+CUDA_INCLUDE_DIR": where its cuda.h
is, when not beside it (Debian's libcupti-dev of 12.4 ships no cuda.h,
and its cupti.h needs one of 12.4 or later: 13.0's does)."""
import os
import re
import subprocess
import sys
import tempfile

# each field cutap reads: the macro of src/record/cupti_offsets.h (an
# expression of them) it reads it at
EXPECT = {
    "Kernel": dict(kind="CO_KIND", start="CO_START", end="CO_END", deviceId="CO_K_PLACE",
                   contextId="CO_K_PLACE + 4", streamId="CO_K_PLACE + 8", gridX="CO_K_GRID",
                   gridY="CO_K_GRID + 4", gridZ="CO_K_GRID + 8", blockX="CO_K_BLOCK", blockY="CO_K_BLOCK + 4",
                   blockZ="CO_K_BLOCK + 8", correlationId="CO_K_CORR", name="CO_K_NAME"),
    "Memcpy": dict(kind="CO_KIND", copyKind="CO_M_INFO", srcKind="CO_M_INFO + 1", dstKind="CO_M_INFO + 2",
                   flags="CO_M_INFO + 3", bytes="CO_M_BYTES", start="CO_START", end="CO_END",
                   deviceId="CO_M_PLACE", contextId="CO_M_PLACE + 4", streamId="CO_M_PLACE + 8",
                   correlationId="CO_M_CORR", graphNodeId="CO_M_NODE", graphId="CO_M_GRAPH"),
    "Memset": dict(kind="CO_KIND", value="CO_M_INFO", bytes="CO_M_BYTES", start="CO_START", end="CO_END",
                   deviceId="CO_M_PLACE", contextId="CO_M_PLACE + 4", streamId="CO_M_PLACE + 8",
                   correlationId="CO_M_CORR", graphNodeId="CO_M_NODE", graphId="CO_M_GRAPH"),
    "MemcpyPtoP": dict(kind="CO_KIND", copyKind="CO_M_INFO", bytes="CO_M_BYTES", start="CO_START", end="CO_END",
                       deviceId="CO_M_PLACE", contextId="CO_M_PLACE + 4", streamId="CO_M_PLACE + 8",
                       srcDeviceId="CO_P_SRC", dstDeviceId="CO_P_DST", correlationId="CO_P_CORR",
                       graphNodeId="CO_P_NODE", graphId="CO_P_GRAPH"),
}
FIXED = {   # structures without versions
    "CUpti_ActivityAPI": dict(kind="CO_KIND", cbid="CO_A_CBID", start="CO_A_START", end="CO_A_END",
                              threadId="CO_A_THREAD", correlationId="CO_A_CORR"),
    "CUpti_ActivityExternalCorrelation": dict(kind="CO_KIND", externalKind="CO_X_KIND", externalId="CO_X_ID",
                                              correlationId="CO_X_CORR"),
    "CUpti_CallbackData": dict(callbackSite="CO_CB_SITE", correlationId="CO_CB_CORR"),
}


def newest(text, family):
    ns = [int(n or 0) for n in re.findall(r"\}\s*CUpti_Activity%s(\d*)\s*;" % family, text)]
    return "CUpti_Activity%s%s" % (family, max(ns) if max(ns) > 0 else "") if ns else None


OFFSETS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "record")
shift = {}   # (struct or family, field): " + 4" (--shift)


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
    fam_of = {n: n for n in FIXED}
    for fam, fields in EXPECT.items():
        name = newest(text, fam)
        if not name:
            return 1, "%s: no CUpti_Activity%s" % (inc, fam)
        structs[name] = fields
        fam_of[name] = fam
    prog = ["#include <stddef.h>", "#include <stdio.h>", "#include <cupti.h>", '#include "cupti_offsets.h"',
            "int main(void) {"]
    for s, fields in structs.items():
        for f, macro in fields.items():
            prog.append('    printf("%s %s %%zu %%d\\n", offsetof(%s, %s), (int)(%s%s));'
                        % (s, f, s, f, macro, shift.get((fam_of[s], f), "")))
    prog += ["    return 0;", "}"]
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, "l.c"), os.path.join(d, "l")
        open(src, "w").write("\n".join(prog) + "\n")
        b = subprocess.run([cc, "-I", inc] + (["-I", cuda] if cuda else []) + ["-I", OFFSETS, "-o", exe, src],
                           capture_output=True, text=True)
        if b.returncode:
            # a field this CUPTI lacks shows as a compile error naming it
            return 1, "%s: does not build against it:\n%s" % (inc, b.stderr[-2000:])
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    bad = []
    for line in out.splitlines():
        s, f, off, want = line.split()
        if off != want:
            bad.append("%s.%s at %s, cutap reads %s (%s)" % (s, f, off, want, structs[s][f]))
    names = ", ".join(sorted(n for n in structs if n not in FIXED))
    if bad:
        return 1, "%s (%s): %s" % (inc, names, "; ".join(bad))
    return 0, "%s: %d fields as cutap reads them (%s, API, ExternalCorrelation, CallbackData)" % (
        inc, sum(len(v) for v in structs.values()), names)


def main():
    args = sys.argv[1:]
    if args[:1] == ["--shift"]:   # --shift FAMILY.FIELD: expect it 4 bytes on (the check must then fail)
        fam, field = args[1].split(".")
        shift[(fam, field)] = " + 4"
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
