#!/usr/bin/env python3
"""runtime_coverage.py WORKLOAD REFDIR CUTAP.sqlite: issue #14's measure.
The runtime API calls an independent CUPTI counting run of the workload saw
(the referee alone, tests/gpu/cupti_ref.c: REFDIR) against those cutap
recorded in a run of its own under --runtime=cupti (CUTAP.sqlite), per
API, summed over the processes (the two runs have their own pids).
Coverage = sum over APIs of min(cutap, CUPTI) / CUPTI's total. Prints one
line, "WORKLOAD cupti=N cutap=N covered=N coverage=P% more=N private=N
objects=K" (private: calls of the runtime's private __cuda* interface,
which CUPTI never reports, left out of the comparison),
then the APIs that differ (most first): "less" where CUPTI counted more,
"more" where cutap did (calls before CUPTI started at the first cuInit,
which the wrappers of a shared libcudart record; or counted twice)."""
import collections
import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import read_cupti  # noqa: E402


def main():
    wl, ref, db = sys.argv[1:]
    procs, _, _ = read_cupti(ref)
    cupti = collections.Counter()
    for _pid, (_i, _l, _d, rt, _x) in procs.items():
        cupti.update(rt)
    con = sqlite3.connect(db)
    cutap = collections.Counter()
    private = collections.Counter()
    for name, n in con.execute("SELECT name, count(*) FROM calls_named WHERE layer = 'runtime' GROUP BY name"):
        # nvcc's launch stubs call __cudaLaunchKernel(_ptsz), which CUPTI
        # reports as cudaLaunchKernel(_ptsz); the other __cuda* functions
        # (module and kernel registration, call configuration) are the
        # runtime's private interface, which CUPTI never reports
        pub = name[2:] if name.startswith("__cudaLaunchKernel") else name
        if pub.startswith("__cuda"):
            private[name] += n
        else:
            cutap[pub] += n
    objects = [r[0] for r in con.execute(
        "SELECT DISTINCT s.value FROM calls c JOIN strings s ON s.id = c.object_id")]
    total = sum(cupti.values())
    covered = sum(min(cutap[a], n) for a, n in cupti.items())
    more = sum(max(0, cutap[a] - cupti[a]) for a in cutap)
    pct = 100.0 * covered / total if total else 100.0
    print("%s cupti=%d cutap=%d covered=%d coverage=%.3f%% more=%d private=%d objects=%d" %
          (wl, total, sum(cutap.values()), covered, pct, more, sum(private.values()), len(objects)))
    diffs = sorted(((cupti[a] - cutap[a], a) for a in set(cupti) | set(cutap) if cupti[a] != cutap[a]),
                   key=lambda t: -abs(t[0]))
    for d, a in diffs[:8]:
        print("  %s %s: CUPTI %d, cutap %d" % ("less" if d > 0 else "more", a, cupti[a], cutap[a]))
    for o in objects[:6]:
        print("  object %s" % os.path.basename(o))


if __name__ == "__main__":
    main()
