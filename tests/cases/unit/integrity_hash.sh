#!/usr/bin/env bash
# C unit tests of the CUDA runtime's integrity-check hash (tests/unit/
# test_integrity.c, on src/common/integrity_hash.c), which cutap recomputes
# for its copies of CUDART_INTERFACE and INTEGRITY_CHECK: MD2 against RFC
# 1319's suite, the whole hash against a vector computed independently
# (Perl's Digest::HMAC over Digest::MD2), every input changing it, and the
# fixed answers of versions ending in 0 and 1.
. "$(dirname "$0")/../../lib/init.sh"

"$T/unit" integrity
