#!/usr/bin/env python3
"""runtime_coverage.py WORKLOAD REFDIR CUTAP.sqlite [REFDIR2]: issue #14's measure.
The runtime API calls an independent CUPTI counting run of the workload saw
(the referee alone, tests/gpu/cupti_ref.c: REFDIR) against those cutap
recorded in a run of its own under --runtime=cupti (CUTAP.sqlite), per
API, summed over the processes, and per process.
Coverage = sum over APIs of min(cutap, CUPTI) / CUPTI's total. Prints one
line, "WORKLOAD cupti=N cutap=N covered=N coverage=P% more=N private=N
objects=K procs=N/M pp_coverage=P%" (private: calls of the runtime's
private __cuda* interface, which CUPTI never reports, left out of the
comparison; procs: processes matched between the two runs / all
processes with runtime calls on either side; pp_coverage: coverage with
min() taken per matched process and API, the unmatched ones uncovered),
then one line per process (pids of both runs, role, counts), then the
APIs that differ (most first): "less" where CUPTI counted more, "more"
where cutap did (calls before CUPTI started at the first cuInit, which the
wrappers of a shared libcudart record; or counted twice).

Matching processes. The two runs have their own pids, so processes are
matched by their place in the process tree: each side's processes with
runtime calls form a forest (parent: the nearest ancestor, by ppid, that
has runtime calls; a process without any, such as torchrun's launcher or
a forked DataLoader worker, is transparent and only counted, "idle").
Roots are matched with roots, then the children of each matched pair
with each other. Within such a group of siblings the start order is no
guide where they start together (torchrun's ranks race to their first
cuInit; the referee knows no rank), so the pairs are those that minimise
the summed per-API difference, ties broken by start order (referee: the
time the driver loaded it, or of the fork; cutap: the process's first
recorded call); groups of more than 7 are paired in start order. The
result depends only on the two inputs: deterministic. A process left
without a partner counts fully as uncovered (or as more).

With REFDIR2 (a second referee run, RTCOV_REPEAT=1 in
tests/gpu/runtime_coverage.sh) it also prints a "repeat" line: how much
two referee runs of the workload differ (summed over processes: sum over
APIs of |ref2 - ref|; per process: the same over matched pairs), against
how much cutap differs from the first referee run (less + more), and
whether cutap is within what the referee runs differ by, in total and per
API ("beyond" lists the APIs where it is not)."""
import collections
import itertools
import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import HEAD, read_cupti  # noqa: E402

MAX_FIT = 7      # sibling groups up to this size are paired by best fit


class Proc:
    def __init__(self, key, pid, ppid, start, counts, private=None, exe="", rank=None):
        self.key, self.pid, self.ppid, self.start = key, pid, ppid, start
        self.counts = counts                      # public runtime API -> calls
        self.private = private or collections.Counter()
        self.exe, self.rank = exe, rank
        self.total = sum(counts.values())
        self.role = None


def read_referee(d):
    """The referee's processes: {pid: Proc}. read_cupti gives no ppid:
    read from the same header."""
    procs, _, _ = read_cupti(d)
    out = {}
    for pid, (init, _last, _drv, rt, _dropped) in procs.items():
        ppid = 0
        try:
            with open(os.path.join(d, "cupti.%d.bin" % pid), "rb") as fh:
                head = fh.read(HEAD.size)
            if len(head) == HEAD.size:
                ppid = HEAD.unpack(head)[2]
        except OSError:
            pass
        out[pid] = Proc(pid, pid, ppid, init or 0, collections.Counter(rt))
    return out


def public_name(name):
    """nvcc's launch stubs call __cudaLaunchKernel(_ptsz), which CUPTI
    reports as cudaLaunchKernel(_ptsz); the other __cuda* functions
    (module and kernel registration, call configuration) are the runtime's
    private interface, which CUPTI never reports: None."""
    pub = name[2:] if name.startswith("__cudaLaunchKernel") else name
    return None if pub.startswith("__cuda") else pub


def read_cutap(db):
    """cutap's processes {processes.id: Proc} (a pid may appear twice:
    exec), and the objects of the runtime copies it saw."""
    con = sqlite3.connect(db)
    out = {}
    for pid_id, pid, ppid, start, exe, rank in con.execute(
            "SELECT id, pid, ppid, start_ns, exe, rank FROM processes"):
        out[pid_id] = Proc(pid_id, pid, ppid, start or 0, collections.Counter(), collections.Counter(),
                           os.path.basename(exe or ""), rank if rank is not None and rank >= 0 else None)
    for pid_id, name, n in con.execute(
            "SELECT t.process_id, c.name, count(*) FROM calls_named c JOIN threads t ON t.id = c.thread_id "
            "WHERE c.layer = 'runtime' GROUP BY t.process_id, c.name"):
        p = out[pid_id]
        pub = public_name(name)
        if pub is None:
            p.private[name] += n
        else:
            p.counts[pub] += n
    for p in out.values():
        p.total = sum(p.counts.values())
    objects = [r[0] for r in con.execute(
        "SELECT DISTINCT s.value FROM calls c JOIN strings s ON s.id = c.object_id")]
    return out, objects


def forest(procs):
    """(roots, children): the processes with runtime calls, each under its
    nearest ancestor with runtime calls; siblings in start order."""
    by_pid = collections.defaultdict(list)
    for p in procs.values():
        by_pid[p.pid].append(p)

    def parent(p):
        cands = [q for q in by_pid.get(p.ppid, []) if q is not p]
        if not cands:
            return None
        # an exec'd pid can have two entries: the one that started last before p
        before = [q for q in cands if q.start <= p.start]
        return max(before or cands, key=lambda q: (q.start, q.key))

    children = collections.defaultdict(list)
    roots = []
    for p in procs.values():
        if not p.total:
            continue
        q, seen = parent(p), {p.key}
        while q is not None and not q.total and q.key not in seen:
            seen.add(q.key)
            q = parent(q)
        if q is None or q.key in seen or not q.total:
            roots.append(p)
        else:
            children[q.key].append(p)
    order = lambda p: (p.start, p.pid, p.key)  # noqa: E731
    roots.sort(key=order)
    for k in children:
        children[k].sort(key=order)
    return roots, children


def distance(a, b):
    return sum(abs(a.counts[k] - b.counts[k]) for k in set(a.counts) | set(b.counts))


def pair_group(xs, ys):
    """Pairs of xs and ys (sorted by start): best fit, ties to start
    order; start order alone for large groups. Returns (pairs, method)."""
    if len(xs) <= 1 and len(ys) <= 1:
        return list(zip(xs, ys)), "only"
    if max(len(xs), len(ys)) > MAX_FIT:
        return list(zip(xs, ys)), "start"
    best, best_cost = None, None
    if len(xs) <= len(ys):
        for perm in itertools.permutations(range(len(ys)), len(xs)):
            cost = sum(distance(xs[i], ys[j]) for i, j in enumerate(perm))
            if best_cost is None or cost < best_cost:
                best, best_cost = [(xs[i], ys[j]) for i, j in enumerate(perm)], cost
    else:
        for perm in itertools.permutations(range(len(xs)), len(ys)):
            cost = sum(distance(xs[i], ys[j]) for j, i in enumerate(perm))
            if best_cost is None or cost < best_cost:
                best, best_cost = [(xs[i], ys[j]) for j, i in enumerate(perm)], cost
    best.sort(key=lambda t: (t[0].start, t[0].key))
    return best, "fit"


def role_name(b, prefix, i, nsib):
    """A role from the tree position and, where known, cutap's rank."""
    if b is not None and b.rank is not None:
        own = "rank%d" % b.rank
    elif not prefix:
        own = "main" if nsib == 1 else "root%d" % i
    else:
        own = "child%d" % i
    return prefix + "/" + own if prefix else own


def match(a_procs, b_procs):
    """Matches two runs' process forests: (pairs, unmatched a, unmatched b);
    pairs are (a, b, method), each Proc's role set."""
    ra, ca = forest(a_procs)
    rb, cb = forest(b_procs)
    pairs, ua, ub = [], [], []

    def subtree(p, kids, prefix, acc, i):
        p.role = role_name(None, prefix, i, 2) + "(unmatched)"
        acc.append(p)
        for j, c in enumerate(kids.get(p.key, [])):
            subtree(c, kids, p.role, acc, j)

    def walk(xs, ys, prefix):
        got, method = pair_group(xs, ys)
        n = max(len(xs), len(ys))
        for i, (x, y) in enumerate(got):
            x.role = y.role = role_name(y, prefix, i, n)
            pairs.append((x, y, method))
            walk(ca.get(x.key, []), cb.get(y.key, []), x.role)
        done_x = {id(x) for x, _ in got}
        done_y = {id(y) for _, y in got}
        for i, x in enumerate(x for x in xs if id(x) not in done_x):
            subtree(x, ca, prefix, ua, len(got) + i)
        for i, y in enumerate(y for y in ys if id(y) not in done_y):
            subtree(y, cb, prefix, ub, len(got) + i)

    walk(ra, rb, "")
    return pairs, ua, ub


def covered(ref, got):
    return sum(min(got[k], n) for k, n in ref.items())


def absdiff(x, y):
    return sum(abs(x[k] - y[k]) for k in set(x) | set(y))


def summed(procs):
    c = collections.Counter()
    for p in procs.values():
        c.update(p.counts)
    return c


def pp_absdiff(pairs, ua, ub):
    """Per-process difference: over matched pairs and APIs, |a - b|; an
    unmatched process counts with all its calls."""
    return (sum(absdiff(a.counts, b.counts) for a, b, _ in pairs)
            + sum(p.total for p in ua) + sum(p.total for p in ub))


def pct(n, d):
    return 100.0 * n / d if d else 100.0


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    wl, ref, db = sys.argv[1:4]
    ref2 = sys.argv[4] if len(sys.argv) == 5 else None
    rprocs = read_referee(ref)
    cprocs, objects = read_cutap(db)
    cupti, cutap = summed(rprocs), summed(cprocs)
    private = collections.Counter()
    for p in cprocs.values():
        private.update(p.private)
    total = sum(cupti.values())
    cov = covered(cupti, cutap)
    more = sum(max(0, cutap[a] - cupti[a]) for a in cutap)
    pairs, ua, ub = match(rprocs, cprocs)
    pp_cov = sum(covered(a.counts, b.counts) for a, b, _ in pairs)
    nproc = len(pairs) + len(ua) + len(ub)
    print("%s cupti=%d cutap=%d covered=%d coverage=%.3f%% more=%d private=%d objects=%d procs=%d/%d "
          "pp_coverage=%.3f%%" % (wl, total, sum(cutap.values()), cov, pct(cov, total), more,
                                  sum(private.values()), len(objects), len(pairs), nproc, pct(pp_cov, total)))
    for a, b, method in pairs:
        c = covered(a.counts, b.counts)
        m = sum(max(0, b.counts[k] - a.counts[k]) for k in b.counts)
        print("  proc cupti_pid=%d cutap_pid=%d role=%s exe=%s cupti=%d cutap=%d covered=%d coverage=%.3f%% "
              "more=%d private=%d match=%s" % (a.pid, b.pid, a.role, b.exe or "?", a.total, b.total, c,
                                               pct(c, a.total), m, sum(b.private.values()), method))
    for p in ua:
        print("  proc cupti_pid=%d cutap_pid=- role=%s cupti=%d cutap=0 covered=0 coverage=0.000%% more=0"
              % (p.pid, p.role, p.total))
    for p in ub:
        print("  proc cupti_pid=- cutap_pid=%d role=%s exe=%s cupti=0 cutap=%d covered=0 coverage=- "
              "more=%d private=%d" % (p.pid, p.role, p.exe or "?", p.total, p.total, sum(p.private.values())))
    idle_r = [p for p in rprocs.values() if not p.total]
    idle_c = [p for p in cprocs.values() if not p.total]
    if idle_r or idle_c:
        print("  idle processes (no runtime calls): referee %d, cutap %d (their private calls %d)"
              % (len(idle_r), len(idle_c), sum(sum(p.private.values()) for p in idle_c)))
    diffs = sorted(((cupti[a] - cutap[a], a) for a in set(cupti) | set(cutap) if cupti[a] != cutap[a]),
                   key=lambda t: (-abs(t[0]), t[1]))
    for d, a in diffs[:8]:
        print("  %s %s: CUPTI %d, cutap %d" % ("less" if d > 0 else "more", a, cupti[a], cutap[a]))
    if len(pairs) > 1:   # where the differences are, process by process
        for a, b, _ in pairs:
            pd = sorted(((a.counts[k] - b.counts[k], k) for k in set(a.counts) | set(b.counts)
                         if a.counts[k] != b.counts[k]), key=lambda t: (-abs(t[0]), t[1]))
            for d, k in pd[:4]:
                print("  %s %s %s: CUPTI %d, cutap %d" % (a.role, "less" if d > 0 else "more", k,
                                                         a.counts[k], b.counts[k]))
    for o in objects[:6]:
        print("  object %s" % os.path.basename(o))
    if ref2:
        repeat(ref2, rprocs, cprocs, cupti, cutap, pairs, ua, ub)


def repeat(ref2, rprocs, cprocs, cupti, cutap, pairs, ua, ub):
    """Referee against referee: the nondeterminism bound cutap is held to."""
    r2procs = read_referee(ref2)
    cupti2 = summed(r2procs)
    rpairs, rua, rub = match(rprocs, r2procs)
    ref_diff = absdiff(cupti, cupti2)
    ref_pp = pp_absdiff(rpairs, rua, rub)
    cut_diff = absdiff(cupti, cutap)
    cut_pp = pp_absdiff(pairs, ua, ub)
    beyond = sorted((a for a in set(cupti) | set(cupti2) | set(cutap)
                     if abs(cutap[a] - cupti[a]) > abs(cupti2[a] - cupti[a])),
                    key=lambda a: (-abs(cutap[a] - cupti[a]), a))
    within = "within" if cut_diff <= ref_diff and cut_pp <= ref_pp else "BEYOND"
    print("  repeat referee2 cupti=%d procs=%d/%d ref_diff=%d ref_pp_diff=%d cutap_diff=%d cutap_pp_diff=%d "
          "%s apis_beyond=%d" % (sum(cupti2.values()), len(rpairs), len(rpairs) + len(rua) + len(rub),
                                 ref_diff, ref_pp, cut_diff, cut_pp, within, len(beyond)))
    rd = sorted((a for a in set(cupti) | set(cupti2) if cupti[a] != cupti2[a]),
                key=lambda a: (-abs(cupti[a] - cupti2[a]), a))
    for a in rd[:5]:
        print("  repeat varies %s: referee %d, referee2 %d" % (a, cupti[a], cupti2[a]))
    for a in beyond[:8]:
        print("  repeat beyond %s: referee %d, referee2 %d, cutap %d" % (a, cupti[a], cupti2[a], cutap[a]))


if __name__ == "__main__":
    main()
