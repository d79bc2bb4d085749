#!/usr/bin/env python3
"""posix_spawn.py PROGRAM...: a workload: runs each PROGRAM with the
arguments "many 1" through os.posix_spawn, one after the other, then
os.system of a program that does not exist."""
import os, sys

for p in sys.argv[1:]:
    os.waitpid(os.posix_spawn(p, [p, "many", "1"], os.environ), 0)
os.system("/nonexistent/prog 2>/dev/null")
