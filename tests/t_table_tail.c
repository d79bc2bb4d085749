/* Reads the words just past the end of export tables the driver declares
 * short (the fake's CUDART_INTERFACE has one slot; CUDA 11.8 and 12.4
 * runtimes read its slot 2 anyway): a caller reading past the declared
 * length must see under cutap what it sees bare. Prints each table's size
 * word and its 4 words after the end, each as OBJECT+OFFSET where it
 * points into a loaded object (so that runs compare across address-space
 * layouts), else as its value; and errno after each request, set to 77
 * before it (cutap's copy probes the words past the end with system calls
 * of its own: they must not show). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cuda_min.h"

CUresult cuGetExportTable(const void **table, const void *uuid);

static void word(uintptr_t v)
{
    Dl_info di;
    if (v && dladdr((void *)v, &di) && di.dli_fname) {
        const char *b = strrchr(di.dli_fname, '/');
        printf(" %s+%#lx", b ? b + 1 : di.dli_fname, (unsigned long)(v - (uintptr_t)di.dli_fbase));
    } else {
        printf(" %#lx", (unsigned long)v);
    }
}

int main(void)
{
    static const unsigned char ids[][16] = {
        {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9},
        {0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66},
    };
    if (cuInit(0))
        return 1;
    for (unsigned i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        const uintptr_t *t = NULL;
        errno = 77;
        int rc = cuGetExportTable((const void **)&t, ids[i]);
        int e = errno;
        if (rc || !t) {
            printf("table %u: none\n", i);
            continue;
        }
        size_t n = t[0] / sizeof *t;
        printf("table %u: errno %d, %zu words, after:", i, e, n);
        for (size_t k = n; k < n + 4; k++)
            word(t[k]);
        printf("\n");
    }
    return 0;
}
