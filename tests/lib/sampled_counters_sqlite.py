#!/usr/bin/env python3
"""sampled_counters_sqlite.py DB: the SQLite export of the same run: 39000 calls
in its counters table, some but not all timed, 3000 errors."""
import sqlite3, sys
r = sqlite3.connect(sys.argv[1]).execute("select sum(calls), sum(timed), sum(errors) from counters").fetchone()
assert r[0] == 33000 + 6000 and 0 < r[1] < r[0] and r[2] == 3000, r
