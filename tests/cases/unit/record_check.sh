#!/usr/bin/env bash
# C unit test of a call record's layout checks (tests/unit/test_record_check.c,
# in-process): the inline check the scan's summaries and the iteration use
# for records of no capture or one (rd_call_fits, issue #27) gives
# rd_check_call's verdict on 200,000 records made at random, well formed
# and not (argument words or captures past the record, room not a multiple
# of 8, a length past its room, a capture of a missing argument, several
# captures), each verdict reached more than 10,000 times.
. "$(dirname "$0")/../../lib/init.sh"

"$T/unit" record_check
