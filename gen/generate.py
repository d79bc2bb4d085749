#!/usr/bin/env python3
"""Runs every cutap generator.

  gen/generate.py            write the generated files into the repository
  gen/generate.py --out DIR  write them under DIR instead
  gen/generate.py --verify   regenerate into a temporary directory and
                             byte-compare with the committed files
"""
import argparse
import filecmp
import os
import sys
import tempfile

import cuda_model
import decode_generator
import exact_test_generator
import exports_generator
import fake_generator
import ids_generator
import procaddr_tsv_generator
import table_generator
import untyped_generator
import wrappers_generator

GENERATORS = [ids_generator, table_generator, wrappers_generator, untyped_generator,
              exports_generator, fake_generator, exact_test_generator,
              procaddr_tsv_generator, decode_generator]


def run(root):
    model = cuda_model.build()
    for p in model.version_problems:
        print("gen: warning: cuGetProcAddress table: %s" % p, file=sys.stderr)
    for g in GENERATORS:
        cuda_model.write(os.path.join(root, g.OUTPUT), g.generate(model))
    return model


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=cuda_model.ROOT)
    ap.add_argument("--verify", action="store_true")
    a = ap.parse_args()
    if not a.verify:
        m = run(a.out)
        print("gen: %d entry points (%d typed), %d cuGetProcAddress versions, CUDA %d headers"
              % (len(m.functions), sum(f.typed for f in m.functions), len(m.versions), m.header_version))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        run(tmp)
        bad = [g.OUTPUT for g in GENERATORS
               if not os.path.exists(os.path.join(cuda_model.ROOT, g.OUTPUT))
               or not filecmp.cmp(os.path.join(tmp, g.OUTPUT), os.path.join(cuda_model.ROOT, g.OUTPUT), shallow=False)]
    if bad:
        print("regen-check: generated files differ from the generators' output: " + ", ".join(bad))
        return 1
    print("regen-check: %d generated files match" % len(GENERATORS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
