#!/usr/bin/env bash
# Issue #17 on the GPU: fault injection into PyTorch and NCCL.
#   1. OOM: a loop allocating 64 MiB tensors; cudaMalloc made to fail from
#      its 5th call on (cutap run), then cuMemAlloc_v2 (the driver call
#      under it), then traced (cutap trace, the marks): torch raises
#      torch.OutOfMemoryError as for a real OOM.
#   2. cuBLAS: a matmul with cublasLtMatmul / cublas*gemm* made to fail
#      with CUBLAS_STATUS_EXECUTION_FAILED: PyTorch's error.
#   3. a delayed all-reduce (nccl_allreduce, its 2nd ncclAllReduce 1 s late).
#   4. the OOM traced with --stack errors: report --errors with the stack.
set -u
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD B=$ROOT/build/gpu C=$ROOT/build/cutap
R=${OUT:-/tmp/cutap-gpu}/inject; rm -rf "$R"; mkdir -p "$R"
[ -x "$C" ] && [ -x "$B/nccl_allreduce" ] || tests/gpu/build.sh || exit 1
echo "== $(date -u +%F' '%T) UTC, $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
cat >"$R/oom.py" <<'PY'
import torch
x = []
try:
    for i in range(12):
        x.append(torch.empty(64 << 20, dtype=torch.uint8, device="cuda"))
    print("no error: %d tensors" % len(x))
except torch.OutOfMemoryError as e:
    print("torch.OutOfMemoryError after %d tensors: %s" % (len(x), str(e).splitlines()[0][:150]))
PY
cat >"$R/gemm.py" <<'PY'
import torch
a = torch.randn(512, 512, device="cuda"); b = torch.randn(512, 512, device="cuda")
try:
    print("ok", float((a @ b).sum()))
except RuntimeError as e:
    print("%s: %s" % (type(e).__name__, str(e).splitlines()[0][:200]))
PY
echo; echo "== 1. OOM"
echo "bare:                       $(python3 "$R/oom.py" 2>&1 | tail -1)"
echo "cudaMalloc when=5+:         $("$C" run --inject 'cudaMalloc:error=cudaErrorMemoryAllocation:when=5+' -- python3 "$R/oom.py" 2>&1 | tail -1)"
echo "cuMemAlloc_v2 when=5+:      $("$C" run --inject 'cuMemAlloc_v2:error=CUDA_ERROR_OUT_OF_MEMORY:when=5+' -- python3 "$R/oom.py" 2>&1 | tail -1)"
echo "cudaMalloc when=5 (once):   $("$C" run --inject 'cudaMalloc:error=cudaErrorMemoryAllocation:when=5' -- python3 "$R/oom.py" 2>&1 | tail -1)"
echo "traced, cudaMalloc when=5+: $("$C" trace -o "$R/t1" --inject 'cudaMalloc:error=cudaErrorMemoryAllocation:when=5+' -- python3 "$R/oom.py" 2>/dev/null | tail -1)"
"$C" report "$R/t1" 2>/dev/null | grep -E 'cudaMalloc|cuMemAlloc' | sed 's/^/   /'
"$C" dump "$R/t1" 2>/dev/null | grep -E 'INJECTED' | head -3 | cut -c1-200 | sed 's/^/   /'
echo; echo "== 2. cuBLAS"
echo "bare:     $(python3 "$R/gemm.py" 2>&1 | tail -1)"
echo "injected: $("$C" trace -o "$R/t2" --inject 'cublasLtMatmul,cublas*gemm*_v2*,cublasGemm*:error=CUBLAS_STATUS_EXECUTION_FAILED' -- python3 "$R/gemm.py" 2>"$R/t2.err" | tail -1)"; tail -2 "$R/t2.err" | sed "s/^/   /"
"$C" dump "$R/t2" 2>/dev/null | grep -E 'INJECTED' | head -3 | cut -c1-220 | sed 's/^/   /'
echo; echo "== 3. a delayed all-reduce"
"$C" trace -o "$R/t3" --inject 'ncclAllReduce:delay=1s:when=2' -- "$B/nccl_allreduce" 2>/dev/null | tail -1
"$C" dump "$R/t3" 2>/dev/null | grep -E '^[0-9.]* \[[0-9/]*\] *ncclAllReduce' | cut -c1-60,200- | sed 's/^/   /'
"$C" dump "$R/t3" 2>/dev/null | grep -E 'ncclAllReduce.*INJECTED' | sed 's/.*\(<[^>]*> INJECTED.*\)/   \1/'
echo; echo "== 4. where the error began: --stack errors, report --errors"
"$C" trace -o "$R/t4" --stack errors --inject 'cudaMalloc:error=cudaErrorMemoryAllocation:when=5+' -- python3 "$R/oom.py" 2>/dev/null | tail -1
"$C" report --errors "$R/t4" 2>/dev/null | head -40 | cut -c1-220
echo "done $(date -u +%T)"
