"""What the older CUDA majors' headers say of each runtime and library layer
(issue #28), for the generators: read from gen/snapshots/cuda-VERSION/
(gen/major_snapshot.py) and attached to the layers lib_model builds.

A layer's older sonames ("older" in its spec) are its groups: one soname
may serve several majors (libcusolver.so.11 is CUDA 11.8's and 12.4's,
libcudnn.so.8 both's), and the majors of a group must agree on a function
for it to be typed there. For each group and each typed function of the
layer, its mode:

  SAME     that major's headers declare the pinned signature (same result
           and parameters, by ABI and by spelling): typed as generated;
  VARIANT  they declare another one: typed by a wrapper of its own
           (a Function in layer.variants, recorded under the same id);
  UNTYPED  they declare none (the function is newer, or exported but no
           longer declared), or the group's majors disagree: the call is
           recorded untyped, its registers passed untouched.

Functions an older library exports and its headers declare but the pinned
library no longer has (cudaBindTexture, cusparseCcsr2dense,
__nvJitLinkCreate_12_4, ...) become functions of the layer (older_only),
typed with the newest group's declaration, so that a program built on that
major has each of its calls intercepted and typed. Only generators import
this module."""
import copy
import gzip
import json
import os

import cuda_model

UNTYPED, SAME, VARIANT = 0, 1, 2
# Newest first: an older_only function takes the first declaration found.
MAJORS = (("12", "12.4"), ("11", "11.8"))


def _decode(d):
    import lib_model
    return lib_model._decode(d)


def _snapshot(version, layer_name):
    path = os.path.join(cuda_model.HERE, "snapshots", "cuda-" + version, layer_name + ".json.gz")
    if not os.path.exists(path):
        return None
    with gzip.open(path) as f:
        return json.loads(f.read(), object_hook=_decode)


def _exports(version, soname):
    path = os.path.join(cuda_model.HERE, "snapshots", "cuda-" + version, soname + ".exports")
    if not os.path.exists(path):
        return None
    return set(l.strip().split("@")[0] for l in open(path) if l.strip())


def _cbids(version):
    """{function name: newest callback id} of a major's runtime
    (cupti_runtime_cbid.txt: NAME VERSION CBID), or {} without one"""
    path = os.path.join(cuda_model.HERE, "snapshots", "cuda-" + version, "cupti_runtime_cbid.txt")
    return _newest([l.split() for l in open(path)]) if os.path.exists(path) else {}


def _newest(rows):
    out = {}
    for name, ver, cbid in rows:
        if name not in out or int(ver) > out[name][0]:
            out[name] = (int(ver), int(cbid))
    return {n: c for n, (_, c) in out.items()}


def pinned_cbids():
    """{function name: newest callback id} of the pinned CUPTI headers"""
    import cupti_cbid_generator
    path = os.path.join(cuda_model.CUDA_INCLUDE, "cupti_runtime_cbid.h")
    return {n: c for n, (_, c) in cupti_cbid_generator.newest(path).items()}


def sig(f):
    return (f.ret_abi, f.ret_spelled, [(p.abi, p.spelled) for p in f.params])


class Group:
    """One older soname of a layer and the majors it serves."""
    def __init__(self, index, soname):
        self.index = index          # the soname's index in the layer's older list
        self.soname = soname
        self.majors = []            # "12", "11": those with a snapshot
        self.missing = []           # majors with no snapshot of this layer
        self.declared = {}          # name -> Function, None where the majors disagree
        self.exported = set()
        self.structs, self.enums, self.records = {}, {}, {}
        self.cbids = {}             # runtime: function name -> its newest callback id in these majors

    @property
    def tag(self):
        return "cu" + "_".join(self.majors or self.missing)


def _older_captures(d, apply_rules):
    """What the recorder copies for an older major's declaration d (the
    spec's rules attached to a copy)"""
    from gen_common import captures
    c = copy.deepcopy(d)
    apply_rules([c])
    return captures(c)


def _same_captures(d, f, apply_rules):
    """Whether what the recorder copies behind d's pointers (an older
    major's declaration of f's signature) is what it copies for f: the same
    spelling may name a struct whose size changed between majors
    (cudaPointerAttributes: 24 bytes in 11.8, 88 in 13.0)"""
    from gen_common import captures
    return _older_captures(d, apply_rules) == captures(f)


def _captures_within(f, d, apply_rules):
    """Whether every copy the recorder makes for f (13.0's description) is
    one d's (an older major's declaration) makes too, of the same size: a
    report read with f's description reads nothing past d's structs"""
    from gen_common import captures
    return set(captures(f)) <= set(_older_captures(d, apply_rules))


def _load_groups(layer):
    older = layer.spec.get("older", {})
    groups = {}
    for major, version in MAJORS:
        so = older.get(major)
        if not so:
            continue
        g = groups.setdefault(so, Group(len(groups), so))
        snap, exp = _snapshot(version, layer.name), _exports(version, so)
        if snap is None or exp is None:
            g.missing.append(major)
            continue
        first = not g.majors
        g.majors.append(major)
        g.cbids.update(_cbids(version))
        g.exported |= exp
        for n, f in snap["declared"].items():
            if first:
                g.declared[n] = f
            elif n in g.declared:
                if g.declared[n] is not None and sig(g.declared[n]) != sig(f):
                    g.declared[n] = None      # the majors of one soname disagree
            else:
                g.declared[n] = f
        for attr in ("structs", "enums", "records"):
            for k, v in snap[attr].items():
                getattr(g, attr).setdefault(k, v)
    return sorted(groups.values(), key=lambda g: g.index)


def attach(layer, belongs, apply_rules):
    """Adds layer.groups, the older_only functions, layer.variants
    [(group, Function)] and f.older_modes (one mode per group) to layer;
    belongs(name) says whether a name is the layer's, apply_rules(fns)
    attaches the spec's rules."""
    layer.groups = _load_groups(layer)
    have = {f.name for f in layer.functions}
    added = {}
    for g in layer.groups:
        for n in sorted(g.exported):
            f = g.declared.get(n)
            if n in have or n in added or f is None or not belongs(n):
                continue
            f = copy.deepcopy(f)
            f.older_only = g.soname
            added[n] = f
            for p in f.params:        # a struct by value: its generated definition
                if p.kind == "struct" and p.struct not in layer.model.structs:
                    layer.model.structs[p.struct] = g.structs[p.struct]
    if added:
        apply_rules(list(added.values()))
        layer.model.functions = sorted(layer.functions + list(added.values()), key=lambda f: f.name)
    for g in layer.groups:            # what decoding the added functions needs
        for k, v in g.enums.items():
            layer.model.enums.setdefault(k, v)
        for k, v in g.records.items():
            layer.model.records.setdefault(k, v)
    layer.variants = []
    for f in layer.functions:
        f.older_modes = []
        for g in layer.groups:
            d = g.declared.get(f.name) if f.typed and f.name in g.exported else None
            if d is None:
                f.older_modes.append(UNTYPED)
            elif sig(d) == sig(f) and _same_captures(d, f, apply_rules):
                f.older_modes.append(SAME)
            else:
                v = copy.deepcopy(d)
                v.variant_of = f
                v.group = g
                v.cname = "%s__%s" % (f.name, g.tag)
                apply_rules([v])
                if not v.typed:
                    f.older_modes.append(UNTYPED)
                    continue
                f.older_modes.append(VARIANT)
                layer.variants.append((g, v))
    _older_cbids(layer, apply_rules)


def _older_cbids(layer, apply_rules):
    """layer.older_cbids: [(cbid, function, variant or None)]: the callback
    ids by which a static runtime of an older major reports a function,
    where they are not the pinned headers' newest for it (cutap's own
    reports path then knows no signature for them): the pinned signature
    where that major declares the function as 13.0 does (None), its
    variant where it declares another. One entry per callback id: a callback
    id is one version of one function, whatever the major."""
    layer.older_cbids, layer.unsafe_cbids = [], []
    if not any(g.cbids for g in layer.groups):
        return
    current = set(pinned_cbids().values())
    fns = {f.name: f for f in layer.functions}
    variants = {(g.index, v.name): v for g, v in layer.variants}
    seen = {}
    for g in layer.groups:
        for name, cbid in sorted(g.cbids.items()):
            f = fns.get(name)
            if cbid in current or f is None or not f.typed:
                continue
            mode = f.older_modes[g.index]
            if mode == SAME:
                what = None
            elif mode == VARIANT:
                what = variants[(g.index, name)]
            else:
                continue
            if cbid in seen:
                assert seen[cbid][0] == name, (cbid, name, seen[cbid])
                assert (seen[cbid][1] is None) == (what is None) and \
                    (what is None or sig(what) == sig(seen[cbid][1])), (cbid, name)
                continue
            seen[cbid] = (name, what)
            layer.older_cbids.append((cbid, f, what))
    layer.older_cbids.sort(key=lambda e: e[0])
    # Callback ids 13.0 still has as the newest of their function whose
    # parameters an older major declares otherwise (CUPTI kept the id while
    # the signature changed: cudaGetDriverEntryPoint's 406, 3 parameters in
    # 11.8 and 4 in 13.0; cudaGraphExecUpdate's 335), or whose structs 13.0's
    # description copies changed size: a report by one may come from either,
    # and only its words as a whole could tell.
    unsafe = set()
    for g in layer.groups:
        for name, cbid in g.cbids.items():
            f = fns.get(name)
            if cbid in current and f is not None and f.typed and name in g.declared and \
                    (g.declared[name] is None or sig(g.declared[name]) != sig(f) or
                     not _captures_within(f, g.declared[name], apply_rules)):
                unsafe.add(cbid)
    layer.unsafe_cbids = sorted(unsafe)
