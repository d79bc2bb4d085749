#!/usr/bin/env python3
"""cutap's ioctl layer against an independent count (issue #15, GPU proof;
run by tests/gpu/ioctl_layer.sh).

  ioctl_layer.py compare WORKLOAD --counter CNT.jsonl (--sqlite DB | --jsonl J)
                 [--jsonl J] [--bare-counter CNT2.jsonl] [--output-same yes|no]
                 [--counter-output-same yes|no] [--summary OUT.json]
      The requests libioctl_count.so (tests/gpu/ioctl_count.c) counted in
      the traced run, process by process (same pid: the same process, the
      counter was loaded after libcutap.so), against the ioctl-layer
      records of cutap's export of that run, per (device, request key):
      key = the escape number of an nvidiactl/nvidiaN 'F' request (the
      inner one of IOCTL_XFER_CMD), the raw request (low 32 bits) of
      anything else; the wrapped ones compared separately; RM_CONTROL
      commands and RM_ALLOC classes of the requests that returned 0 too.
      With both --sqlite and --jsonl, the two exports must agree.
      Prints one line
        WORKLOAD requests=N (counter) recorded=N equal=yes/no procs=K nested=P% output_same=yes/no
      then the parents, the bare counter run, the side checks and the
      differences. Exit status 0 whatever the result (the shell script
      decides).
  ioctl_layer.py summary SUM.json...
      Across workloads: the ten most frequent RM controls and RM_ALLOC
      classes with the names cutap printed (HEX where it printed a number),
      the escapes and UVM commands cutap left unnamed (NV_ESC_0x.., UVM_0x..,
      "ioctl"), and the equal/output_same tally.
  ioctl_layer.py cost --bare V.. --trace V.. --noioctl V.. [--records ...]
      steps/s of bench/gpu/torch_steps.py: medians as ms per step and % vs bare.
  ioctl_layer.py selftest
      The logic on synthetic inputs (no GPU, no cutap).

Records: cutap's ioctl layer names a request by escape (RM_CONTROL, ...;
NV_ESC_0x%02x when unknown) or UVM command (UVM_INITIALIZE, ...; UVM_0x%x),
"ioctl" for another request on a device file; open, close, mmap and munmap
are not requests. Argument words: fd, dev (kind << 16 | minor, bit 31: came
in IOCTL_XFER_CMD), then per escape (src/resolve/ioctl_decode.c); the numbers of
the names come from src/common/generated/nv_ioctl_tables.c.
"""
import argparse
import collections
import json
import os
import re
import sqlite3
import statistics
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TABLES_C = os.path.join(ROOT, "src", "common", "generated", "nv_ioctl_tables.c")
NOT_REQUESTS = {"open", "close", "mmap", "munmap"}
XFER_BIT = 0x80000000
KIND = {1: "ctl", 3: "uvm", 4: "uvmtools", 5: "modeset", 7: "other"}
HEXLIKE = re.compile(r"^(0x[0-9a-fA-F]+|[0-9]+)$")


# --- tables ------------------------------------------------------------------

class Tables:
    """Numbers and names of src/common/generated/nv_ioctl_tables.c (first name of
    a number: the preferred one, the one cutap prints)."""

    text_override = None   # the selftest's

    def __init__(self, path=TABLES_C, text=None):
        if text is None:
            text = Tables.text_override
        if text is None:
            text = open(path).read() if os.path.exists(path) else ""
        self.esc_nr, self.esc_name = {}, {}
        self.uvm_cmd, self.uvm_name = {}, {}
        self.ctrl_name, self.class_name = {}, {}
        for nr, name in re.findall(r'\{0x([0-9a-fA-F]+), "(\w+)"', self._section(text, "escapes")):
            self.esc_nr.setdefault(name, int(nr, 16))
            self.esc_name.setdefault(int(nr, 16), name)
        for cmd, name in re.findall(r'\{0x([0-9a-fA-F]+)u, \d+, \d+, "(\w+)"', self._section(text, "uvms")):
            self.uvm_cmd.setdefault(name, int(cmd, 16))
            self.uvm_name.setdefault(int(cmd, 16), name)
        for cmd, name in re.findall(r'\{0x([0-9a-fA-F]+)u, \d+, "(\w+)"', self._section(text, "ctrls")):
            self.ctrl_name.setdefault(int(cmd, 16), name)
        for v, name in re.findall(r'\{0x([0-9a-fA-F]+)u, "(\w+)"\}', self._section(text, "classes")):
            self.class_name.setdefault(int(v, 16), name)

    @staticmethod
    def _section(text, what):
        m = re.search(r"cutap_nv_%s\[\] = \{(.*?)\n\};" % what, text, re.S)
        return m.group(1) if m else ""


def dev_label(dev):
    """The counter's device label of a dev word (xfer bit ignored)."""
    kind, minor = (dev >> 16) & 0xFF, dev & 0xFFFF
    if kind == 2:
        return "gpu%d" % minor
    if kind == 6:
        return "cap%d" % minor
    return KIND.get(kind, "kind%d_%d" % (kind, minor))


def key_str(esc, value):
    return "0x%02x" % value if esc else "r0x%x" % (value & 0xFFFFFFFF)


def key_name(key, tables):
    """'ctl:0x2a' -> 'ctl:RM_CONTROL', 'uvm:r0x30000001' -> 'uvm:UVM_INITIALIZE'."""
    dev, _, k = key.rpartition(":")
    if k.startswith("r0x"):
        v = int(k[3:], 16)
        if dev in ("uvm", "uvmtools") and v in tables.uvm_name:
            return "%s:%s" % (dev, tables.uvm_name[v])
        return key
    v = int(k, 16)
    return "%s:%s" % (dev, tables.esc_name.get(v, "NV_ESC_0x%02x" % v))


# --- cutap's records -----------------------------------------------------------

ARG_NAME = re.compile(r"(?:^|, )([A-Za-z_][\w+]*)=")
FIXED = {"fd": 0, "dev": 1, "request": 2, "cmd": 4, "hClass": 5}


def words_by_name(args, decoded):
    """The argument words by name: the names of the decoded text when it
    has one per word, else the layout of src/resolve/ioctl_decode.c."""
    names = ARG_NAME.findall(decoded or "")
    if len(names) == len(args):
        return dict(zip(names, args))
    return {k: args[i] for k, i in FIXED.items() if i < len(args)}


def printed(decoded, name):
    m = re.search(r"(?:^|, )%s=([^,\s]+)" % re.escape(name), decoded or "")
    return m.group(1) if m else None


class Side:
    """Per pid: request counts by key, wrapped ones, controls and classes of
    requests that returned 0."""

    def __init__(self):
        self.counts = collections.defaultdict(collections.Counter)
        self.xfer = collections.defaultdict(collections.Counter)
        self.controls = collections.defaultdict(collections.Counter)
        self.classes = collections.defaultdict(collections.Counter)
        self.exe = {}

    def total(self):
        return sum(sum(c.values()) for c in self.counts.values())

    def pids(self):
        return {p for p, c in self.counts.items() if sum(c.values())}


class Cutap(Side):
    def __init__(self, tables):
        super().__init__()
        self.t = tables
        self.parents = collections.Counter()       # "layer:name" of the parents of requests
        self.nested = self.unparented = self.in_range = self.requests = 0
        self.unmapped = collections.Counter()      # ioctl-layer names not understood here
        self.unnamed = collections.Counter()       # NV_ESC_0x.., UVM_0x.., ioctl
        self.ctrl_printed, self.class_printed = {}, {}
        self.other_calls = 0
        self.losses = []   # (pid, exe, complete, stopped, stop_reason, lost_calls) of the SQLite export

    def add(self, pid, name, args, result, decoded, parent_layer, parent_name, parent_range=False):
        if name in NOT_REQUESTS:
            return
        t = self.t
        w = words_by_name(args, decoded)
        dev = w.get("dev", args[1] if len(args) > 1 else 0)
        label = dev_label(dev)
        m = re.match(r"^NV_ESC_0x([0-9a-fA-F]+)$", name)
        u = re.match(r"^UVM_0x([0-9a-fA-F]+)$", name)
        if name in t.esc_nr or m:
            key = key_str(True, t.esc_nr[name] if name in t.esc_nr else int(m.group(1), 16))
        elif name in t.uvm_cmd or u:
            key = key_str(False, t.uvm_cmd[name] if name in t.uvm_cmd else int(u.group(1), 16))
        elif name == "ioctl":
            key = key_str(False, w.get("request", args[2] if len(args) > 2 else 0))
        else:
            self.unmapped[name] += 1
            key = "?" + name
        if m or u or name == "ioctl":
            self.unnamed[name] += 1
        k = "%s:%s" % (label, key)
        self.counts[pid][k] += 1
        if dev & XFER_BIT:
            self.xfer[pid][k] += 1
        self.requests += 1
        if parent_layer is None:
            self.unparented += 1
        elif parent_range:
            self.in_range += 1   # an NVTX range, not an API call
        elif parent_layer != "ioctl":
            self.nested += 1
            self.parents["%s (%s)" % (parent_name, parent_layer)] += 1
        ok = result is not None and result >= 0
        if ok and name == "RM_CONTROL" and "cmd" in w:
            self.controls[pid][w["cmd"] & 0xFFFFFFFF] += 1
            self.ctrl_printed.setdefault(w["cmd"] & 0xFFFFFFFF, printed(decoded, "cmd"))
        if ok and name == "RM_ALLOC" and "hClass" in w:
            self.classes[pid][w["hClass"] & 0xFFFFFFFF] += 1
            self.class_printed.setdefault(w["hClass"] & 0xFFFFFFFF, printed(decoded, "hClass"))


def signed(v):
    if v is None:
        return None
    v = int(v)
    return v - (1 << 64) if v >= 1 << 63 else v


def load_sqlite(path, tables):
    c = Cutap(tables)
    db = sqlite3.connect(path)
    q = ("SELECT p.pid, s.value, c.args, c.result, c.decoded, pc.layer, ps.value, p.exe,"
         " pc.layer = 'nvtx' AND pc.status IS NULL AND pc.result IS NULL"   # an NVTX range (export.c)
         " FROM calls c JOIN strings s ON s.id = c.name_id JOIN threads t ON t.id = c.thread_id"
         " JOIN processes p ON p.id = t.process_id"
         " LEFT JOIN calls pc ON pc.id = c.parent_id LEFT JOIN strings ps ON ps.id = pc.name_id"
         " WHERE c.layer = 'ioctl'")
    for pid, name, args, result, decoded, play, pname, exe, prange in db.execute(q):
        a = [int(x, 16) for x in (args or "").split()]
        c.add(pid, name, a, signed(result), decoded, play, pname, bool(prange))
        c.exe.setdefault(pid, exe)
    c.other_calls = db.execute("SELECT COUNT(*) FROM calls WHERE layer != 'ioctl'").fetchone()[0]
    try:
        c.losses = db.execute("SELECT pid, exe, complete, stopped, stop_reason, lost_calls FROM processes"
                              " WHERE stopped != 0 OR lost_calls != 0 OR complete = 0").fetchall()
    except sqlite3.Error:
        pass
    db.close()
    return c


def load_jsonl(path, tables):
    """A JSON-lines export, whole or filtered to the ioctl layer (then
    parents that were left out are not known: nesting is not counted)."""
    c = Cutap(tables)
    names = {}           # id -> (layer, name) of the other calls and ranges
    pending = []
    for line in open(path, errors="replace"):
        line = line.strip()
        if not line:
            continue
        r = json.loads(line)
        if r.get("type") not in ("call", "range", "mark"):
            continue
        if r.get("layer") != "ioctl" or r.get("type") != "call":
            names[r["id"]] = (r.get("layer"), r.get("name"), r.get("type") != "call")
            c.other_calls += r.get("type") == "call"
            continue
        pending.append(r)
    for r in pending:
        p = r.get("parent")
        play, pname, prange = names.get(p, (None, None, False)) if p else (None, None, False)
        if p and p not in names:
            play = "ioctl"   # a parent of the same layer, or not exported
        c.add(r["pid"], r["name"], [int(x, 16) for x in r.get("args", [])], signed(r.get("result")),
              r.get("decoded"), play, pname, prange)
    return c


# --- the counter's lines ---------------------------------------------------------

def load_counter(path):
    s = Side()
    s.late = collections.Counter()
    s.unread = s.dropped = s.lines = 0
    s.all_pids = set()
    if not path or not os.path.exists(path):
        return s
    for line in open(path, errors="replace"):
        line = line.strip()
        if not line:
            continue
        try:
            r = json.loads(line)
        except ValueError:
            s.bad = getattr(s, "bad", 0) + 1
            continue
        pid = r["pid"]
        s.lines += 1
        s.all_pids.add(pid)
        s.exe[pid] = r.get("exe", "?")
        s.counts[pid].update(r.get("counts", {}))
        s.xfer[pid].update(r.get("xfer", {}))
        s.controls[pid].update({int(k, 16): v for k, v in r.get("controls", {}).items()})
        s.classes[pid].update({int(k, 16): v for k, v in r.get("classes", {}).items()})
        if r.get("after_exit"):
            s.late[pid] += sum(r.get("counts", {}).values())
        s.unread += r.get("unread", 0)
        s.dropped += r.get("dropped", 0)
    return s


# --- compare ---------------------------------------------------------------------

def diff(a, b, pids):
    """[(pid, key, a, b)] where the per-pid counters differ."""
    out = []
    for pid in sorted(pids):
        ca, cb = a.get(pid, collections.Counter()), b.get(pid, collections.Counter())
        for k in sorted(set(ca) | set(cb), key=str):
            if ca.get(k, 0) != cb.get(k, 0):
                out.append((pid, k, ca.get(k, 0), cb.get(k, 0)))
    return out


def per_key_total(side):
    t = collections.Counter()
    for c in side.counts.values():
        t.update(c)
    return t


def compare(args):
    tables = Tables()
    cnt = load_counter(args.counter)
    primary = load_sqlite(args.sqlite, tables) if args.sqlite else load_jsonl(args.jsonl, tables)
    second = load_jsonl(args.jsonl, tables) if args.sqlite and args.jsonl else None
    pids = cnt.pids() | primary.pids()
    d_counts = diff(cnt.counts, primary.counts, pids)
    d_xfer = diff(cnt.xfer, primary.xfer, pids)
    d_ctrl = diff(cnt.controls, primary.controls, pids)
    d_class = diff(cnt.classes, primary.classes, pids)
    equal = not d_counts and not d_xfer and cnt.lines > 0
    nested = 100.0 * primary.nested / primary.requests if primary.requests else 0.0
    print("%s requests=%d (counter) recorded=%d equal=%s procs=%d nested=%.1f%% output_same=%s" % (
        args.workload, cnt.total(), primary.total(), "yes" if equal else "no", len(pids), nested,
        args.output_same))
    top = primary.parents.most_common(3)
    print("  parents (of %d requests): %s; outside any API call: %d (%.1f%%)%s" % (
        primary.requests,
        ", ".join("%s %.1f%%" % (k, 100.0 * v / primary.requests) for k, v in top) or "none",
        primary.unparented + primary.in_range,
        100.0 * (primary.unparented + primary.in_range) / primary.requests if primary.requests else 0.0,
        ", of which %d in an NVTX range" % primary.in_range if primary.in_range else ""))
    if args.bare_counter:
        bare = load_counter(args.bare_counter)
        bt, tt = bare.total(), cnt.total()
        print("  counter alone (no cutap): requests=%d (%+.1f%% vs the traced run's) procs=%d output_same=%s" % (
            bt, 100.0 * (bt - tt) / tt if tt else 0.0, len(bare.pids()), args.counter_output_same))
        kb, kt = per_key_total(bare), per_key_total(cnt)
        far = [(k, kb.get(k, 0), kt.get(k, 0)) for k in set(kb) | set(kt)
               if abs(kb.get(k, 0) - kt.get(k, 0)) > max(10, 0.5 * max(kb.get(k, 0), kt.get(k, 0)))]
        if far:
            print("  keys off by more than half (counter alone / traced): " + ", ".join(
                "%s %d/%d" % (key_name(k, tables), a, b) for k, a, b in sorted(far)[:8]))
    xf = sum(sum(c.values()) for c in cnt.xfer.values())
    late = sum(cnt.late.values())
    print("  xfer-wrapped=%d equal=%s; controls equal=%s (%d); classes equal=%s (%d); after exit hooks=%d;"
          " unread xfer=%d dropped=%d; counter lines=%d" % (
              xf, "yes" if not d_xfer else "no", "yes" if not d_ctrl else "no",
              sum(sum(c.values()) for c in cnt.controls.values()), "yes" if not d_class else "no",
              sum(sum(c.values()) for c in cnt.classes.values()), late, cnt.unread, cnt.dropped, cnt.lines))
    if second is not None:
        agree = (second.counts == primary.counts and second.xfer == primary.xfer
                 and second.controls == primary.controls and second.classes == primary.classes)
        print("  exports: sqlite and jsonl %s (%d / %d requests)" % (
            "agree" if agree else "DIFFER", primary.total(), second.total()))
    bad_pids = {x[0] for x in d_counts + d_xfer + d_ctrl + d_class}
    for pid, exe, complete, stopped, reason, lost in primary.losses:
        what = (["recording stopped (%s)" % reason] if stopped else []) + (["%d calls lost" % lost] if lost else [])
        if not complete and pid in bad_pids:
            what.append("its trace was not closed (no exit handlers: _exit, a signal)")
        if what:
            print("  cutap's trace of pid %d (%s): %s" % (pid, os.path.basename(exe or "?"), "; ".join(what)))
    if primary.unmapped:
        print("  ioctl-layer names not understood here: %s" % dict(primary.unmapped))
    if cnt.lines == 0:
        print("  no counter output (%s): was libioctl_count.so loaded?" % args.counter)
    shown = 0
    for what, dd, fmt in (("requests", d_counts, lambda k: key_name(k, tables)),
                          ("xfer-wrapped", d_xfer, lambda k: key_name(k, tables)),
                          ("RM_CONTROL cmd", d_ctrl, lambda k: "0x%08x" % k),
                          ("RM_ALLOC hClass", d_class, lambda k: "0x%x" % k)):
        for pid, k, a, b in dd:
            if shown < 25:
                print("  differs: pid %d (%s) %s %s: counter %d cutap %d" % (
                    pid, os.path.basename(cnt.exe.get(pid) or primary.exe.get(pid) or "?"), what, fmt(k), a, b))
            shown += 1
    if shown > 25:
        print("  ... %d differences in all" % shown)
    if args.summary:
        ctl = collections.Counter()
        for c in primary.controls.values():
            ctl.update(c)
        cls = collections.Counter()
        for c in primary.classes.values():
            cls.update(c)
        json.dump({
            "workload": args.workload, "equal": equal, "output_same": args.output_same,
            "requests_counter": cnt.total(), "requests_cutap": primary.total(), "nested_pct": nested,
            "controls": {"0x%08x" % k: [v, primary.ctrl_printed.get(k)] for k, v in ctl.items()},
            "classes": {"0x%x" % k: [v, primary.class_printed.get(k)] for k, v in cls.items()},
            "unnamed": dict(primary.unnamed),
            "unnamed_keys": {key_name(k, tables): v for k, v in per_key_total(primary).items()
                             if re.search(r":(r0x|NV_ESC_0x|UVM_0x)", key_name(k, tables))},
        }, open(args.summary, "w"))
    return 0


# --- summary ---------------------------------------------------------------------

def is_hex(name):
    return name is None or bool(HEXLIKE.match(name))


def summary(args):
    tables = Tables()
    runs = []
    for p in args.files:
        try:
            runs.append(json.load(open(p)))
        except (OSError, ValueError) as e:
            print("summary: %s: %s" % (p, e))
    ctl, cls = collections.Counter(), collections.Counter()
    ctl_name, cls_name = {}, {}
    ctl_in, cls_in = collections.defaultdict(set), collections.defaultdict(set)
    unnamed = collections.defaultdict(collections.Counter)
    for r in runs:
        for k, (n, name) in r.get("controls", {}).items():
            ctl[k] += n
            ctl_in[k].add(r["workload"])
            if name and not is_hex(name):
                ctl_name[k] = name
            else:
                ctl_name.setdefault(k, name)
        for k, (n, name) in r.get("classes", {}).items():
            cls[k] += n
            cls_in[k].add(r["workload"])
            if name and not is_hex(name):
                cls_name[k] = name
            else:
                cls_name.setdefault(k, name)
        for k, n in r.get("unnamed_keys", {}).items():
            unnamed[k][r["workload"]] += n
    nw = len(runs)
    print("== the ten most frequent RM controls (RM_CONTROL requests that returned 0, all %d workloads)" % nw)
    hex_top = 0
    for k, n in ctl.most_common(10):
        name = ctl_name.get(k)
        flag = "HEX" if is_hex(name) else ""
        hex_top += flag == "HEX"
        tn = tables.ctrl_name.get(int(k, 16))
        note = "" if not flag else (" (the tables know it: %s)" % tn if tn else " (not in the 580 tables)")
        print("  %9d  %s  %-52s %3s  in %d/%d workloads%s" % (n, k, name, flag, len(ctl_in[k]), nw, note))
    print("== the ten most frequent RM_ALLOC classes")
    hex_cls = 0
    for k, n in cls.most_common(10):
        name = cls_name.get(k)
        flag = "HEX" if is_hex(name) else ""
        hex_cls += flag == "HEX"
        tn = tables.class_name.get(int(k, 16))
        note = "" if not flag else (" (the tables know it: %s)" % tn if tn else " (not in the 580 tables)")
        print("  %9d  %-10s %-40s %3s  in %d/%d workloads%s" % (n, k, name, flag, len(cls_in[k]), nw, note))
    all_hex_ctl = [k for k in ctl if is_hex(ctl_name.get(k))]
    all_hex_cls = [k for k in cls if is_hex(cls_name.get(k))]
    print("controls: %d distinct, %d left in hex (%d requests)%s" % (
        len(ctl), len(all_hex_ctl), sum(ctl[k] for k in all_hex_ctl),
        ": " + ", ".join(sorted(all_hex_ctl)[:12]) if all_hex_ctl else ""))
    print("classes: %d distinct, %d left in hex (%d requests)%s" % (
        len(cls), len(all_hex_cls), sum(cls[k] for k in all_hex_cls),
        ": " + ", ".join(sorted(all_hex_cls)[:12]) if all_hex_cls else ""))
    if unnamed:
        print("== requests cutap left unnamed (unknown escape, UVM command, or another request on a device file)")
        for k in sorted(unnamed, key=lambda k: -sum(unnamed[k].values())):
            print("  %9d  %-28s %s" % (sum(unnamed[k].values()), k,
                                      ", ".join("%s=%d" % x for x in sorted(unnamed[k].items()))))
    else:
        print("requests left unnamed: none")
    eq = sum(1 for r in runs if r.get("equal"))
    same = sum(1 for r in runs if r.get("output_same") == "yes")
    print("summary: workloads=%d equal=%d/%d output_same=%d/%d top10 controls named=%d/%d top10 classes named=%d/%d"
          " unnamed request kinds=%d" % (nw, eq, nw, same, nw, min(10, len(ctl)) - hex_top, min(10, len(ctl)),
                                         min(10, len(cls)) - hex_cls, min(10, len(cls)), len(unnamed)))
    return 0


# --- cost ------------------------------------------------------------------------

def cost(args):
    def ms(vals):
        v = [float(x) for x in vals if x not in ("", None)]
        return [1000.0 / x for x in v if x > 0]
    rows = [("bare", ms(args.bare)), ("trace", ms(args.trace)), ("trace -e '!layer=ioctl'", ms(args.noioctl))]
    base = statistics.median(rows[0][1]) if rows[0][1] else None
    parts = []
    for name, v in rows:
        if not v:
            parts.append("%s: failed" % name)
            continue
        m = statistics.median(v)
        pct = "" if base is None or name == "bare" else " (%+.1f%%)" % (100.0 * (m - base) / base)
        parts.append("%s %.3f ms%s [%s]" % (name, m, pct, "..".join("%.3f" % x for x in (min(v), max(v)))))
    print("cost (%s, median of %d alternating runs, ms per step, [min..max]): %s" % (
        args.label, max(len(v) for _, v in rows), "; ".join(parts)))
    if args.records:
        it, at, ix, ax = (int(x) for x in args.records)
        print("  records in one run: trace %d calls of which %d ioctl; trace -e '!layer=ioctl' %d calls of which %d"
              " ioctl" % (at, it, ax, ix))
    return 0


# --- selftest --------------------------------------------------------------------

TABLES_TEXT = """
const struct cutap_nv_escape cutap_nv_escapes[] = {
    {0x29, "RM_FREE", "NVOS00_PARAMETERS", 16},
    {0x2a, "RM_CONTROL", "NVOS54_PARAMETERS", 32},
    {0x2b, "RM_ALLOC", "NVOS21_PARAMETERS", 32},
    {0xd3, "IOCTL_XFER_CMD", "nv_ioctl_xfer_t", 16},
};
const struct cutap_nv_name cutap_nv_classes[] = {
    {0x0u, "NV01_ROOT"},
    {0x0u, "NV1_ROOT"},
    {0x80u, "NV01_DEVICE_0"},
};
const struct cutap_nv_ctrl cutap_nv_ctrls[] = {
    {0x101u, 40, "NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION", "X"},
    {0x20800101u, 8, "NV2080_CTRL_CMD_GPU_GET_INFO", NULL},
};
const struct cutap_nv_uvm cutap_nv_uvms[] = {
    {0x30000001u, 16, 8, "UVM_INITIALIZE"},
};
"""


def selftest():
    import io
    from contextlib import redirect_stdout
    t = Tables(text=TABLES_TEXT)
    assert t.esc_nr["RM_CONTROL"] == 0x2A and t.uvm_cmd["UVM_INITIALIZE"] == 0x30000001
    assert t.class_name[0] == "NV01_ROOT" and t.ctrl_name[0x101].startswith("NV0000")
    assert dev_label(0x10000) == "ctl" and dev_label(0x20003) == "gpu3" and dev_label(0x80010000) == "ctl"
    assert dev_label(0x60002) == "cap2" and dev_label(0x40000) == "uvmtools"
    assert key_name("ctl:0x2a", t) == "ctl:RM_CONTROL" and key_name("uvm:r0x30000001", t) == "uvm:UVM_INITIALIZE"
    assert key_name("ctl:0x99", t) == "ctl:NV_ESC_0x99" and key_name("modeset:r0xc0104d01", t) == "modeset:r0xc0104d01"
    assert words_by_name([1, 2, 3], "a=1, b=\"x\", c=3") == {"a": 1, "b": 2, "c": 3}
    assert words_by_name([1, 2, 3, 4, 5, 6], "x") == {"fd": 1, "dev": 2, "request": 3, "cmd": 5, "hClass": 6}
    d = tempfile.mkdtemp(prefix="ioctl_layer_selftest.")
    # the counter: pid 100 in two lines (the second after the exit hooks),
    # pid 200 (the cutap command) with nothing
    line1 = {"pid": 100, "exe": "/bin/x", "seq": 0, "after_exit": False,
             "counts": {"ctl:0x2a": 3, "ctl:0x2b": 1, "uvm:r0x30000001": 1, "ctl:0x99": 1, "ctl:r0x541b": 1},
             "xfer": {"ctl:0x2a": 1}, "controls": {"0x20800101": 2, "0x20800199": 1},
             "classes": {"0x80": 1}, "unread": 0, "dropped": 0}
    line2 = {"pid": 100, "exe": "/bin/x", "seq": 1, "after_exit": True, "counts": {"ctl:0x29": 2}, "xfer": {},
             "controls": {}, "classes": {}, "unread": 0, "dropped": 0}
    line3 = {"pid": 200, "exe": "/bin/cutap", "seq": 0, "counts": {}}

    def write_counter(path, lines):
        with open(path, "w") as f:
            for x in lines:
                f.write(json.dumps(x) + "\n")
    cnt = os.path.join(d, "cnt.jsonl")
    write_counter(cnt, [line1, line2, line3])
    # cutap's export of the same run, as JSON lines (a driver call as parent)
    ctl = "fd=3, dev=nvidiactl, hClient=0x1, hObject=0x1, cmd=%s, flags=0x0, paramsSize=0x8, status=%s"
    recs = [
        {"type": "call", "id": 1, "parent": None, "layer": "driver", "name": "cuInit", "pid": 100},
        {"type": "call", "id": 2, "parent": None, "layer": "ioctl", "name": "open", "pid": 100,
         "args": ["0x10000", "0x2", "0x3"], "result": 0, "decoded": "dev=nvidiactl, flags=O_RDWR, fd=3"},
        {"type": "call", "id": 3, "parent": 1, "layer": "ioctl", "name": "RM_CONTROL", "pid": 100,
         "args": ["0x3", "0x10000", "0x1", "0x1", "0x20800101", "0x0", "0x8", "0x0"], "result": 0,
         "decoded": ctl % ("NV2080_CTRL_CMD_GPU_GET_INFO", "NV_OK")},
        {"type": "call", "id": 4, "parent": 1, "layer": "ioctl", "name": "RM_CONTROL", "pid": 100,
         "args": ["0x3", "0x10000", "0x1", "0x1", "0x20800101", "0x0", "0x8", "0x56"], "result": 0x56,
         "decoded": ctl % ("NV2080_CTRL_CMD_GPU_GET_INFO", "NV_ERR_NOT_SUPPORTED")},
        {"type": "call", "id": 5, "parent": None, "layer": "ioctl", "name": "RM_CONTROL", "pid": 100,
         "args": ["0x3", "0x80010000", "0x1", "0x1", "0x20800199", "0x0", "0x8", "0x0"], "result": 0,
         "decoded": (ctl % ("0x20800199", "NV_OK")).replace("nvidiactl", "nvidiactl (xfer)")},
        {"type": "call", "id": 6, "parent": 1, "layer": "ioctl", "name": "RM_ALLOC", "pid": 100,
         "args": ["0x3", "0x10000", "0x0", "0x0", "0xcaf00001", "0x80", "0x0", "0x0"], "result": 0,
         "decoded": "fd=3, dev=nvidiactl, hRoot=0x0, hObjectParent=0x0, hObjectNew=0xcaf00001, "
                    "hClass=NV01_DEVICE_0, paramsSize=0x0, status=NV_OK"},
        {"type": "call", "id": 7, "parent": 1, "layer": "ioctl", "name": "UVM_INITIALIZE", "pid": 100,
         "args": ["0x6", "0x30000", "0x10", "0x0"], "result": 0,
         "decoded": "fd=6, dev=nvidia-uvm, size=0x10, status=NV_OK"},
        {"type": "call", "id": 8, "parent": None, "layer": "ioctl", "name": "NV_ESC_0x99", "pid": 100,
         "args": ["0x3", "0x10000", "0xc0084699", "0x7ffd0000"], "result": (1 << 64) - 22,
         "decoded": "fd=3, dev=nvidiactl, request=_IOC(_IOC_READ|_IOC_WRITE, 'F', 0x99, 8), arg=0x7ffd0000"},
        {"type": "call", "id": 9, "parent": None, "layer": "ioctl", "name": "ioctl", "pid": 100,
         "args": ["0x3", "0x10000", "0x541b", "0x7ffd0000"], "result": (1 << 64) - 25,
         "decoded": "fd=3, dev=nvidiactl, request=0x541b, arg=0x7ffd0000"},
        {"type": "call", "id": 10, "parent": None, "layer": "ioctl", "name": "RM_FREE", "pid": 100,
         "args": ["0x3", "0x10000", "0x1", "0x1", "0x1", "0x0"], "result": 0,
         "decoded": "fd=3, dev=nvidiactl, hRoot=0x1, hObjectParent=0x1, hObjectOld=0x1, status=NV_OK"},
        {"type": "call", "id": 11, "parent": None, "layer": "ioctl", "name": "close", "pid": 100,
         "args": ["0x3", "0x10000"], "result": 0, "decoded": "fd=3, dev=nvidiactl"},
        {"type": "range", "id": 12, "parent": None, "layer": "nvtx", "name": "step", "pid": 100},
        {"type": "call", "id": 13, "parent": 12, "layer": "ioctl", "name": "RM_FREE", "pid": 100,
         "args": ["0x3", "0x10000", "0x1", "0x1", "0x2", "0x0"], "result": 0,
         "decoded": "fd=3, dev=nvidiactl, hRoot=0x1, hObjectParent=0x1, hObjectOld=0x2, status=NV_OK"},
    ]
    jl = os.path.join(d, "t.jsonl")
    with open(jl, "w") as f:
        for r in recs:
            f.write(json.dumps(r) + "\n")
    # the same as SQLite, in the export's schema
    db = os.path.join(d, "t.db")
    con = sqlite3.connect(db)
    con.executescript(
        "CREATE TABLE processes(id INTEGER PRIMARY KEY, host TEXT, pid INTEGER, ppid INTEGER, rank INTEGER,"
        " local_rank INTEGER, exe TEXT, cmdline TEXT, start_ns INTEGER, complete INTEGER, file TEXT, stopped INTEGER,"
        " stop_reason TEXT, stop_errno INTEGER, lost_calls INTEGER, lost_names INTEGER);"
        "CREATE TABLE threads(id INTEGER PRIMARY KEY, process_id INTEGER, tid INTEGER, name TEXT);"
        "CREATE TABLE strings(id INTEGER PRIMARY KEY, value TEXT UNIQUE);"
        "CREATE TABLE calls(id INTEGER PRIMARY KEY, thread_id INTEGER, start_ns INTEGER, dur_ns INTEGER, layer TEXT,"
        " name_id INTEGER, depth INTEGER, result INTEGER, args TEXT, kernel_id INTEGER, parent_id INTEGER,"
        " status TEXT, decoded TEXT, object_id INTEGER);")
    con.execute("INSERT INTO processes(id, pid, exe) VALUES(1, 100, '/bin/x')")
    con.execute("INSERT INTO threads(id, process_id, tid) VALUES(1, 1, 100)")
    sid = {}
    for r in recs:
        if r["name"] not in sid:
            sid[r["name"]] = len(sid) + 1
            con.execute("INSERT INTO strings VALUES(?, ?)", (sid[r["name"]], r["name"]))
        con.execute("INSERT INTO calls(id, thread_id, layer, name_id, result, args, parent_id, decoded, status)"
                    " VALUES(?, 1, ?, ?, ?, ?, ?, ?, ?)",
                    (r["id"], r["layer"], sid[r["name"]], signed(r.get("result")), " ".join(r.get("args", [])),
                     r["parent"], r.get("decoded"), None if r["type"] == "range" else "0"))
    con.commit()
    con.close()

    def run(argv):
        buf = io.StringIO()
        with redirect_stdout(buf):
            main(argv)
        return buf.getvalue()
    Tables.text_override = TABLES_TEXT
    try:
        # 1. equal
        summ = os.path.join(d, "s.json")
        out = run(["compare", "w1", "--counter", cnt, "--sqlite", db, "--jsonl", jl, "--bare-counter", cnt,
                   "--output-same", "yes", "--counter-output-same", "yes", "--summary", summ])
        first = out.splitlines()[0]
        assert first == "w1 requests=9 (counter) recorded=9 equal=yes procs=1 nested=44.4% output_same=yes", out
        assert "differs" not in out, out
        assert "exports: sqlite and jsonl agree (9 / 9 requests)" in out, out
        assert ("parents (of 9 requests): cuInit (driver) 44.4%; outside any API call: 5 (55.6%), of which 1 in an"
                " NVTX range") in out, out
        assert "controls equal=yes (3); classes equal=yes (1); after exit hooks=2;" in out, out
        assert "counter alone (no cutap): requests=9 (+0.0% vs the traced run's) procs=1" in out, out
        # the JSON-lines export alone gives the same
        out_j = run(["compare", "w1", "--counter", cnt, "--jsonl", jl, "--output-same", "yes"])
        assert out_j.splitlines()[0] == first, out_j
        s = json.load(open(summ))
        assert s["controls"]["0x20800199"] == [1, "0x20800199"], s
        assert s["controls"]["0x20800101"] == [2, "NV2080_CTRL_CMD_GPU_GET_INFO"], s
        assert s["classes"]["0x80"] == [1, "NV01_DEVICE_0"], s
        # 2. differences: the counter saw one more RM_CONTROL, wrapped, on another process too
        line1b = dict(line1, counts=dict(line1["counts"], **{"ctl:0x2a": 4}), xfer={"ctl:0x2a": 2})
        line4 = {"pid": 300, "exe": "/bin/y", "seq": 0, "counts": {"gpu0:0xce": 2}}
        cnt2 = os.path.join(d, "cnt2.jsonl")
        write_counter(cnt2, [line1b, line2, line3, line4])
        out2 = run(["compare", "w2", "--counter", cnt2, "--sqlite", db, "--output-same", "no"])
        assert out2.splitlines()[0] == ("w2 requests=12 (counter) recorded=9 equal=no procs=2 nested=44.4% "
                                        "output_same=no"), out2
        assert "differs: pid 100 (x) requests ctl:RM_CONTROL: counter 4 cutap 3" in out2, out2
        assert "differs: pid 100 (x) xfer-wrapped ctl:RM_CONTROL: counter 2 cutap 1" in out2, out2
        assert "differs: pid 300 (y) requests gpu0:ALLOC_OS_EVENT: counter 2 cutap 0" not in out2  # no such name
        assert "differs: pid 300 (y) requests gpu0:NV_ESC_0xce: counter 2 cutap 0" in out2, out2
        # 3. the summary across workloads
        sout = run(["summary", summ])
        assert "NV2080_CTRL_CMD_GPU_GET_INFO" in sout and "HEX" in sout, sout
        assert "controls: 2 distinct, 1 left in hex (1 requests): 0x20800199" in sout, sout
        assert "ctl:NV_ESC_0x99" in sout and "ctl:r0x541b" in sout, sout
        assert ("summary: workloads=1 equal=1/1 output_same=1/1 top10 controls named=1/2 top10 classes named=1/1"
                " unnamed request kinds=2") in sout, sout
        # 4. cost
        cout = run(["cost", "--bare", "1000", "1000", "1000", "--trace", "800", "900", "1000",
                    "--noioctl", "950", "1000", "990", "--records", "10", "100", "0", "90"])
        assert "bare 1.000 ms [1.000..1.000]" in cout and "trace 1.111 ms (+11.1%)" in cout, cout
        assert "trace -e '!layer=ioctl' 1.010 ms (+1.0%)" in cout, cout
        return out + out2 + sout + cout
    finally:
        Tables.text_override = None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd")
    c = sub.add_parser("compare")
    c.add_argument("workload")
    c.add_argument("--counter", required=True)
    c.add_argument("--sqlite")
    c.add_argument("--jsonl")
    c.add_argument("--bare-counter")
    c.add_argument("--output-same", default="?")
    c.add_argument("--counter-output-same", default="?")
    c.add_argument("--summary")
    s = sub.add_parser("summary")
    s.add_argument("files", nargs="*")
    k = sub.add_parser("cost")
    k.add_argument("--label", default="bench/gpu/torch_steps.py")
    k.add_argument("--bare", nargs="*", default=[])
    k.add_argument("--trace", nargs="*", default=[])
    k.add_argument("--noioctl", nargs="*", default=[])
    k.add_argument("--records", nargs=4)
    sub.add_parser("selftest")
    a = ap.parse_args(argv)
    if a.cmd == "compare":
        if not a.sqlite and not a.jsonl:
            ap.error("compare: --sqlite or --jsonl")
        if a.sqlite and not os.path.exists(a.sqlite):
            print("%s: no export %s" % (a.workload, a.sqlite))
            a.sqlite = None
            if not a.jsonl or not os.path.exists(a.jsonl):
                return 1
        if a.jsonl and not os.path.exists(a.jsonl):
            a.jsonl = None
        return compare(a)
    if a.cmd == "summary":
        return summary(a)
    if a.cmd == "cost":
        return cost(a)
    if a.cmd == "selftest":
        print(selftest() + "selftest: OK")
        return 0
    ap.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
