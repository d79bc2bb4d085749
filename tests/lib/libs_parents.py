#!/usr/bin/env python3
"""libs_parents.py JSONL TREE: in a JSON lines export of t_libs traced (the
fake runtime and libraries, tests/t_libs.c), the parents of cuMemAlloc_v2,
cuLaunchKernel and cublasLtMatmul are the calls that made them, and every
call is in the layer its name says. TREE is the expected call tree
(tests/cases/libs/*.tree): when it holds cublasSgemm_v2, the GEMMs' chains
are expected too."""
import json, sys

calls = [c for c in map(json.loads, open(sys.argv[1])) if c["type"] == "call"]
byid = {c["id"]: c for c in calls}


def chain(c):
    out = [c["name"]]
    while c.get("parent") is not None:
        c = byid[c["parent"]]
        out.append(c["name"])
    return " < ".join(out)


got = sorted(chain(c) for c in calls if c["name"] in ("cuMemAlloc_v2", "cuLaunchKernel", "cublasLtMatmul"))
want = ["cuMemAlloc_v2 < cudaMalloc"]
if "cublasSgemm_v2" in sys.argv[2]:
    want += ["cuLaunchKernel < cublasLtMatmul < cublasGemmEx", "cuLaunchKernel < cublasLtMatmul < cublasSgemm_v2",
             "cublasLtMatmul < cublasGemmEx", "cublasLtMatmul < cublasSgemm_v2"]
assert got == sorted(want), got
layer = lambda n: "runtime" if n.startswith("cuda") else "cublasLt" if n.startswith("cublasLt") else \
    "cublas" if n.startswith("cublas") else "driver"
assert all(c["layer"] == layer(c["name"]) for c in calls), [(c["name"], c["layer"]) for c in calls]
