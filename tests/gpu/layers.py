"""Checks the runtime and library layers in a trace made on a real GPU.

    layers.py WORKLOAD TRACE.sqlite

TRACE.sqlite is `cutap export --format sqlite` of the workload traced with
`cutap trace` (or `cutap trace --runtime=cupti` for a statically linked
program). For each workload, EXPECT lists (caller, callee) name patterns
that must occur as ancestor and descendant on one thread: the runtime or
library call and a driver call it made. Prints one line
"WORKLOAD layer=calls ... paths=found/expected" and, indented, every
expected pair with an example and the missing ones; exits 1 when a pair is
missing, when a workload that should have a layer has none of its calls,
or when a call's parent is on another thread or starts after it.
"""
import collections
import os
import re
import sqlite3
import sys

# nvcc 13's <<<>>> goes through __cudaLaunchKernel (CUPTI reports it as
# cudaLaunchKernel); a program calling the API directly, cudaLaunchKernel.
RT_LAUNCH = (r"^(__)?cudaLaunchKernel(_ptsz)?$", r"^cuLaunchKernel(Ex)?(_ptsz)?$")
EXPECT = {
    "vecadd_shared": [(r"^cudaMalloc$", r"^cuMemAlloc(_v2)?$"), (r"^cudaMemcpy$", r"^cuMemcpy"), RT_LAUNCH],
    "vecadd_static_cupti": [(r"^cudaMalloc$", r"^cuMemAlloc(_v2)?$"), (r"^cudaMemcpy$", r"^cuMemcpy"),
                            RT_LAUNCH],
    "cublas_gemm": [(r"^cublasCreate_v2$", r"^cu[A-Z]"), (r"^cublas(S|Gemm|Lt)", r"^cuLaunchKernel")],
    "nccl_allreduce": [(r"^nccl(CommInitAll|CommInitRank)", r"^cu[A-Z]")] + (
        # one GPU: an in-place all-reduce over one rank makes no driver call
        [(r"^ncclGroupEnd$|^ncclAllReduce$", r"^cuLaunchKernel")] if int(os.environ.get("NGPU", "1")) > 1 else []),
    "torch_step": [(r"^cudnn", r"^cuLaunchKernel"), (r"^cublas", r"^cuLaunchKernel"), RT_LAUNCH,
                   (r"^cudaMalloc$", r"^cuMemAlloc(_v2)?$")],
}
LAYERS_WANTED = {
    "vecadd_shared": ["runtime"], "vecadd_static_cupti": ["runtime"], "cublas_gemm": ["cublas"],
    "nccl_allreduce": ["nccl"], "torch_step": ["runtime", "cublas", "cudnn"],
    "nvidia_smi": ["nvml"],   # NVML makes no CUDA driver call: no path to find
}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    wl, db = sys.argv[1:]
    con = sqlite3.connect(db)
    rows = con.execute("SELECT id, thread_id, start_ns, layer, name, parent_id FROM calls_named").fetchall()
    by_id = {r[0]: r for r in rows}
    layers = collections.Counter(r[3] for r in rows)
    bad = []
    for r in rows:
        p = by_id.get(r[5]) if r[5] is not None else None
        if r[5] is not None and p is None:
            bad.append("call %d (%s): parent %d not in the trace" % (r[0], r[4], r[5]))
        elif p and (p[1] != r[1] or p[2] > r[2]):
            bad.append("call %d (%s): parent %s on thread %d starting at %d, the call on %d at %d"
                       % (r[0], r[4], p[4], p[1], p[2], r[1], r[2]))
    found = {}
    for r in rows:
        anc, seen = by_id.get(r[5]) if r[5] is not None else None, 0
        while anc and seen < 64:
            for pair in EXPECT.get(wl, []):
                if pair not in found and re.search(pair[0], anc[4]) and re.search(pair[1], r[4]):
                    found[pair] = "%s (%s) > ... > %s (%s)" % (anc[4], anc[3], r[4], r[3])
            anc, seen = (by_id.get(anc[5]) if anc[5] is not None else None), seen + 1
    want = EXPECT.get(wl, [])
    for l in LAYERS_WANTED.get(wl, []):
        if not layers[l]:
            bad.append("no call of layer %s" % l)
    print("%s %s paths=%d/%d" % (wl, " ".join("%s=%d" % kv for kv in sorted(layers.items())), len(found),
                                  len(want)))
    for pair in want:
        print("  %s %s > %s: %s" % ("found" if pair in found else "MISSING", pair[0], pair[1],
                                     found.get(pair, "-")))
    for b in bad[:20]:
        print("  BAD " + b)
    return 1 if bad or len(found) < len(want) else 0


if __name__ == "__main__":
    sys.exit(main())
