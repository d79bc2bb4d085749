#!/usr/bin/env bash
# Issue #28: the functions whose CUDA 13.0 signature CUDA 11.8 and 12.4
# declare too (src/generated/older_same.c, generated from the snapshots of
# those majors' headers, gen/snapshots/cuda-*): unchanged ones marked for
# both, cudaStreamGetCaptureInfo (3 arguments before 13.0, 7 in it) for
# neither, 12.0's __cudaLaunchKernel for 12 only, later and unsnapshotted
# functions for neither (tests/unit/test_older_same.c).
. "$(dirname "$0")/../../lib/init.sh"

"$T/unit" older_same
