#!/usr/bin/env python3
"""mp_driver_calls.py: a workload: Python multiprocessing pools of 2
workers, by fork and by spawn (a fresh interpreter), each worker calling
cuDriverGetVersion 3 and 4 times through ctypes, then 5 calls in the
parent: 19 calls in all."""
import ctypes, multiprocessing as mp


def work(n):
    cuda = ctypes.CDLL("libcuda.so.1")
    v = ctypes.c_int()
    for _ in range(n):
        assert cuda.cuDriverGetVersion(ctypes.byref(v)) == 0


if __name__ == "__main__":
    for method in ("fork", "spawn"):
        with mp.get_context(method).Pool(2) as p:
            p.map(work, [3, 4])
    work(5)
