#!/usr/bin/env bash
# Issue #28: how each function runs in a layer bound to an older CUDA major
# (src/generated/older_modes.c, generated from the snapshots of those
# majors' headers, gen/snapshots/cuda-*): unchanged signatures typed as
# generated in both, changed ones (cudaGraphInstantiate, cudaMemPrefetchAsync,
# cudaStreamGetCaptureInfo) typed by a variant of that major, newer and
# unsnapshotted functions untyped, an older major's own functions
# (cudaBindTexture) typed there (tests/unit/test_older_modes.c).
. "$(dirname "$0")/../../lib/init.sh"

"$T/unit" older_modes
