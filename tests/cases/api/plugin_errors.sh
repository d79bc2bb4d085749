#!/usr/bin/env bash
# A missing plugin gets a clear message and the program still runs.
. "$(dirname "$0")/../../lib/init.sh"

CUTAP_PLUGINS=$WORK/nonexistent.so:$T/libnext_a.so LD_PRELOAD=$LIB $T/t_paths_pie plt >/dev/null 2>"$WORK/pe.err" || exit 1
grep -q 'plugin .*nonexistent.so not loaded' "$WORK/pe.err" && grep -q 'exports no cutap_plugin_init' "$WORK/pe.err"
