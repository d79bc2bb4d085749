#!/usr/bin/env bash
# examples/memlimit: the example plugin refuses allocations over
# CUTAP_MEMLIMIT_BYTES.
. "$(dirname "$0")/../../lib/init.sh"

CUTAP_PLUGINS=$B/examples/memlimit.so CUTAP_MEMLIMIT_BYTES=10000 LD_PRELOAD=$LIB $T/t_memlimit
