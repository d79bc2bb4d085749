#!/usr/bin/env python3
"""text_is_safe.py FILE: no byte of a text output may start a terminal
escape: control characters but newline, DEL, bytes that are not UTF-8 and
C1 controls fail (exit status 1, with where)."""
import re, sys

b = open(sys.argv[1], "rb").read()
bad = re.search(rb"[\x00-\x09\x0b-\x1f\x7f]", b)
try:
    t = b.decode("utf-8")
except UnicodeDecodeError as e:
    sys.exit("not UTF-8 at byte %d" % e.start)
c1 = re.search("[\x80-\x9f]", t)
if bad or c1:
    sys.exit("raw control character at %d" % (bad or c1).start())
