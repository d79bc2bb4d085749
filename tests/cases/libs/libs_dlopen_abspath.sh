#!/usr/bin/env bash
# The same as libs_dlopen_soname, the libraries opened by absolute path.
. "$(dirname "$0")/../../lib/init.sh"

libs_traced libs_dl2 "$(libs_tree all)" $T/t_libs_dl "$FL"
