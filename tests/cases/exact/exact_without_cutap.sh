#!/usr/bin/env bash
# The exactness test without cutap (the test itself is right).
. "$(dirname "$0")/../../lib/init.sh"

$T/exact
