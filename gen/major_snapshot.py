#!/usr/bin/env python3
"""Snapshots of an older CUDA major's runtime and library layers (issue
#28): what the generators need to type the calls of libcudart.so.11.0,
libcublas.so.11, ... as they type 13.0's, written once from a machine that
has that major's headers and libraries, so that neither the normal build
nor `make regen` needs them:

  gen/major_snapshot.py VERSION INCLUDE LIBDIR [DEBS]

VERSION is the toolkit's (11.8); INCLUDE holds its headers, LIBDIR its
libraries (Debian's nvidia-cuda-dev and the lib* packages of one suite:
/usr/include and /usr/lib/x86_64-linux-gnu for bookworm's 11.8, or the
.debs of trixie's 12.4 unpacked with dpkg-deb -x into one tree; DEBS: the
directory of those .debs, whose names and versions are recorded). A parse
that reaches a CUDA header of another tree (the system's /usr/include when
INCLUDE lacks one) is an error. For each
library layer whose spec names a soname of that major ("older"), it writes
into gen/snapshots/cuda-VERSION/:

  LAYER.json.gz      the declarations its headers make (gen/lib_model.py's
                     snapshot format: functions, structs, enums, records,
                     the layer's status constants), parsed from INCLUDE
                     alone: no header of the pinned toolkit stands in for one
                     the older major lacks;
  SONAME.exports     the library's exported functions, one a line, NAME or
                     NAME@VERSION_NODE (the node the dynamic linker binds a
                     versioned reference to), from its .dynsym;
  cupti_runtime_cbid.txt   the runtime's CUPTI callback ids of that major,
                     "NAME VERSION CBID" (cupti_runtime_cbid.h; a static
                     runtime of that major reports its calls by them);

and README.md, the packages (name and exact version, from dpkg) they came
from. A layer whose headers or library the machine lacks is listed there
as missing. Facts only; gen/older_model.py reads them for the generators."""
import gzip
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import cupti_cbid_generator  # noqa: E402
import lib_model            # noqa: E402
import spec as specs        # noqa: E402


def exports(path):
    """NAME or NAME@NODE of each defined function of the object's .dynsym"""
    out = subprocess.run(["readelf", "--dyn-syms", "-W", path], check=True, capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 8 or f[3] != "FUNC" or f[6] == "UND" or f[4] not in ("GLOBAL", "WEAK"):
            continue
        names.add(f[7].replace("@@", "@"))
    return sorted(names)


def package_of(path):
    r = subprocess.run(["dpkg", "-S", os.path.realpath(path)], capture_output=True, text=True)
    if r.returncode:
        r = subprocess.run(["dpkg", "-S", path], capture_output=True, text=True)
    if r.returncode:
        return None
    pkg = r.stdout.split(":")[0].strip()
    v = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], capture_output=True, text=True).stdout.strip()
    return "%s %s" % (pkg, v)


def deb_packages(debs):
    """{file in the package: "name version"} of the .debs of a directory"""
    owner = {}
    for d in sorted(os.listdir(debs)):
        if not d.endswith(".deb"):
            continue
        path = os.path.join(debs, d)
        f = subprocess.run(["dpkg-deb", "-f", path, "Package", "Version"], check=True, capture_output=True,
                           text=True).stdout.split("\n")
        pv = "%s %s" % (f[0].split(": ", 1)[1], f[1].split(": ", 1)[1])
        for line in subprocess.run(["dpkg-deb", "-c", path], check=True, capture_output=True, text=True).stdout.splitlines():
            owner[os.path.basename(line.split()[5])] = pv
    return owner


def foreign_headers(include):
    """CUDA headers the system has outside INCLUDE (dpkg's nvidia/cuda packages)"""
    if os.path.realpath(include) == "/usr/include":
        return set()
    r = subprocess.run(["dpkg", "-L", "nvidia-cuda-dev", "libcupti-dev"], capture_output=True, text=True)
    return {os.path.realpath(l) for l in r.stdout.splitlines() if l.startswith("/usr/include/")} | \
        {os.path.realpath(os.path.join(lib_model.cuda_model.CUDA_INCLUDE, x)) for x in
         os.listdir(lib_model.cuda_model.CUDA_INCLUDE)}


def main():
    if len(sys.argv) not in (4, 5):
        raise SystemExit(__doc__.split("\n\n")[1])
    version, include, libdir = sys.argv[1:4]
    owner = deb_packages(sys.argv[4]) if len(sys.argv) == 5 else None
    foreign = foreign_headers(include)
    major = version.split(".")[0]
    out = os.path.join(HERE, "snapshots", "cuda-" + version)
    os.makedirs(out, exist_ok=True)
    rows, packages = [], set()
    for spec_file in specs.library_layers():
        spec = spec_file.layer
        soname = spec.get("older", {}).get(major)
        if not soname:
            continue
        lib = os.path.join(libdir, soname)
        if not os.path.exists(lib):
            rows.append("| %s | %s | missing: no %s | | |" % (spec["name"], soname, lib))
            continue
        layer = lib_model.Layer(0, spec_file)
        lib_model.INCLUDED = set()
        try:
            declared, constants = lib_model._parse_declarations(layer, spec, include, only=True)
            mixed = sorted(lib_model.INCLUDED & foreign)
            if mixed:
                raise SystemExit("gen: headers of another tree reached: " + " ".join(mixed[:3]))
        except SystemExit as e:
            rows.append("| %s | %s | missing: its headers do not parse here (%s) | | |"
                        % (spec["name"], soname, str(e).splitlines()[0][:80]))
            continue
        names = exports(lib)
        wanted = [c for c in spec.get("status_types", [])]
        snap = dict(version=version, soname=soname, declared=declared, untyped_reasons=layer.untyped_reasons,
                    constants=constants, structs=layer.model.structs, enums=layer.model.enums,
                    records=layer.model.records, status_types=wanted)
        # gzip (no time stamp: the same input gives the same bytes): the
        # declarations of a library are megabytes of text
        text = json.dumps(snap, default=lib_model._encode, indent=0, sort_keys=True) + "\n"
        with open(os.path.join(out, spec["name"] + ".json.gz"), "wb") as f:
            f.write(gzip.compress(text.encode(), mtime=0))
        with open(os.path.join(out, soname + ".exports"), "w") as f:
            f.write("\n".join(names) + "\n")
        mine = [n.split("@")[0] for n in names if lib_model._belongs(spec, n.split("@")[0])]
        typed = sum(1 for n in mine if n in declared)
        pkgs = sorted(p for p in {owner.get(soname) if owner is not None else package_of(lib)} if p)
        packages.update(pkgs)
        rows.append("| %s | %s | %d exports of the layer, %d declared by its headers (%d untyped) | %d | %s |"
                    % (spec["name"], soname, len(mine), typed, len(mine) - typed, len(declared), ", ".join(pkgs)))
    hdr = owner.get("cuda_runtime_api.h") if owner is not None else package_of(os.path.join(include, "cuda_runtime_api.h"))
    if hdr:
        packages.add(hdr)
    # The runtime's CUPTI callback ids, "NAME VERSION CBID" (a static
    # runtime of this major reports its calls by them: which parameter
    # struct, which signature)
    cbid_h = os.path.join(include, "cupti_runtime_cbid.h")
    if os.path.exists(cbid_h):
        cbids = [m.groups() for m in map(cupti_cbid_generator.LINE.match, open(cbid_h)) if m]
        with open(os.path.join(out, "cupti_runtime_cbid.txt"), "w") as f:
            f.write("".join("%s %s %s\n" % c for c in cbids))
        p = owner.get("cupti_runtime_cbid.h") if owner is not None else package_of(cbid_h)
        if p:
            packages.add(p)
        rows.append("| runtime (CUPTI) | cupti_runtime_cbid.h | %d callback ids | | %s |" % (len(cbids), p or ""))
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write("# CUDA %s, snapshotted for issue #28\n\n" % version)
        f.write("Written by `gen/major_snapshot.py %s %s %s%s`: the declarations of each layer's\n"
                "headers (LAYER.json.gz, gzip'd JSON) and the functions its library exports (SONAME.exports).\n"
                "Generated: do not edit; run the script again on a machine with those packages.\n\n"
                % (version, include, libdir, " " + sys.argv[4] if len(sys.argv) == 5 else ""))
        f.write("Packages:\n\n" + "".join("- `%s`\n" % p for p in sorted(packages)) + "\n")
        f.write("| layer | library | functions | declarations | package |\n|---|---|---|---|---|\n")
        f.write("\n".join(rows) + "\n")
    print("gen: CUDA %s: %d layers into %s" % (version, sum("missing" not in r for r in rows), out))
    for r in rows:
        print("  " + r)


if __name__ == "__main__":
    main()
