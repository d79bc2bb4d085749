#!/usr/bin/env bash
# Issue #31: a CUPTI that takes no timestamp callback (FAKE_CUPTI_NO_TS_CB=1:
# its registration fails) stamps with CLOCK_REALTIME: the header's gpu
# bits say REALTIME (ASKED|STARTED|REALTIME|FLUSHED|CALLBACKS), and the GPU times are
# inside the run in CLOCK_REALTIME; everything joined as with the callback.
. "$(dirname "$0")/../../lib/init.sh"

t0=$(real_ns)
FAKE_CUPTI_NO_TS_CB=1 gpu_run h 5 2 || { say "  cutap trace failed"; exit 1; }
t1=$(real_ns)
gpu_sum h && gpu_is h bits 'ASKED|STARTED|REALTIME|FLUSHED|CALLBACKS' && gpu_is h unjoined 0 && gpu_is h joined $((23 * 10)) || exit 1
tmin=$(gpu_val h tmin) tmax=$(gpu_val h tmax)
[ "$tmin" -gt "$t0" ] && [ "$tmax" -lt "$t1" ] || { say "  GPU times $tmin..$tmax not inside the run $t0..$t1 (CLOCK_REALTIME)"; exit 1; }
