#!/usr/bin/env bash
# C unit tests of the readers' integer formatting (cli/textfmt.c,
# tests/unit/test_textfmt.c, in-process): text_u64, text_i64 and text_hex
# print what "%" PRIu64, "%" PRId64 and "0x%" PRIx64 print, at every width
# boundary, at the extremes, over a sweep, and through a stream buffer too
# small to take a number in one piece.
. "$(dirname "$0")/../../lib/init.sh"

"$T/unit" textfmt
