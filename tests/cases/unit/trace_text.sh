#!/usr/bin/env bash
# C unit tests of the reader's pure functions (tests/unit/
# test_trace_text.c, in-process on cli/read/text.c): well-formed UTF-8
# and what is not (overlong, surrogates, above U+10FFFF, cut short), the
# escaping of strings from the traced process (control characters, C1
# controls, bytes that are not UTF-8, backslashes; never an escape or a
# sequence cut in half), trace file names, stop reasons, loss texts, and
# layers by name (known, and unknown ones kept by name).
. "$(dirname "$0")/../../lib/init.sh"

"$T/unit" trace_text
