#!/usr/bin/env bash
# CUTAP_HIDDEN=observe: the requests are recorded by table name, no slot is
# wrapped.
. "$(dirname "$0")/../../lib/init.sh"

CUTAP_HIDDEN=observe CUTAP_TRACE=$WORK/obs LD_PRELOAD=$LIB $T/t_paths_pie hidden >/dev/null || exit 1
"$CUTAP" export --format jsonl -o "$WORK/obs.jsonl" "$WORK/obs" || exit 1
count() { python3 "$TL/jsonl_count.py" "$WORK/obs.jsonl" type=call "$@"; }
[ "$(count 'name~#[0-9]')" = 0 ] && [ "$(count name=cuGetExportTable 'decoded~}<FAKE_SIZED>')" -ge 1 ]
