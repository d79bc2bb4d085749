#!/usr/bin/env bash
# dlvsym of driver names (t_paths.c dlvsym): the program checks it gets
# cutap's wrappers, versioned lookups included.
. "$(dirname "$0")/../../lib/init.sh"

EXPECT_CUTAP=1 LD_PRELOAD=$LIB $T/t_paths_pie dlvsym
