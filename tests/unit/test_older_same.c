/* Which functions keep their CUDA 13.0 signature in CUDA 11.8 and 12.4
 * (src/generated/older_same.c, from gen/snapshots/cuda-11.8 and cuda-12.4,
 * issue #28), against what NVIDIA's headers of those releases declare:
 * cudaMalloc, cudaLaunchKernel, cublasSgemm_v2 and cufftExecC2C are the
 * same since 11; cudaStreamGetCaptureInfo took 3 arguments in 11 and 12
 * and takes 7 in 13.0; __cudaLaunchKernel (a cudaKernel_t) is 12.0's;
 * cudaMemcpyBatchAsync is newer than 12.4; cuDNN 8 was not snapshotted. */
#include <stdint.h>

#include "generated/cutap_ids.h"
#include "unit.h"

extern const uint8_t cutap_older_same[CUTAP_STATIC_COUNT - CUTAP_DRIVER_COUNT];
#define SAME(name) cutap_older_same[CUTAP_ID_##name - CUTAP_DRIVER_COUNT]

TESTCASE(unchanged_since_11)
{
    CHECK_INT(SAME(cudaMalloc), 3);
    CHECK_INT(SAME(cudaLaunchKernel), 3);
    CHECK_INT(SAME(cublasSgemm_v2), 3);
    CHECK_INT(SAME(cufftExecC2C), 3);
}

TESTCASE(changed_or_newer)
{
    CHECK_INT(SAME(cudaStreamGetCaptureInfo), 0);
    CHECK_INT(SAME(__cudaLaunchKernel), 2);
    CHECK_INT(SAME(cudaMemcpyBatchAsync), 0);
    CHECK_INT(SAME(cudnnCreate), 0);
}

TESTCASE(two_bits_and_many_marked)
{
    /* every entry 0..3; cuBLAS alone keeps 475 signatures since 11.8 */
    unsigned bad = 0, both = 0;
    for (unsigned i = 0; i < CUTAP_STATIC_COUNT - CUTAP_DRIVER_COUNT; i++) {
        bad += cutap_older_same[i] > 3;
        both += cutap_older_same[i] == 3;
    }
    CHECK_INT(bad, 0);
    CHECK(both > 1000);
}

TESTLIST_BEGIN(older_same)
    TESTENTRY(unchanged_since_11)
    TESTENTRY(changed_or_newer)
    TESTENTRY(two_bits_and_many_marked)
TESTLIST_END()
