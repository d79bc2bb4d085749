#!/usr/bin/env python3
"""The source tree's layout rules (docs/ARCHITECTURE.md).

  layout_check.py imports [--root DIR]   every "#include" of src/, cli/ and
      include/ ("..." and <...> alike) resolved as the Makefile's -I options
      resolve it; each folder holding sources must have exactly one row
      (folder, layer, offers) in DIR/docs/ARCHITECTURE.md, and each import
      must go to its own folder or to one of a lower layer (so no two
      folders import each other, and there is no circle). A header named
      *_internal.h that its folder's row does not offer is private to that
      folder. An include whose name is computed (#include MACRO) is refused:
      it cannot be checked.
  layout_check.py lengths [--root DIR]   no hand-written source file
      (C, CUDA, assembly, Python, shell with or without an extension,
      make) has more than 800 lines; files under a generated/ folder, and
      data, are not counted.

Prints what it found; exit 1 with the reasons when a rule is broken."""
import os
import re
import sys

MAX_LINES = 800
SRC_EXT = (".c", ".h", ".S", ".inc")
LEN_EXT = (".c", ".h", ".S", ".inc", ".cu", ".py", ".sh", ".bash", ".mk")


def layers(root):
    doc = os.path.join(root, "docs", "ARCHITECTURE.md")
    out, offers, dup = {}, {}, []
    for line in open(doc, encoding="utf-8"):
        m = re.match(r"\|\s*`([^`]+)`\s*\|\s*(\d+)\s*\|([^|]*)\|", line)
        if m:
            f = m.group(1).rstrip("/")
            if f in out:
                dup.append("folder %s has more than one row in docs/ARCHITECTURE.md" % f)
            out[f] = int(m.group(2))
            offers[f] = set(re.findall(r"`([^`]+\.h)`", m.group(3)))
    if not out:
        sys.exit("layout_check: no (folder, layer) rows in %s" % doc)
    return out, offers, dup


def makefile_dirs(root):
    """The -I folders of the library's objects (LIBFLAGS) and of the
    command's (the rule for $(BUILD)/obj/cutap/%.c.o)."""
    text = open(os.path.join(root, "Makefile"), encoding="utf-8").read().replace("\\\n", " ")
    lib = re.search(r"^LIBFLAGS\s*:?=(.*)$", text, re.M)
    cli = re.search(r"^\$\(BUILD\)/obj/cutap/%\.c\.o:.*\n(?:\t.*\n){0,2}?(\t.*-I.*)$", text, re.M)
    if not lib or not cli:
        sys.exit("layout_check: cannot find LIBFLAGS or the command's compile rule in the Makefile")
    return re.findall(r"-I(\S+)", lib.group(1)), re.findall(r"-I(\S+)", cli.group(1))


def sources(root, tops):
    for top in tops:
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for f in sorted(files):
                yield os.path.relpath(os.path.join(d, f), root)


def imports(root):
    table, offers, bad = layers(root)
    lib_dirs, cli_dirs = makefile_dirs(root)
    edges = {}
    for path in sources(root, ("src", "cli", "include")):
        if not path.endswith(SRC_EXT):
            continue
        dirs = cli_dirs if path.startswith("cli/") else lib_dirs if path.startswith("src/") else ["include"]
        here = os.path.dirname(path)
        if here not in table:
            bad.append("%s: folder %s has no row in docs/ARCHITECTURE.md" % (path, here))
        for n, line in enumerate(open(os.path.join(root, path), encoding="utf-8", errors="replace"), 1):
            if not re.match(r"\s*#\s*include\b", line):
                continue
            m = re.match(r'\s*#\s*include\s*(?:"([^"]+)"|<([^>]+)>)', line)
            if not m:
                bad.append("%s:%d: a computed #include cannot be checked; name the header" % (path, n))
                continue
            name, quoted = m.group(1) or m.group(2), m.group(1) is not None
            cands = ([os.path.normpath(os.path.join(here, name))] if quoted else []) + \
                    [os.path.normpath(os.path.join(d, name)) for d in dirs]
            hit = next((c for c in cands if os.path.isfile(os.path.join(root, c))), None)
            if hit is None:
                if quoted:
                    bad.append("%s:%d: \"%s\" is found nowhere the Makefile looks" % (path, n, name))
                continue        # <...> found nowhere in the tree: a system header
            a, b = here, os.path.dirname(hit)
            if a == b:
                continue
            base = os.path.basename(hit)
            if base.endswith("_internal.h") and base not in offers.get(b, ()):
                bad.append("%s:%d: %s is private to %s (its row does not offer it)" % (path, n, base, b))
            for f in (a, b):
                if f not in table:
                    bad.append("%s: folder %s has no row in docs/ARCHITECTURE.md" % (path, f))
            if a in table and b in table and table[b] >= table[a]:
                bad.append("%s:%d: %s (layer %d) imports %s from %s (layer %d): imports go to lower layers only"
                           % (path, n, a, table[a], os.path.basename(hit), b, table[b]))
            edges.setdefault((a, b), 0)
            edges[(a, b)] += 1
    for (a, b), k in sorted(edges.items(), key=lambda e: (-table.get(e[0][0], 0), e[0])):
        print("  %-22s -> %-22s %3d" % (a, b, k))
    return sorted(set(bad)), "%d folders, %d imports between them" % (len({x for e in edges for x in e}), len(edges))


def lengths(root):
    bad, n = [], 0
    for path in sources(root, ("src", "cli", "include", "gen", "tests", "bench", "examples", "contrib")):
        base = os.path.basename(path)
        if "/generated/" in "/" + path or path.startswith(("gen/snapshots/", "tests/fixtures/")):
            continue
        with open(os.path.join(root, path), "rb") as f:
            head = f.read(2)
        script = "." not in base and head == b"#!"
        if not (path.endswith(LEN_EXT) or base == "Makefile" or script):
            continue
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            lines = f.readlines()
        n += 1
        if len(lines) > MAX_LINES:
            bad.append("%s: %d lines (at most %d)" % (path, len(lines), MAX_LINES))
    for extra in ("Makefile", ".ci/run"):
        p = os.path.join(root, extra)
        if os.path.isfile(p):
            k = len(open(p, encoding="utf-8", errors="replace").readlines())
            n += 1
            if k > MAX_LINES:
                bad.append("%s: %d lines (at most %d)" % (extra, k, MAX_LINES))
    return bad, "%d hand-written files, none over %d lines" % (n, MAX_LINES) if not bad else ""


def main():
    args = sys.argv[1:]
    root = "."
    if "--root" in args:
        i = args.index("--root")
        root = args[i + 1]
        del args[i:i + 2]
    if args not in (["imports"], ["lengths"]):
        sys.exit(__doc__)
    bad, summary = (imports if args[0] == "imports" else lengths)(root)
    for b in bad:
        print("layout: " + b)
    if bad:
        return 1
    print("layout: " + summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
