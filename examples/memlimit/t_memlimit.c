/* Test of the memlimit example with CUTAP_MEMLIMIT_BYTES=10000: two 4096-byte
 * allocations fit, the third does not (and never reaches the driver), after
 * a free it fits again. */
#include <stdio.h>

#include "cuda_min.h"
#include "fake/fake_internal.h"

int main(void)
{
    CUdeviceptr a = 0, b = 0, c = 0, d = 0;
    int r1 = cuMemAlloc_v2(&a, 4096), r2 = cuMemAlloc_v2(&b, 4096), r3 = cuMemAlloc_v2(&c, 4096);
    uint64_t ran = fake_count_name("cuMemAlloc_v2");
    int rf = cuMemFree_v2(a);
    int r4 = cuMemAlloc_v2(&d, 4096);
    printf("memlimit: %d %d %d free %d then %d; driver ran %llu of 3\n", r1, r2, r3, rf, r4, (unsigned long long)ran);
    return !(r1 == 0 && r2 == 0 && r3 == CUDA_ERROR_OUT_OF_MEMORY && c == 0 && ran == 2 && rf == 0 && r4 == 0);
}
