#!/usr/bin/env python3
"""v4_self_description.py DIR: the trace file in DIR is of format version 4 and
the ID_NAME record of cuCtxGetCurrent carries its layer and signature."""
import glob, struct, sys
d = open(glob.glob(sys.argv[1] + "/*.cutap")[0], "rb").read()
assert struct.unpack_from("<I", d, 8)[0] >= 4, "not version 4 or later"
assert b"cuCtxGetCurrent\x00driver\x00p:pctx:CUcontext *" in d, "no self-description of cuCtxGetCurrent"
