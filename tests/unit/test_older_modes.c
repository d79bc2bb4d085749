/* How each function runs in a layer bound to an older CUDA major
 * (src/generated/older_modes.c, from gen/snapshots/cuda-11.8 and cuda-12.4,
 * issue #28), against what NVIDIA's headers of those releases declare:
 * cudaMalloc, cudaLaunchKernel, cublasSgemm_v2 and cufftExecC2C keep the
 * 13.0 signature since 11; cudaGraphInstantiate took 5 arguments in 11.8
 * (3 since 12.0), cudaMemPrefetchAsync an int device until 12.x (a
 * cudaMemLocation by value in 13.0): variants; cudaStreamGetCaptureInfo is
 * 11.8's 3-argument one, exported but no longer declared by 12.4 (untyped
 * there), a variant in 11; __cudaLaunchKernel (a cudaKernel_t) is 12.0's;
 * cudaMemcpyBatchAsync is newer than 12.4; cuDNN 8 was not snapshotted;
 * cudaBindTexture is 11.8's own (no 13.0 export) and typed there;
 * cudaPointerGetAttributes is spelled the same but copies a struct of
 * another size (a variant). */
#include <stdint.h>

#include "generated/cutap_ids.h"
#include "unit.h"

extern const uint8_t cutap_older_mode[CUTAP_STATIC_COUNT - CUTAP_DRIVER_COUNT];
extern const char *const cutap_older_sonames[][3];
/* the runtime's groups: 0 libcudart.so.12, 1 libcudart.so.11.0 */
#define MODE(name, g) ((cutap_older_mode[CUTAP_ID_##name - CUTAP_DRIVER_COUNT] >> (2 * (g))) & 3)
enum { UNTYPED, SAME, VARIANT };

TESTCASE(runtime_sonames)
{
    CHECK_STR(cutap_older_sonames[0][0], "libcudart.so.12");
    CHECK_STR(cutap_older_sonames[0][1], "libcudart.so.11.0");
    CHECK(cutap_older_sonames[0][2] == NULL);
}

TESTCASE(unchanged_since_11)
{
    CHECK_INT(MODE(cudaMalloc, 0), SAME);
    CHECK_INT(MODE(cudaMalloc, 1), SAME);
    CHECK_INT(MODE(cudaLaunchKernel, 1), SAME);
    CHECK_INT(MODE(cublasSgemm_v2, 0), SAME);
    CHECK_INT(MODE(cublasSgemm_v2, 1), SAME);
    CHECK_INT(MODE(cufftExecC2C, 1), SAME);
}

TESTCASE(changed)
{
    CHECK_INT(MODE(cudaGraphInstantiate, 1), VARIANT);
    CHECK_INT(MODE(cudaGraphInstantiate, 0), SAME);
    CHECK_INT(MODE(cudaMemPrefetchAsync, 0), VARIANT);
    CHECK_INT(MODE(cudaMemPrefetchAsync, 1), VARIANT);
    CHECK_INT(MODE(cudaStreamGetCaptureInfo, 1), VARIANT);
    CHECK_INT(MODE(cudaStreamGetCaptureInfo, 0), UNTYPED);
}

TESTCASE(copied_structs_of_another_size)
{
    /* the same spelling, a struct of another size: cudaPointerAttributes
     * is 24 bytes in 11.8 and 12.4 (copied), larger in 13.0 */
    CHECK_INT(MODE(cudaPointerGetAttributes, 0), VARIANT);
    CHECK_INT(MODE(cudaPointerGetAttributes, 1), VARIANT);
    CHECK_INT(MODE(cudaFuncGetAttributes, 1), VARIANT);
}

TESTCASE(newer_or_unknown)
{
    CHECK_INT(MODE(__cudaLaunchKernel, 0), SAME);
    CHECK_INT(MODE(__cudaLaunchKernel, 1), UNTYPED);
    CHECK_INT(MODE(cudaMemcpyBatchAsync, 0), UNTYPED);
    CHECK_INT(MODE(cudnnCreate, 0), UNTYPED);
}

TESTCASE(older_only)
{
    CHECK_INT(MODE(cudaBindTexture, 1), SAME);
    CHECK_INT(MODE(cudaBindTexture, 0), UNTYPED);
    CHECK_INT(MODE(cudaGetDeviceProperties_v2, 0), SAME);
}

TESTCASE(many_marked)
{
    /* every entry's modes are 0..2; 935 functions of the layers with two
     * older sonames keep their signature in both (cuBLAS 475 since 11.8) */
    unsigned bad = 0, same_both = 0;
    for (unsigned i = 0; i < CUTAP_STATIC_COUNT - CUTAP_DRIVER_COUNT; i++) {
        uint8_t m = cutap_older_mode[i];
        bad += (m & 3) == 3 || (m >> 2 & 3) == 3 || m >> 4;
        same_both += m == (SAME | SAME << 2);
    }
    CHECK_INT(bad, 0);
    CHECK(same_both > 900);
}

TESTLIST_BEGIN(older_modes)
    TESTENTRY(runtime_sonames)
    TESTENTRY(unchanged_since_11)
    TESTENTRY(changed)
    TESTENTRY(copied_structs_of_another_size)
    TESTENTRY(newer_or_unknown)
    TESTENTRY(older_only)
    TESTENTRY(many_marked)
TESTLIST_END()
