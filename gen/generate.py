#!/usr/bin/env python3
"""Runs every cutap generator.

  gen/generate.py            write the generated files into the repository
  gen/generate.py --out DIR  write them under DIR instead
  gen/generate.py --verify   regenerate into a temporary directory and
                             byte-compare with the committed files

What the headers do not say comes from the specs, gen/specs/<layer>.py
(gen/spec.py reads them; `gen/spec.py show NAME` answers what cutap does
with NAME). Rules naming functions or parameters the headers do not have
stop the generation; a hand-written C file that no longer holds the place
a spec points to (handled_in) is a warning here and fails --verify.
"""
import argparse
import filecmp
import os
import sys
import tempfile

import cli_names_generator
import cuda_model
import cupti_cbid_generator
import cupti_gpu_cbid_generator
import decode_generator
import decode_layers_generator
import exact_test_generator
import exports_generator
import fastpath_generator
import fake_generator
import front_tables_generator
import fronts_generator
import hidden_tables_generator
import ids_generator
import lib_exact_test_generator
import lib_fake_generator
import lib_model
import lib_resolve_generator
import lib_table_generator
import lib_untyped_generator
import lib_wrappers_generator
import nv_ioctl_generator
import nv_params_generator
import nvtx_roles_generator
import nvtx_slots_generator
import old_major_generator
import lib_older_generator
import procaddr_tsv_generator
import spec
import status_names_generator
import table_generator
import untyped_generator
import wrappers_generator

GENERATORS = [ids_generator, table_generator, wrappers_generator, untyped_generator,
              exports_generator, fake_generator, exact_test_generator,
              procaddr_tsv_generator, decode_generator,
              lib_table_generator, lib_untyped_generator, lib_wrappers_generator, lib_resolve_generator, fronts_generator, front_tables_generator,
              decode_layers_generator, lib_fake_generator, lib_exact_test_generator, old_major_generator,
              cupti_cbid_generator, cupti_gpu_cbid_generator, fastpath_generator, cli_names_generator, hidden_tables_generator, nvtx_slots_generator,
              nvtx_roles_generator, nv_ioctl_generator, nv_params_generator, status_names_generator, lib_older_generator]


def outputs(g, model):
    """{path: text} of one generator: OUTPUT/generate() or generate_all()."""
    if hasattr(g, "generate_all"):
        return g.generate_all(model)
    return {g.OUTPUT: g.generate(model)}


def build_model():
    model = cuda_model.build()
    model.driver_count = len(model.functions)
    model.layers = lib_model.build()
    problems = spec.validate(model)
    if problems:
        raise SystemExit("gen: the specs do not match the headers:\n  " + "\n  ".join(problems))
    return model


def spec_warnings():
    """Places in hand-written C the specs point to that are gone."""
    return spec.check_pointers() + spec.check_dl_letters()


def run(root):
    model = build_model()
    for p in model.version_problems:
        print("gen: warning: cuGetProcAddress table: %s" % p, file=sys.stderr)
    paths = []
    for g in GENERATORS:
        for path, text in outputs(g, model).items():
            cuda_model.write(os.path.join(root, path), text)
            paths.append(path)
    return model, paths


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=cuda_model.ROOT)
    ap.add_argument("--verify", action="store_true")
    a = ap.parse_args()
    stale = spec_warnings()
    for p in stale:
        print("gen: %s: spec: %s" % ("error" if a.verify else "warning", p), file=sys.stderr)
    if not a.verify:
        m, _ = run(a.out)
        print("gen: %d entry points (%d typed), %d cuGetProcAddress versions, CUDA %d headers"
              % (len(m.functions), sum(f.typed for f in m.functions), len(m.versions), m.header_version))
        for l in m.layers:
            print("gen: layer %s: %d functions (%d typed)" % (l.name, len(l.functions), sum(f.typed for f in l.functions)))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        _, paths = run(tmp)
        bad = [p for p in paths
               if not os.path.exists(os.path.join(cuda_model.ROOT, p))
               or not filecmp.cmp(os.path.join(tmp, p), os.path.join(cuda_model.ROOT, p), shallow=False)]
    if bad:
        print("regen-check: generated files differ from the generators' output: " + ", ".join(bad))
        return 1
    if stale:
        print("regen-check: the specs point to places in hand-written C that are gone (above): "
              "fix gen/specs/ (handled_in)")
        return 1
    print("regen-check: %d generated files match" % len(paths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
