#!/usr/bin/env bash
# C unit tests of the follower of cutap trace --print (tests/unit/
# test_follow.c, in-process on cli/read/follow.c, on a trace file written
# a step at a time): a thread's calls are handed in its runs' order, as
# dump orders them, where a pass over the file reads a thread's later run
# (a tail higher in the file) before the rest of an earlier run it found
# empty or read a part of (the flake of trace_print: the thread filled it
# while the pass went on); a run never found holds nothing back for good;
# a call whose id another thread names later is shown with that name (not
# another's), one whose id is never named as "id#N" after a second.
. "$(dirname "$0")/../../lib/init.sh"

"$T/unit" follow
