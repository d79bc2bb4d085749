"""Compares, process by process, the driver API calls the CUPTI referee
counted (tests/gpu/cupti_ref.c) with those cutap recorded in the same run.

    compare.py WORKLOAD CUPTI_DIR TRACE.sqlite

CUPTI_DIR holds cupti.<pid>.tsv files and cbids.tsv (the driver APIs CUPTI
has a callback for); TRACE.sqlite is `cutap export --format sqlite` of the
trace made in that run with CUTAP_KERNEL_NAMES=0 (so cutap makes no driver
call of its own). The referee starts inside the first cuInit, so only calls
cutap saw starting after that moment (init_realtime_ns) are compared; the
ones before are counted apart, as are calls CUPTI cannot see at all: APIs
without a callback id (cuGetProcAddress*, ...) and export-table slots.

Prints one line "WORKLOAD key=value ..." and, indented, every mismatch and
every API without a callback id. Exits 1 when a process has a mismatch.
"""
import collections
import os
import sqlite3
import sys


def read_cupti(d):
    procs = {}
    for f in sorted(os.listdir(d)):
        if not (f.startswith("cupti.") and f.endswith(".tsv")):
            continue
        counts = collections.Counter()
        init = None
        with open(os.path.join(d, f)) as fh:
            for line in fh:
                if line.startswith("#"):
                    w = line.split()
                    init = int(w[w.index("init_realtime_ns") + 1])
                    pid = int(w[w.index("pid") + 1])
                    continue
                dom, name, n = line.rstrip("\n").split("\t")
                if dom == "driver":
                    counts[name] += int(n)
        procs[pid] = (init, counts)
    cbids = set()
    p = os.path.join(d, "cbids.tsv")
    if os.path.exists(p):
        with open(p) as fh:
            cbids = {line.split("\t")[1].strip() for line in fh if "\t" in line}
    return procs, cbids


def read_cutap(db):
    con = sqlite3.connect(db)
    origin = con.execute("SELECT MIN(start_ns) FROM processes").fetchone()[0] or 0
    rows = con.execute(
        "SELECT p.pid, c.layer, c.name, c.start_ns FROM calls_named c "
        "JOIN threads t ON t.id = c.thread_id JOIN processes p ON p.id = t.process_id")
    calls = collections.defaultdict(list)
    for pid, layer, name, start in rows:
        calls[pid].append((layer, name, start + origin))
    return calls


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    wl, cdir, db = sys.argv[1:]
    cupti, cbids = read_cupti(cdir)
    cutap = read_cutap(db)
    if not cbids:
        print("%s no cbids.tsv in %s: cannot tell which APIs CUPTI sees" % (wl, cdir))
        return 1
    tot = collections.Counter()
    lines = []
    nocbid = collections.Counter()
    apis_cupti, apis_cutap = set(), set()
    for pid in sorted(set(cupti) | set(cutap)):
        init, cc = cupti.get(pid, (None, collections.Counter()))
        after, before = collections.Counter(), collections.Counter()
        for layer, name, start in cutap.get(pid, []):
            if layer == "hidden":
                tot["hidden"] += 1
            elif name.startswith("cuGetProcAddress"):
                tot["getproc"] += 1
            elif name not in cbids:
                nocbid[name] += 1
                tot["nocbid"] += 1
            elif init is None or start < init:
                before[name] += 1
            else:
                after[name] += 1
        if pid not in cupti:
            tot["procs_without_referee"] += 1
            tot["preinit"] += sum(before.values())
            continue
        if pid not in cutap:
            tot["procs_without_trace"] += 1
        tot["procs"] += 1
        tot["preinit"] += sum(before.values())
        tot["cupti_calls"] += sum(cc.values())
        tot["cutap_calls"] += sum(after.values())
        apis_cupti |= set(cc)
        apis_cutap |= set(after)
        for name in sorted(set(cc) | set(after)):
            if cc[name] != after[name]:
                tot["mismatches"] += 1
                lines.append("  MISMATCH pid %d %s: CUPTI %d, cutap %d (%d more before CUPTI started)"
                             % (pid, name, cc[name], after[name], before[name]))
    print("%s procs=%d cupti_apis=%d cutap_apis=%d cupti_calls=%d cutap_calls=%d mismatches=%d "
          "getproc=%d hidden=%d preinit=%d nocbid=%d procs_without_referee=%d"
          % (wl, tot["procs"], len(apis_cupti), len(apis_cutap), tot["cupti_calls"], tot["cutap_calls"],
             tot["mismatches"], tot["getproc"], tot["hidden"], tot["preinit"], tot["nocbid"],
             tot["procs_without_referee"]))
    for line in lines:
        print(line)
    for name, n in sorted(nocbid.items()):
        print("  NOCBID %s %d" % (name, n))
    return 1 if tot["mismatches"] else 0


if __name__ == "__main__":
    sys.exit(main())
