#!/usr/bin/env bash
# Export tables (cuGetExportTable) with and without a size word: every call
# through them is recorded once (traced_equal), the request is recorded
# with its UUID and table name, a known table is named, and by default
# CUDART_INTERFACE and INTEGRITY_CHECK are wrapped too, the fake driver's
# integrity answer being the hash cutap knows (the program's own check of
# it passes: export_tables_integrity has the rest).
. "$(dirname "$0")/../../lib/init.sh"

EXPECT_WRAPPED_CUDART=1 traced_equal hidden $T/t_paths_pie hidden || exit 1
count() { python3 "$TL/jsonl_count.py" "$WORK/hidden.jsonl" type=call "$@"; }
[ "$(count name=cuGetExportTable result=0 'decoded~bytes=fa4e0001000000000000000000000001}<FAKE_SIZED>')" -ge 1 ] \
    || { say "  request not recorded with uuid and name"; exit 1; }
[ "$(count name=cuGetExportTable 'decoded~}<CUDART_INTERFACE>')" -ge 1 ] || { say "  known table not named"; exit 1; }
[ "$(count 'name~^CUDART_INTERFACE#')" = 1 ] && [ "$(count 'name~^INTEGRITY_CHECK#')" = 1 ]
