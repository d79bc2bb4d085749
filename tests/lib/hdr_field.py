#!/usr/bin/env python3
"""hdr_field.py FILE FIELD: a version 5 field of a trace file's header
(include/cutap_format.h, docs/FORMAT.md), as a number: ring_chunks,
freeze_request, overwritten_calls, overwritten_chunks, freeze_clock,
freeze_reason, freeze_id, freeze_result, capture, capture_ranges; and
issue #31's gpu, gpu_error, gpu_dropped, gpu_lost, gpu_records, gpu_pushed."""
import struct, sys

FIELDS = {  # offset, struct format: from the table in docs/FORMAT.md
    "ring_chunks": (1520, "<I"), "freeze_request": (1524, "<I"),
    "overwritten_calls": (1528, "<Q"), "overwritten_chunks": (1536, "<Q"),
    "freeze_clock": (1544, "<Q"), "freeze_reason": (1552, "<I"), "freeze_id": (1556, "<I"),
    "freeze_result": (1560, "<Q"), "capture": (1568, "<I"), "capture_ranges": (1572, "<I"),
    "gpu": (1576, "<I"), "gpu_error": (1580, "<i"), "gpu_dropped": (1584, "<Q"), "gpu_lost": (1592, "<Q"),
    "gpu_records": (1600, "<Q"), "gpu_pushed": (1736, "<Q"),
}
d = open(sys.argv[1], "rb").read(4096)
ver, = struct.unpack_from("<I", d, 8)
if ver < 5:
    sys.exit("hdr_field.py: %s: version %d has no such field" % (sys.argv[1], ver))
off, fmt = FIELDS[sys.argv[2]]
print(struct.unpack_from(fmt, d, off)[0])
