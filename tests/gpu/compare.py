"""Compares, process by process, the driver API calls the CUPTI referee
counted (tests/gpu/cupti_ref.c) with those cutap recorded in the same run.

    compare.py WORKLOAD CUPTI_DIR TRACE.sqlite

CUPTI_DIR holds the referee's cupti.<pid>.bin files and cbids.tsv (the
APIs CUPTI has a callback for); TRACE.sqlite is `cutap export --format sqlite` of the
trace made in that run with CUTAP_KERNEL_NAMES=0 (so cutap makes no driver
call of its own). The referee starts inside the first cuInit, so only the
calls cutap saw start after that are compared, and CUPTI stops calling
back during exit, before the runtime's last calls: CUPTI's counts must
equal those of a prefix (in time) of cutap's calls (stop_point). The
calls before and after are counted apart, as are calls CUPTI does not report:
export-table slots, APIs without a callback id, and cuGetExportTable
(NOT_REPORTED).

Prints one line "WORKLOAD key=value ..." and, indented, every mismatch and
every API without a callback id. Exits 1 when a process has a mismatch.
"""
import collections
import os
import sqlite3
import struct
import sys

# Driver APIs CUPTI has a callback id for but never reports: in every
# workload of tests/gpu/run.sh it counted 0 cuGetExportTable calls while
# cutap recorded them (from cudart, the libraries and libcupti itself).
NOT_REPORTED = {"cuGetExportTable"}
HEAD = struct.Struct("<8s7Q")


def read_cupti(d):
    """{pid: (init_ns, last_ns, driver Counter, runtime calls)}, driver names"""
    names = {}
    p = os.path.join(d, "cbids.tsv")
    if os.path.exists(p):
        with open(p) as fh:
            for line in fh:
                dom, cbid, name = line.rstrip("\n").split("\t")
                names[(dom, int(cbid))] = name
    procs = {}
    for f in sorted(os.listdir(d)):
        if not (f.startswith("cupti.") and f.endswith(".bin")):
            continue
        data = open(os.path.join(d, f), "rb").read()
        if len(data) < HEAD.size:
            continue
        magic, pid, _ppid, init, last, ndrv, nrt, _ = HEAD.unpack_from(data)
        if magic != b"CUTAPREF" or len(data) < HEAD.size + 8 * (ndrv + nrt):
            print("%s: not a referee file" % f)
            continue
        words = struct.unpack_from("<%dQ" % (ndrv + nrt), data, HEAD.size)
        drv = collections.Counter()
        for cbid in range(ndrv):
            if words[cbid]:
                drv[names.get(("driver", cbid), "cbid_%d" % cbid)] += words[cbid]
        procs[pid] = (init, last, drv, sum(words[ndrv:]))
    cbids = {n for (dom, _), n in names.items() if dom == "driver"}
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


def stop_point(seq, cc, last):
    """CUPTI stops calling back during exit, before the runtime's last
    calls. The calls it reported must then be exactly a prefix (in time)
    of the calls cutap saw: returns the length k of the first prefix whose
    counts per API equal CUPTI's, and how far (ns) the call after it
    starts from CUPTI's last callback; without such a prefix, the calls
    that started up to CUPTI's last callback and None."""
    diff = sum(1 for n in cc if cc[n])        # APIs whose counts still differ
    run = collections.Counter()
    if diff == 0:
        return 0, None
    for k, (start, name) in enumerate(seq):
        was = run[name] == cc[name]
        run[name] += 1
        now = run[name] == cc[name]
        diff += (not now) - (not was)
        if diff == 0:
            nxt = seq[k + 1][0] if k + 1 < len(seq) else start
            return k + 1, nxt - last
    return sum(1 for start, _ in seq if start <= last), None


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    wl, cdir, db = sys.argv[1:]
    cupti, cbids = read_cupti(cdir)
    if not cbids:
        print("%s no cbids.tsv in %s: cannot tell which APIs CUPTI sees" % (wl, cdir))
        return 1
    if not os.path.exists(db):
        print("%s no trace export %s" % (wl, db))
        return 1
    cutap = read_cutap(db)
    tot = collections.Counter()
    lines = []
    nocbid = collections.Counter()
    apis_cupti, apis_cutap = set(), set()
    min_gap = None    # ns from CUPTI's last callback to the first call it did not see
    for pid in sorted(set(cupti) | set(cutap)):
        init, last, cc, rtcalls = cupti.get(pid, (None, None, collections.Counter(), 0))
        before = collections.Counter()
        seq = []          # comparable calls after the referee started, in time order
        for layer, name, start in cutap.get(pid, []):
            if name.startswith("cuGetProcAddress"):
                tot["getproc"] += 1
            if layer == "hidden":
                tot["hidden"] += 1
            elif name in NOT_REPORTED and not cc[name]:
                tot["exptbl"] += 1
            elif name not in cbids:
                nocbid[name] += 1
                tot["nocbid"] += 1
            elif init is None or start < init:
                before[name] += 1
            else:
                seq.append((start, name))
        seq.sort()
        k, gap_ns = stop_point(seq, cc, last)
        during = collections.Counter(name for _, name in seq[:k])
        after = collections.Counter(name for _, name in seq[k:])
        if gap_ns is not None and (min_gap is None or gap_ns < min_gap):
            min_gap = gap_ns
        tot["preinit"] += sum(before.values())
        tot["postexit"] += sum(after.values())
        if pid not in cupti:
            tot["procs_without_referee"] += 1
            continue
        tot["procs"] += 1
        tot["runtime"] += rtcalls
        tot["cupti_calls"] += sum(cc.values())
        tot["cutap_calls"] += sum(during.values())
        apis_cupti |= set(cc)
        apis_cutap |= set(during)
        for name in sorted(set(cc) | set(during)):
            if cc[name] != during[name]:
                tot["mismatches"] += 1
                lines.append("  MISMATCH pid %d %s: CUPTI %d, cutap %d (and %d before CUPTI started, %d after "
                             "it stopped)" % (pid, name, cc[name], during[name], before[name], after[name]))
        for name, n in sorted(after.items()):
            lines.append("  AFTER pid %d %s: %d calls after CUPTI stopped" % (pid, name, n))
    print("%s procs=%d cupti_apis=%d cutap_apis=%d cupti_calls=%d cutap_calls=%d mismatches=%d "
          "getproc=%d exptbl=%d hidden=%d preinit=%d postexit=%d nocbid=%d runtime=%d procs_without_referee=%d "
          "min_gap_us=%s"
          % (wl, tot["procs"], len(apis_cupti), len(apis_cutap), tot["cupti_calls"], tot["cutap_calls"],
             tot["mismatches"], tot["getproc"], tot["exptbl"], tot["hidden"], tot["preinit"], tot["postexit"],
             tot["nocbid"], tot["runtime"], tot["procs_without_referee"],
             "-" if min_gap is None else "%.1f" % (min_gap / 1000.0)))
    for line in lines:
        print(line)
    for name, n in sorted(nocbid.items()):
        print("  NOCBID %s %d" % (name, n))
    return 1 if tot["mismatches"] else 0


if __name__ == "__main__":
    sys.exit(main())
