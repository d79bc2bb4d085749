#!/usr/bin/env bash
# C unit tests of the NVIDIA kernel interface tables (tests/unit/
# test_nv_ioctl.c, on src/common/nv_ioctl.c and the generated tables):
# every escape and UVM command seen on driver 580.159.04 is named, the
# status, class and control names the ioctl layer prints are right, a
# private control shows its class's category, every table is sorted for
# its binary search, and a number no table holds gets no name.
. "$(dirname "$0")/../../lib/init.sh"

"$T/unit" nv_ioctl
