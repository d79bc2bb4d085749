#!/usr/bin/env python3
"""Issue #32's GPU proof: the environment lookups cutap recorded against an
independent count of them (tests/gpu/getenv_count.c).

    env_check.py --cutap build/cutap TRACE_DIR COUNT_DIR

TRACE_DIR: a `cutap trace -o` directory of a run made with
LD_PRELOAD=<libgetenv_count.so>:<libcutap.so> GETENV_COUNT_DIR=COUNT_DIR
(the counter first: it sees every lookup and passes the caller's return
address on to cutap's getenv). COUNT_DIR: the counter's getenv.PID.tsv files
(object, name, secure, count; a pid's blocks are summed).

The lookups cutap recorded come from `cutap export --format jsonl` (the
"env" lines: pid, name, secure, object). For every process cutap traced
(a pid of the export), and every process whose counter file has a lookup
by an NVIDIA library, the counts per (object basename, name, secure) by
NVIDIA's libraries (src/front/env.c's rule, copied below) must be equal;
cutap must have recorded no lookup by another object. Processes the counter
saw NVIDIA lookups in but cutap did not trace (cutap writes a trace only
for a process that made a CUDA call) are listed, not compared, unless
--strict-untraced. Early lookups cutap said it did not keep (the front's
store of 64 before CUDA started; the warning in TRACE_DIR/.cutap-procs,
printed by `cutap trace` at its end, not by `report --env`) are still
mismatches; where a process's shortfall equals that loss, it says so.

Prints per process the NVIDIA lookups per the counter and per cutap, the
equal (object, name, secure) keys of all, up to 30 mismatches; the top 10
other callers the counter saw (for information); then `env_check: PASS`
(exit 0) or `env_check: FAIL (reasons)` (exit 1).
"""
import argparse
import collections
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def stems():
    """The file-name stems of NVIDIA's libraries, read from the list in
    src/front/env.c (cutap_front_nvidia_lib), so that both sides classify
    callers alike: a stem followed by the end of the name, '.', '-' or
    '_', or, for a stem ending in '-', anything."""
    src = open(os.path.join(HERE, "..", "..", "src", "front", "env.c")).read()
    m = re.search(r"stem\[\]\s*=\s*\{(.*?)\};", src, re.S)
    if not m:
        sys.exit("env_check: no stem list in src/front/env.c")
    return re.findall(r'"([^"]+)"', m.group(1))


STEMS = stems()


def nvidia(path):
    b = path.rsplit("/", 1)[-1]
    for s in STEMS:
        if b.startswith(s) and (s.endswith("-") or len(b) == len(s) or b[len(s)] in ".-_"):
            return True
    return False


def base(path):
    return path.rsplit("/", 1)[-1] if path else path


def unescape(s):
    return re.sub(r"\\(.)", lambda m: {"t": "\t", "n": "\n", "r": "\r"}.get(m.group(1), m.group(1)), s)


def read_counter(count_dir):
    """{pid: Counter{(object, name, secure): n}}, {pid: overflow}, {pid: skipped}, files read"""
    counts = collections.defaultdict(collections.Counter)
    overflow, skipped = collections.Counter(), collections.Counter()
    files = sorted(glob.glob(os.path.join(count_dir, "getenv.*.tsv")))
    for path in files:
        m = re.match(r"getenv\.(\d+)\.tsv$", os.path.basename(path))
        if not m:
            continue
        pid = int(m.group(1))
        counts[pid]   # (a process with no lookup at all still counts as seen)
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            for n, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if not line:
                    continue
                fields = line.split("\t")
                if fields[0] in ("#overflow", "#skipped") and len(fields) == 2:
                    (overflow if fields[0] == "#overflow" else skipped)[pid] += int(fields[1])
                    continue
                if len(fields) != 4 or fields[2] not in ("0", "1"):
                    sys.exit("env_check: %s:%d: not object<TAB>name<TAB>secure<TAB>count: %r" % (path, n, line))
                counts[pid][(unescape(fields[0]), as_cutap(unescape(fields[1])), fields[2] == "1")] += int(fields[3])
    return counts, overflow, skipped, files


def as_cutap(name):
    """A name read with surrogateescape as cutap's JSON export writes it: UTF-8
    as is, every other byte alone as the code point of that byte (U+0080 to
    U+00FF; cli/util.c json_str). Seen on the H100: libcuda looks up names
    of raw bytes, not UTF-8."""
    return re.sub("[\udc80-\udcff]", lambda m: chr(ord(m.group(0)) - 0xdc00), name)


def read_cutap(cutap, trace_dir):
    """{pid: Counter{(object basename, name, secure): n}}, traced pids, [non-NVIDIA records]"""
    with tempfile.TemporaryDirectory(prefix="env_check.") as tmp:
        out = os.path.join(tmp, "tmp.jsonl")
        r = subprocess.run([cutap, "export", "--format", "jsonl", "-o", out, trace_dir],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        if r.returncode:
            sys.stderr.write(r.stderr)
            return None, None, None, "cutap export failed (status %d)" % r.returncode
        env = collections.defaultdict(collections.Counter)
        pids, other = set(), []
        with open(out, encoding="utf-8") as f:
            for line in f:
                x = json.loads(line)
                if "pid" in x and x["pid"] is not None:
                    pids.add(int(x["pid"]))
                if x.get("type") != "env":
                    continue
                obj = x.get("object") or "(unknown)"
                if not nvidia(obj):
                    other.append((x["pid"], obj, x["name"]))
                env[int(x["pid"])][(base(obj), x["name"], bool(x["secure"]))] += 1
    return env, pids, other, None


def read_lost(trace_dir):
    """{pid: early lookups cutap said it did not keep}, from the registry's warnings"""
    lost = collections.Counter()
    try:
        data = open(os.path.join(trace_dir, ".cutap-procs"), "rb").read()
    except OSError:
        return lost
    for m in re.finditer(rb"cutap\[(\d+)\]: warning: (\d+) lookups of the environment by NVIDIA libraries "
                         rb"before CUDA started were not kept", data):
        lost[int(m.group(1))] += int(m.group(2))
    return lost


def show_key(k):
    obj, name, secure = k
    return "%s %s%s" % (obj, json.dumps(name), " (secure_getenv)" if secure else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cutap", required=True, help="the cutap command (build/cutap)")
    ap.add_argument("--strict-untraced", action="store_true",
                    help="fail where the counter saw NVIDIA lookups in a process cutap did not trace")
    ap.add_argument("trace_dir")
    ap.add_argument("count_dir")
    a = ap.parse_args()

    reasons = []
    counter, overflow, skipped, files = read_counter(a.count_dir)
    if not files:
        reasons.append("no getenv.PID.tsv in %s (the counter not preloaded, or GETENV_COUNT_DIR not set)" % a.count_dir)
    env, traced, other, err = read_cutap(a.cutap, a.trace_dir)
    if err:
        print("env_check: FAIL (%s)" % err)
        return 1
    lost = read_lost(a.trace_dir)

    nv = {pid: collections.Counter({k: n for k, n in c.items() if nvidia(k[0]) and n})
          for pid, c in counter.items()}
    others = collections.Counter()
    for c in counter.values():
        for k, n in c.items():
            if not nvidia(k[0]):
                others[k[0]] += n

    compared = sorted(set(env) | traced)
    untraced = sorted(p for p, c in nv.items() if c and p not in traced)
    total_counter = total_cutap = total_keys = total_equal = 0
    bad_pids = []
    for pid in compared:
        want, got = nv.get(pid, collections.Counter()), env.get(pid, collections.Counter())
        if not want and not got and pid not in counter:
            print("pid %d: traced, no NVIDIA lookup per cutap; no counter file" % pid)
            continue
        keys = sorted(set(want) | set(got), key=lambda k: (k[0], k[1], k[2]))
        equal = sum(1 for k in keys if want[k] == got[k])
        nw, ng = sum(want.values()), sum(got.values())
        total_counter += nw
        total_cutap += ng
        total_keys += len(keys)
        total_equal += equal
        note = "" if pid in counter else " (no counter file for this pid)"
        print("pid %d: NVIDIA lookups per the counter %d, per cutap %d; equal (object, name, secure) %d/%d%s"
              % (pid, nw, ng, equal, len(keys), note))
        if overflow[pid] or skipped[pid]:
            print("  counter: %d not counted (table full), %d skipped (a lookup inside a lookup)"
                  % (overflow[pid], skipped[pid]))
        mism = [k for k in keys if want[k] != got[k]]
        if not mism:
            continue
        bad_pids.append(pid)
        for k in mism[:30]:
            print("  mismatch: %-60s counter %d, cutap %d" % (show_key(k), want[k], got[k]))
        if len(mism) > 30:
            print("  ... %d more mismatches" % (len(mism) - 30))
        short = sum(want[k] - got[k] for k in mism)
        if lost[pid]:
            print("  cutap said %d early lookups of this process were not kept (its store of 64 before CUDA started); "
                  "the counter's excess over cutap is %d%s" % (lost[pid], short,
                                                             ": the same, the loss explains it" if short == lost[pid]
                                                             else ""))
        by_name_w, by_name_g = collections.Counter(), collections.Counter()
        for k in mism:
            by_name_w[k[1:]] += want[k]
            by_name_g[k[1:]] += got[k]
        if by_name_w == by_name_g:
            print("  (by name and secure alone they are equal: the two name the calling objects differently)")
    for pid in set(lost) - set(compared):
        print("pid %d: cutap said %d early lookups were not kept" % (pid, lost[pid]))

    if untraced:
        print("processes with NVIDIA lookups per the counter that cutap did not trace (no CUDA call recorded)%s:"
              % ("" if a.strict_untraced else ", not compared"))
        for pid in untraced[:30]:
            print("  pid %d: %d lookups: %s" % (pid, sum(nv[pid].values()),
                                                ", ".join(show_key(k) for k in sorted(nv[pid])[:5])
                                                + (", ..." if len(nv[pid]) > 5 else "")))
        if len(untraced) > 30:
            print("  ... %d more" % (len(untraced) - 30))
    print("top callers that are not NVIDIA libraries, per the counter (not recorded by cutap, by design):")
    for obj, n in others.most_common(10):
        print("  %-50s %d" % (obj, n))
    if not others:
        print("  (none)")
    print("total: NVIDIA lookups per the counter %d, per cutap %d, in %d traced processes; equal keys %d/%d"
          % (total_counter, total_cutap, len(compared), total_equal, total_keys))

    if bad_pids:
        reasons.append("counts differ in %d process%s (pid %s)" % (len(bad_pids), "" if len(bad_pids) == 1 else "es",
                                                                   ", ".join(map(str, bad_pids[:10]))))
    if other:
        objs = collections.Counter(o for _, o, _ in other)
        print("cutap recorded lookups by objects that are not NVIDIA libraries:")
        for o, n in objs.most_common(10):
            print("  %-60s %d" % (o, n))
        reasons.append("cutap recorded %d lookups by %d non-NVIDIA objects (%s)"
                       % (len(other), len(objs), ", ".join(base(o) for o in list(objs)[:3])))
    if any(overflow[p] for p in counter):
        reasons.append("the counter's table was full (%d lookups not counted)" % sum(overflow.values()))
    if untraced and a.strict_untraced:
        reasons.append("%d processes with NVIDIA lookups not traced" % len(untraced))
    if files and not total_counter and not total_cutap:
        reasons.append("nothing compared: no lookup by an NVIDIA library, per either")
    if reasons:
        print("env_check: FAIL (%s)" % "; ".join(reasons))
        return 1
    print("env_check: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
