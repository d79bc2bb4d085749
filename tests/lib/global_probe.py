#!/usr/bin/env python3
"""global_probe.py: what a program asking the global scope whether a
library is loaded (ctypes.CDLL(None), dlsym(RTLD_DEFAULT)) sees, before and
after it opens libcudart.so.13 (locally) and libcublas.so.13 (globally):
three lines of True/False."""
import ctypes

g = ctypes.CDLL(None)
print(hasattr(g, "cublasCreate_v2"), hasattr(g, "ncclGetVersion"))
ctypes.CDLL("libcudart.so.13")
print(hasattr(g, "cudaMalloc"))
ctypes.CDLL("libcublas.so.13", mode=ctypes.RTLD_GLOBAL)
print(hasattr(g, "cublasCreate_v2"))
