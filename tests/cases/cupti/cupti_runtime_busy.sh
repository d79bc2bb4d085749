#!/usr/bin/env bash
# Another tool holds CUPTI: a clear message, the program's output and
# every driver call as without the option, no runtime call.
. "$(dirname "$0")/../../lib/init.sh"

FAKE_CUPTI_BUSY=1 srt_run cb --runtime=cupti || exit 1
grep -q -- '--runtime=cupti: CUPTI is already in use by another tool (CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED); runtime calls are not recorded' \
    "$WORK/cb.err" || { cat "$WORK/cb.err" >&2; exit 1; }
[ "$(grep -c 'CUPTI is already in use' "$WORK/cb.err")" = 1 ] || exit 1
srt_same_output cb && srt_recorded cb 0
