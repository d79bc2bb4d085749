#!/usr/bin/env bash
# C unit tests of src/common's lookups (tests/unit/test_common.c,
# in-process): export tables by UUID (the known ones, the fake driver's,
# an unknown one) and the PATH search of the exec notes.
. "$(dirname "$0")/../../lib/init.sh"

"$T/unit" common
