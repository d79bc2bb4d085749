#!/usr/bin/env python3
"""pty_progress.py CUTAP DIR: `cutap dump DIR` (DIR: 600000 calls) with stderr on
a terminal (a pty) draws its progress line there ("cutap: dump: 262144 of
600000 calls") and erases it at the end."""
import os, pty, subprocess, sys
m, s = pty.openpty()
p = subprocess.run([sys.argv[1], "dump", sys.argv[2]], stdout=subprocess.DEVNULL, stderr=s)
os.close(s)
out = b""
while True:
    try:
        b = os.read(m, 65536)
    except OSError:
        break
    if not b:
        break
    out += b
assert p.returncode == 0, p.returncode
assert b"cutap: dump: 262144 of 600000 calls" in out, out[:300]
assert out.endswith(b"\r\x1b[K"), out[-40:]
