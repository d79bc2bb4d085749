#!/usr/bin/env bash
# Export tables (cuGetExportTable) with and without a size word: every call
# through them is in CUTAP_LOG once, the request is logged with its UUID and
# table name, a known table is named, and CUDART_INTERFACE is not wrapped by
# default.
. "$(dirname "$0")/../../lib/init.sh"

traced_equal hidden $T/t_paths_pie hidden || exit 1
grep -q 'cuGetExportTable(.*uuid=fa4e0001000000000000000000000001 table=FAKE_SIZED = 0' "$WORK/hidden.log" \
    || { say "  request not recorded with uuid and name"; exit 1; }
grep -q 'table=CUDART_INTERFACE' "$WORK/hidden.log" || { say "  known table not named"; exit 1; }
# CUDART_INTERFACE is not wrapped by default: no slot calls recorded.
! grep -q 'CUDART_INTERFACE#' "$WORK/hidden.log"
