#!/usr/bin/env python3
"""layers_exports_decode.py WORK: the exports of the t_layers trace decode
like dump: in WORK, ld.txt (the dump), ld.jsonl, ld.sqlite and ld.perfetto
(the exports): "decoded" is what dump prints between the parentheses,
"status" the result by name, "args" the raw words; the runtime, cuBLAS and
NCCL calls in their layers, the driver call nested in cudaMalloc."""
import json, sqlite3, sys
w = sys.argv[1]
dump = open(w + "/ld.txt", encoding="utf-8").read().splitlines()
calls = [json.loads(l) for l in open(w + "/ld.jsonl", encoding="utf-8") if '"call"' in l]
assert len(calls) == len(dump) == 9, (len(calls), len(dump))
for c, line in zip(calls, dump):     # both in time order
    assert "%s(%s) = %s" % (c["name"], c["decoded"], c["status"]) in line, (c, line)
by = {}
for c in calls:
    by.setdefault(c["name"], []).append(c)
m = by["cudaMemcpy"][0]
assert m["layer"] == "runtime" and m["status"] == "cudaSuccess" and m["args"][2:] == ["0x1000", "0x1"], m
big = by["cudaMalloc"][1]
assert big["result"] == 2 and big["status"] == "cudaErrorMemoryAllocation", big
assert by["cudaGetErrorString"][0]["status"].startswith("0x"), by["cudaGetErrorString"]
inner = by["cuMemAlloc_v2"][0]
assert inner["depth"] == 1 and inner["parent"] == by["cudaMalloc"][0]["id"], inner
assert "→0x7f" in inner["decoded"], inner     # UTF-8 kept as is in JSON
db = sqlite3.connect(w + "/ld.sqlite")
rows = db.execute("SELECT layer, status, decoded, args FROM calls_named WHERE name = 'ncclAllReduce'").fetchall()
assert rows == [("nccl", "ncclSuccess", "sendbuff=%s, recvbuff=%s, count=1024, datatype=ncclFloat32, op=ncclSum, "
                 "comm=0x5678, stream=NULL" % (m["args"][0], m["args"][0]), rows[0][3])], rows
assert rows[0][3].split()[3:5] == ["0x7", "0x0"], rows
layers = {r[0] for r in db.execute("SELECT DISTINCT layer FROM calls")}
assert layers == {"driver", "runtime", "cublas", "nccl"}, layers
ev = [e for e in json.load(open(w + "/ld.perfetto", encoding="utf-8"))["traceEvents"] if e.get("ph") == "X"]
g = [e for e in ev if e["name"] == "cublasGemmEx"]
assert [e["cat"] for e in g] == ["cublas", "cublas"], g
assert [e["args"]["status"] for e in g] == ["CUBLAS_STATUS_SUCCESS", "CUBLAS_STATUS_INVALID_VALUE"], g
assert "computeType=CUBLAS_COMPUTE_32F" in g[0]["args"]["decoded"], g
