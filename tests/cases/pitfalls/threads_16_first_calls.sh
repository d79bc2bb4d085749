#!/usr/bin/env bash
# 16 threads make their first calls at once (the first-call race), three
# times: every call logged once.
. "$(dirname "$0")/../../lib/init.sh"

for i in 1 2 3; do   # the first-call race, three times
    traced_equal thr$i $T/t_threads || exit 1
done
