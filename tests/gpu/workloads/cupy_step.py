"""CuPy: elementwise kernels, a reduction, a matrix product (cuBLAS), a
RawKernel and a memory-pool round trip; CuPy carries the runtime it links
(issue #25: no runtime call of it is seen by symbols). Prints deterministic
checksums, then "OK"; "NOGPU" when CuPy or a GPU is missing."""


def main():
    try:
        import cupy as cp
        if cp.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError
    except Exception:
        print("NOGPU")
        return
    a = cp.arange(1 << 16, dtype=cp.float32)
    b = (a * 2 + 1).astype(cp.float32)
    print("sum", int(b.sum().get()))
    m = cp.ones((64, 64), dtype=cp.float32)
    print("matmul", int((m @ m).sum().get()))
    k = cp.RawKernel(r'''extern "C" __global__ void inc(int *x, int n)
        { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 3; }''', "inc")
    x = cp.zeros(1000, dtype=cp.int32)
    k((4,), (256,), (x, cp.int32(1000)))
    print("raw", int(x.sum().get()))
    for _ in range(20):
        y = cp.empty(1 << 20, dtype=cp.uint8)
        y.fill(1)
        del y
    cp.cuda.Stream.null.synchronize()
    print("OK")


if __name__ == "__main__":
    main()
