#!/usr/bin/env bash
# make regen-check: the generated code regenerated from the CUDA headers
# into a temporary directory is byte-identical to what is committed (skipped
# without python3-clang-14 or the CUDA headers).
. "$(dirname "$0")/../../lib/init.sh"

/usr/bin/python3 -c 'import clang.cindex' 2>/dev/null && [ -f /usr/local/cuda/include/cuda.h ] || exit 77
make -s regen-check
