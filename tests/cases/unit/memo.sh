#!/usr/bin/env bash
# C unit tests of the readers' memo keys (cli/memo.c, tests/unit/test_memo.c,
# in-process): a finished call's key holds its payload byte for byte after
# the head (process, name, id, flags, result, counts); two calls that
# differ in one argument word, one captured byte or the name give keys
# that differ, also when one key is made over the other's bytes (a
# formatting thread reuses its key: a key that left a word uncopied kept
# the previous call's, which helper-39 found no test noticed); a text put
# under a key is got back under that key only; an unfinished call has none.
. "$(dirname "$0")/../../lib/init.sh"

"$T/unit" memo
