#!/usr/bin/env python3
"""same_lines.py PRINTED DUMPED: the lines of cutap trace --print and of
cutap dump, per thread and in order, show the same calls, but for:
- the time at their start (--print's are from the command's start);
- durations, which may differ by 2 ns or 0.1 % and one unit of the last
  digit printed: a TSC trace's tick rate is known better when dump reads
  the finished trace than while it is written;
- NVTX ranges and marks, which dump draws as entries of their own (lines
  "range ..." and "mark ...") and counts in the indentation: left out, and
  the indentation of a thread that has them not compared;
- a call --print showed started ("NAME(ARGS) <unfinished ...>") and later
  resumed ("<... NAME resumed>(ARGS) = RESULT", its outputs known then):
  the resumed arguments and result in the started line's place;
- a kernel's or table's name after a handle ("0x7f00<vecadd(float*)>"),
  which dump may show where --print could not yet (the name is written
  into the trace when it is first known, after the call it names).
Prints the first difference; exit 1 on one."""
import re
import sys

DUR = re.compile(r" <([0-9.]+) (ns|us|ms|s)>")
SCALE = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
RANGE = re.compile(r"^ *(range|mark) ")
RESUMED = re.compile(r"^ *<\.\.\. (\S+) resumed>(.*)$")


def per_thread(path, printed):
    threads, ranged = {}, set()
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            rest = line.rstrip("\n").split(" ", 1)[1]
            label, _, text = rest.partition(" ")
            if RANGE.match(text):
                ranged.add(label)
                continue
            lines = threads.setdefault(label, [])
            m = RESUMED.match(text) if printed else None
            if m:
                # the latest started call of that name on the thread
                for i in range(len(lines) - 1, -1, -1):
                    if " <unfinished ...>" in lines[i] and lines[i].lstrip().startswith(m.group(1) + "("):
                        pad = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
                        obj = lines[i].split(" <unfinished ...>", 1)[1]
                        lines[i] = pad + m.group(1) + m.group(2) + obj
                        break
                else:
                    lines.append(text)   # no start: a difference
                continue
            lines.append(text)
    return threads, ranged


def names(text):
    """text without the names after handles (0x..<...>, nested <> included;
    one whose brackets do not close is left as it is), and those names as
    (handle, name) pairs"""
    out, found, i = [], [], 0
    for m in re.finditer(r"0x[0-9a-f]+<", text):
        if m.start() < i:
            continue
        depth, j = 0, m.end() - 1
        while j < len(text):
            depth += {"<": 1, ">": -1}.get(text[j], 0)
            if depth == 0:
                break
            j += 1
        if j >= len(text):
            continue
        out.append(text[i:m.end() - 1])
        found.append((m.group(0)[:-1], text[m.end():j]))
        i = j + 1
    out.append(text[i:])
    return "".join(out), found


def key(text, strip):
    durs = [(float(v) * SCALE[u], SCALE[u] * 10.0 ** -(len(v.split(".")[1]) if "." in v else 0))
            for v, u in DUR.findall(text)]
    text = DUR.sub(" <D>", text)
    return (text.lstrip() if strip else text), durs


a, _ = per_thread(sys.argv[1], True)
b, ranged = per_thread(sys.argv[2], False)
if sorted(a) != sorted(b):
    print("threads differ: %s / %s" % (sorted(a), sorted(b)))
    sys.exit(1)
for t in a:
    if len(a[t]) != len(b[t]):
        print("%s: %d calls printed, %d dumped" % (t, len(a[t]), len(b[t])))
        sys.exit(1)
    for la, lb in zip(a[t], b[t]):
        (ta, da), (tb, db) = key(la, t in ranged), key(lb, t in ranged)
        if ta != tb:
            (sa, na), (sb, nb) = names(ta), names(tb)
            if sa == sb and all(n in nb for n in na):
                ta = tb   # names dump knows and --print did not yet; those both show agree
        if ta != tb or len(da) != len(db) or any(abs(x - y) > max(2, 1e-3 * y) + max(ux, uy)
                                                 for (x, ux), (y, uy) in zip(da, db)):
            print("%s printed: %s %s\n%s dumped:  %s %s" % (t, ta, da, t, tb, db))
            sys.exit(1)
