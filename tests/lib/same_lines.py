#!/usr/bin/env python3
"""same_lines.py PRINTED DUMPED: the lines of cutap trace --print and of
cutap dump, per thread and in order, are the same but for the time at
their start and their durations, which may differ by 2 ns or 0.1 % and
one unit of the last digit printed: a TSC trace's tick rate is known
better when dump reads the finished trace than while it is written.
Prints the first difference; exit 1 on one."""
import re
import sys

DUR = re.compile(r" <([0-9.]+) (ns|us|ms|s)>")
SCALE = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}


def per_thread(path):
    threads = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            rest = line.rstrip("\n").split(" ", 1)[1]
            label = rest.split(" ", 1)[0]
            durs = [(float(v) * SCALE[u], SCALE[u] * 10.0 ** -(len(v.split(".")[1]) if "." in v else 0))
                    for v, u in DUR.findall(rest)]
            threads.setdefault(label, []).append((DUR.sub(" <D>", rest), durs))
    return threads


a, b = per_thread(sys.argv[1]), per_thread(sys.argv[2])
if sorted(a) != sorted(b):
    print("threads differ: %s / %s" % (sorted(a), sorted(b)))
    sys.exit(1)
for t in a:
    if len(a[t]) != len(b[t]):
        print("%s: %d lines printed, %d dumped" % (t, len(a[t]), len(b[t])))
        sys.exit(1)
    for (ta, da), (tb, db) in zip(a[t], b[t]):
        if ta != tb or len(da) != len(db) or any(abs(x - y) > max(2, 1e-3 * y) + max(ux, uy)
                                                 for (x, ux), (y, uy) in zip(da, db)):
            print("printed: %s %s\ndumped:  %s %s" % (ta, da, tb, db))
            sys.exit(1)
