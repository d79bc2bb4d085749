#!/usr/bin/env python3
"""hdr_loss.py FILE: the loss fields of a trace file's header
(include/cutap_format.h), as "version flags stop_errno stop_reason
lost_calls"."""
import struct, sys

d = open(sys.argv[1], "rb").read(4096)
ver, = struct.unpack_from("<I", d, 8)
flags, = struct.unpack_from("<I", d, 20)
# stop_errno: after magic, ten 32-bit fields, seven 64-bit ones, exit_code
# and reserved1, host, exe, cmdline and cutap_version
off = 8 + 4 * 10 + 8 * 7 + 8 + 64 + 256 + 1024 + 32
err, reason, clock, lost, names = struct.unpack_from("<iIQQQ", d, off)
print(ver, flags, err, reason, lost)
