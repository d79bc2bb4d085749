"""Compares, process by process, the driver API calls the CUPTI referee
counted (tests/gpu/cupti_ref.c) with those cutap recorded in the same run.

    compare.py WORKLOAD CUPTI_DIR TRACE.sqlite

CUPTI_DIR holds the referee's cupti.<pid>.bin files and cbids.tsv (the
APIs CUPTI has a callback for); TRACE.sqlite is `cutap export --format sqlite` of the
trace made in that run with CUTAP_KERNEL_NAMES=0 (so cutap makes no driver
call of its own). The referee starts inside the first cuInit, so only the
calls cutap saw start after that are compared, and CUPTI stops calling
back during exit, before the runtime's last calls: CUPTI's counts must
equal those of a prefix (in time) of cutap's calls that ends within
EPS_NS of CUPTI's last callback (stop_point); a call lost or recorded twice
within EPS_NS of that moment cannot be told from CUPTI's stop. The calls
before and after are counted apart, as are calls CUPTI does not report:
export-table slots, APIs without a callback id, and cuGetExportTable
(NOT_REPORTED).

Prints one line "WORKLOAD key=value ..." and, indented, every mismatch and
every API without a callback id. Exits 1 on a mismatch, and also when no
process was compared, when a process that called cuInit left no referee
counts, when the referee failed to subscribe (cupti.<pid>.failed), counted
nothing, or dropped callbacks.
"""
import collections
import os
import re
import sqlite3
import struct
import sys

# Driver APIs CUPTI has a callback id for but never reports: in every
# workload of tests/gpu/run.sh it counted 0 cuGetExportTable calls while
# cutap recorded them (from cudart, the libraries and libcupti itself).
NOT_REPORTED = {"cuGetExportTable"}
HEAD = struct.Struct("<8s7Q")


def read_cupti(d):
    """{pid: (init_ns, last_ns, driver Counter, runtime calls, dropped)}, driver names"""
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
        magic, pid, _ppid, init, last, ndrv, nrt, dropped = HEAD.unpack_from(data)
        if magic != b"CUTAPREF" or len(data) < HEAD.size + 8 * (ndrv + nrt):
            print("%s: not a referee file" % f)
            continue
        words = struct.unpack_from("<%dQ" % (ndrv + nrt), data, HEAD.size)
        drv = collections.Counter()
        for cbid in range(ndrv):
            if words[cbid]:
                drv[names.get(("driver", cbid), "cbid_%d" % cbid)] += words[cbid]
        rt = collections.Counter()
        for cbid in range(nrt):
            if words[ndrv + cbid]:
                rt[rt_name(names.get(("runtime", cbid), "cbid_%d" % cbid))] += words[ndrv + cbid]
        procs[pid] = (init, last, drv, rt, dropped)
    cbids = {n for (dom, _), n in names.items() if dom == "driver"}
    return procs, cbids, {rt_name(n) for (dom, _), n in names.items() if dom == "runtime"}


def rt_name(n):
    """CUPTI names runtime callbacks with the version they appeared in
    (cudaMalloc_v3020); cutap by the exported name (cudaMalloc)."""
    return re.sub(r"_v\d+$", "", n)


def read_cutap(db):
    con = sqlite3.connect(db)
    origin = con.execute("SELECT MIN(start_ns) FROM processes").fetchone()[0] or 0
    rows = con.execute(
        "SELECT p.pid, c.layer, c.name, c.start_ns, c.dur_ns FROM calls_named c "
        "JOIN threads t ON t.id = c.thread_id JOIN processes p ON p.id = t.process_id")
    calls = collections.defaultdict(list)
    for pid, layer, name, start, dur in rows:
        calls[pid].append((layer, name, start + origin, start + origin + (dur or 0)))
    return calls


# How far (ns) a call's start in cutap's trace may lie from CUPTI's last
# callback on the wrong side: the two are on different clocks (cutap's TSC
# converted to CLOCK_REALTIME, the referee's CLOCK_REALTIME); runs showed
# differences of 0.1 to 0.7 us.
EPS_NS = 2000


def stop_point(seq, cc, last):
    """CUPTI stops calling back during exit, before the runtime's last
    calls. The calls it reported must then be exactly a prefix (in time)
    of the calls cutap saw, ending at CUPTI's last callback: returns
    (k, problem), k the length of the first prefix whose counts per API
    equal CUPTI's (or, without one, of the calls that started up to
    CUPTI's last callback) and problem None or what is wrong with it."""
    if not seq:
        return 0, None
    if not sum(cc.values()):
        return 0, "CUPTI counted no call, cutap %d after CUPTI started" % len(seq)
    diff = sum(1 for n in cc if cc[n])        # APIs whose counts still differ
    run = collections.Counter()
    for k, (start, name) in enumerate(seq):
        was = run[name] == cc[name]
        run[name] += 1
        now = run[name] == cc[name]
        diff += (not now) - (not was)
        if diff == 0:
            k += 1
            if start > last + EPS_NS:
                return k, "the calls CUPTI counted end %.1f us after its last callback" % ((start - last) / 1e3)
            if k < len(seq) and seq[k][0] < last - EPS_NS:
                return k, "a call CUPTI did not count (%s) starts %.1f us before its last callback" % (
                    seq[k][1], (last - seq[k][0]) / 1e3)
            return k, None
    return sum(1 for start, _ in seq if start <= last), None


# Runtime entry points CUPTI reports under another name: nvcc 13's
# <<<>>> calls __cudaLaunchKernel, which CUPTI calls cudaLaunchKernel (GPU
# runs of 2026-11-21: CUPTI 6 cudaLaunchKernel, cutap 6 __cudaLaunchKernel).
RT_AS = {"__cudaLaunchKernel": "cudaLaunchKernel", "__cudaLaunchKernel_ptsz": "cudaLaunchKernel_ptsz"}
# ... and ones it has a callback id for but never reports (0 in every
# workload while cutap recorded them): the launch stub's helpers.
RT_NOT_REPORTED = {"__cudaGetKernel", "__cudaPushCallConfiguration", "__cudaPopCallConfiguration"}


def rt_compare(pid, calls, init, last, rtc, rt_cbids, tot, lines):
    """Runtime API calls: cutap's runtime layer (the shared libcudart's
    exports) against CUPTI's runtime domain, over the time CUPTI was
    active. CUPTI also sees the runtime calls of statically linked copies
    of cudart (inside cuBLAS, cuDNN, NCCL, the program itself), which no
    symbol interposition can reach: more CUPTI calls of an API are
    reported (rt_cupti_more), more cutap calls are an error (rt_cutap_more:
    a call recorded twice or one that never happened). A call counts when
    it ended after CUPTI started: CUPTI, loaded inside the first runtime
    call's cuInit, still reports that call."""
    seen = collections.Counter(RT_AS.get(name, name) for layer, name, start, end in calls
                               if layer == "runtime" and name not in RT_NOT_REPORTED
                               and end >= init and start <= last + EPS_NS)
    tot["rt_notreported"] += sum(1 for layer, name, start, end in calls
                                 if layer == "runtime" and name in RT_NOT_REPORTED)
    if not seen and not rtc:
        return
    for name in sorted(set(seen) | set(rtc)):
        if name not in rt_cbids:
            tot["rt_nocbid"] += seen[name]
        elif seen[name] == rtc[name]:
            tot["rt_equal"] += 1
        elif seen[name] < rtc[name]:
            tot["rt_cupti_more"] += 1
            lines.append("  RUNTIME pid %d %s: CUPTI %d, cutap %d (static cudart copies?)" % (pid, name, rtc[name], seen[name]))
        else:
            tot["rt_cutap_more"] += 1
            tot["mismatches"] += 1
            lines.append("  RUNTIME MISMATCH pid %d %s: CUPTI %d, cutap %d" % (pid, name, rtc[name], seen[name]))
    tot["rt_cutap_calls"] += sum(seen.values())


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    wl, cdir, db = sys.argv[1:]
    cupti, cbids, rt_cbids = read_cupti(cdir)
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
    for pid in sorted(set(cupti) | set(cutap)):
        init, last, cc, rtc, dropped = cupti.get(pid, (None, None, collections.Counter(), collections.Counter(), 0))
        rtcalls = sum(rtc.values())
        calls = cutap.get(pid, [])
        if pid in cupti and not calls and not sum(cc.values()) and not rtcalls:
            continue      # a process that never called CUDA (a forked DataLoader worker)
        if init is not None:
            rt_compare(pid, calls, init, last, rtc, rt_cbids, tot, lines)
        before = collections.Counter()
        seq = []          # comparable calls after the referee started, in time order
        for layer, name, start, _ in calls:
            if layer not in ("driver", "hidden"):
                continue  # runtime and library layers: rt_compare
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
        tot["preinit"] += sum(before.values())
        if pid not in cupti:
            # The driver loads the referee inside cuInit: a process that
            # called it must have a file.
            if any(c[1] == "cuInit" for c in calls):
                tot["mismatches"] += 1
                lines.append("  NO REFEREE pid %d called cuInit but left no CUPTI counts" % pid)
            tot["procs_without_referee"] += 1
            continue
        if dropped:
            tot["mismatches"] += 1
            lines.append("  DROPPED pid %d: %d callbacks with ids beyond the referee's table" % (pid, dropped))
        seq.sort()
        k, problem = stop_point(seq, cc, last)
        during = collections.Counter(name for _, name in seq[:k])
        after = collections.Counter(name for _, name in seq[k:])
        if problem:
            tot["mismatches"] += 1
            lines.append("  BOUNDARY pid %d: %s" % (pid, problem))
        tot["postexit"] += sum(after.values())
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
    for f in sorted(os.listdir(cdir)):
        if f.endswith(".failed"):
            tot["mismatches"] += 1
            lines.append("  REFEREE FAILED %s: %s" % (f, open(os.path.join(cdir, f)).read().strip()))
    if not tot["procs"]:
        tot["mismatches"] += 1
        lines.append("  NO PROCESS compared: no CUPTI counts")
    print("%s procs=%d cupti_apis=%d cutap_apis=%d cupti_calls=%d cutap_calls=%d mismatches=%d "
          "getproc=%d exptbl=%d hidden=%d preinit=%d postexit=%d nocbid=%d runtime=%d procs_without_referee=%d "
          "rt_cutap_calls=%d rt_equal=%d rt_cupti_more=%d rt_cutap_more=%d rt_nocbid=%d rt_notreported=%d"
          % (wl, tot["procs"], len(apis_cupti), len(apis_cutap), tot["cupti_calls"], tot["cutap_calls"],
             tot["mismatches"], tot["getproc"], tot["exptbl"], tot["hidden"], tot["preinit"], tot["postexit"],
             tot["nocbid"], tot["runtime"], tot["procs_without_referee"],
             tot["rt_cutap_calls"], tot["rt_equal"], tot["rt_cupti_more"], tot["rt_cutap_more"], tot["rt_nocbid"],
             tot["rt_notreported"]))
    for line in lines:
        print(line)
    for name, n in sorted(nocbid.items()):
        print("  NOCBID %s %d" % (name, n))
    return 1 if tot["mismatches"] else 0


if __name__ == "__main__":
    sys.exit(main())
