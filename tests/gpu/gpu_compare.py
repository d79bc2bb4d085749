"""Compares cutap's GPU activity with the referee's (issue #31): per kernel
name, copy direction and memset, the count (must be equal) and the median
GPU duration (reported: the share of names within 5 %, the largest
deviation), for one workload run twice: once under `cutap trace --gpu`
(CSV of `cutap report --gpu`), once under tests/gpu/gpu_ref.c.

    gpu_compare.py REPORT.csv REF_DIR [--min N]
    gpu_compare.py REF_DIR_A REF_DIR_B [--min N]   (control: the referee
        against itself in two runs, the run-to-run spread of the medians)

Names: the referee's are mangled, demangled here with c++filt as cutap's
report does with libstdc++'s demangler. Exits 1 when any count differs."""
import collections
import csv
import glob
import os
import subprocess
import sys


def demangle(names):
    try:
        out = subprocess.run(["c++filt"], input="\n".join(names) + "\n", capture_output=True, text=True,
                             check=True).stdout.split("\n")
        return dict(zip(names, out))
    except (OSError, subprocess.CalledProcessError):
        return {n: n for n in names}


def load_csv(rep):
    ours = {}
    for row in csv.DictReader(open(rep)):
        ours[row["name"]] = (int(row["count"]), int(row["med_ns"]))
    return ours


def load_ref(ref_dir):
    durs = collections.defaultdict(list)
    for path in glob.glob(ref_dir + "/gpu.*.tsv"):
        for line in open(path):
            kind, ns, name = line.rstrip("\n").split("\t", 2)
            if kind == "failed":
                sys.exit("referee failed: " + name)
            durs[(kind, name)].append(int(ns))
    dm = demangle(sorted({n for k, n in durs if k == "kernel"}))
    merged = collections.defaultdict(list)
    for (kind, name), v in durs.items():
        merged[dm.get(name, name) if kind == "kernel" else name] += v
    theirs = {}
    for key, v in merged.items():
        v.sort()
        n = len(v)
        theirs[key] = (n, v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) // 2)
    return theirs


def main():
    rep, ref_dir = sys.argv[1], sys.argv[2]
    least = int(sys.argv[sys.argv.index("--min") + 1]) if "--min" in sys.argv else 5
    ours = load_ref(rep) if os.path.isdir(rep) else load_csv(rep)
    theirs = load_ref(ref_dir)
    bad = 0
    within = compared = 0
    worst = (0.0, "")
    outside = []
    for key in sorted(set(ours) | set(theirs)):
        a, b = ours.get(key, (0, 0)), theirs.get(key, (0, 0))
        if a[0] != b[0]:
            print("  COUNT %-70.70s cutap %d referee %d" % (key, a[0], b[0]))
            bad = 1
        elif a[0] >= least and b[1]:
            compared += 1
            dev = abs(a[1] - b[1]) / b[1]
            within += dev <= 0.05
            if dev > 0.05:
                outside.append("%s %+.1f %%" % (key[:40], 100 * (a[1] - b[1]) / b[1]))
            if dev > worst[0]:
                worst = (dev, key)
    print("  names %d (cutap %d, referee %d), counts %s; medians of %d names with >= %d instances: %d within 5 %%, "
          "largest deviation %.1f %% (%s)" % (len(set(ours) | set(theirs)), len(ours), len(theirs),
                                              "DIFFER" if bad else "equal", compared, least, within,
                                              100 * worst[0], worst[1][:60]))
    if outside:
        print("  outside 5 %: " + "; ".join(outside))
    return bad


if __name__ == "__main__":
    sys.exit(main())
