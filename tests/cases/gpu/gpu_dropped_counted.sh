#!/usr/bin/env bash
# Issue #31: records CUPTI says it dropped (FAKE_CUPTI_DROP=7: reported
# once by cuptiActivityGetNumDroppedRecords, whose count resets when read,
# as CUPTI's) are the header's gpu_dropped, exactly (not once per buffer);
# what was not dropped is all there and joined.
. "$(dirname "$0")/../../lib/init.sh"

FAKE_CUPTI_DROP=7 gpu_run g 60 4 || { say "  cutap trace failed"; exit 1; }
gpu_sum g && gpu_is g dropped 7 && gpu_is g lost 0 && gpu_is g unjoined 0 && gpu_is g joined $((23 * 240)) || exit 1
[ "$(python3 "$TL/hdr_field.py" "$WORK"/g/*.cutap gpu_dropped)" = 7 ] || exit 1
gpu_run g0 3 2 && gpu_sum g0 && gpu_is g0 dropped 0
