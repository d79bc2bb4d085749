#!/usr/bin/env bash
# API version 2 clients (tests/plugins/apitest.c): a second client
# enabled by a filter sees both cuDeviceGetCount calls, the one the first
# skipped flagged in its pre and its post (second_skipped=2), and the
# results it writes there do not reach the caller (t_api: OK); a third,
# unregistered at once, sees no call and cannot be enabled again; names
# and layers looked up.
. "$(dirname "$0")/../../lib/init.sh"

CUTAP_PLUGINS=$T/apitest.so LD_PRELOAD=$LIB $T/t_api >"$WORK/apic.out" 2>"$WORK/apic.err" \
    || { cat "$WORK/apic.out" "$WORK/apic.err" >&2; exit 1; }
grep -qx 'apitest: modified=1 skipped=1 nested_depth=1 parent=cuProfilerStart posts=[0-9]* scratch=ok inner=14 pairs=ok second=2 second_skipped=2 unregistered=0' "$WORK/apic.err" \
    || { cat "$WORK/apic.err" >&2; exit 1; }
grep -qx OK "$WORK/apic.out" || { cat "$WORK/apic.out" >&2; exit 1; }
