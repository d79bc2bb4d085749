#!/usr/bin/env bash
# CUTAP_HIDDEN=UUID wraps only the table of that UUID.
. "$(dirname "$0")/../../lib/init.sh"

CUTAP_HIDDEN=fa4e0002000000000000000000000002 CUTAP_TRACE=$WORK/uu LD_PRELOAD=$LIB $T/t_paths_pie hidden >/dev/null || exit 1
"$CUTAP" export --format jsonl -o "$WORK/uu.jsonl" "$WORK/uu" || exit 1
count() { python3 "$TL/jsonl_count.py" "$WORK/uu.jsonl" type=call "$@"; }
[ "$(count name=FAKE_NOSIZE#1 layer=hidden)" -ge 1 ] && [ "$(count 'name~^FAKE_SIZED#')" = 0 ]
