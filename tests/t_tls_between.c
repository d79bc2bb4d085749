/* Issue #25: a program that makes export-table calls of its own beside a
 * runtime copy's reports. A library with its own static runtime copy
 * (libfakednn.so, tests/lib_dnn_static_rt.c) reports each cudaMalloc
 * (TOOLS_TLS#2, #4 and #1 at its entry and exit, tests/rt_copy.h); between
 * those, the program calls TOOLS_TLS#2 itself, 5 times a round, from its
 * own code. cutap learns the library copy's reporting sites only: the
 * program's 50 calls are all recorded.
 *   t_tls_between: 10 rounds; prints "CALLS TOOLS_TLS#2 50" and
 *   "CALLS cudaMalloc 10". */
#include <stdint.h>
#include <stdio.h>

#include "cuda_min.h"

int fakednnRun(int n);

int main(void)
{
    static const unsigned char tls_uuid[16] = {0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47,
                                               0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc};
    const uintptr_t *tls = NULL;
    if (cuInit(0) != CUDA_SUCCESS || cuGetExportTable((const void **)&tls, tls_uuid) != CUDA_SUCCESS || !tls)
        return 1;
    int bad = 0, own = 0;
    for (int round = 0; round < 10; round++) {
        bad += fakednnRun(1);
        for (int i = 0; i < 5; i++, own++)
            ((uint64_t (*)(uint64_t, uint64_t))tls[2])(0, 0);
    }
    printf("CALLS TOOLS_TLS#2 %d\nCALLS cudaMalloc 10\n", own);
    return bad;
}
