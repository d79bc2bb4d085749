#!/usr/bin/env bash
# A program opening the fake runtime and libraries by soname (dlsym/dlvsym):
# the call tree under cutap trace is exact (tree report, JSON lines parents,
# dump indentation) and its output as bare.
. "$(dirname "$0")/../../lib/init.sh"

libs_traced libs_dl1 "$(libs_tree all)" $T/t_libs_dl soname
