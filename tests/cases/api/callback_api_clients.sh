#!/usr/bin/env bash
# API version 2 clients (tests/plugins/apitest.c): a second client
# enabled by a filter sees the one cuDeviceGetCount the first did not
# skip; a third, unregistered at once, sees no call and cannot be
# enabled again; names and layers looked up.
. "$(dirname "$0")/../../lib/init.sh"

CUTAP_PLUGINS=$T/apitest.so LD_PRELOAD=$LIB $T/t_api >"$WORK/apic.out" 2>"$WORK/apic.err" \
    || { cat "$WORK/apic.out" "$WORK/apic.err" >&2; exit 1; }
grep -qx 'apitest: modified=1 skipped=1 nested_depth=1 parent=cuProfilerStart posts=[0-9]* scratch=ok inner=14 pairs=ok second=1 unregistered=0' "$WORK/apic.err" \
    || { cat "$WORK/apic.err" >&2; exit 1; }
