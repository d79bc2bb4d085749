/* A rank of a "job" for cutap ps (issue #16): dlopen's the fake NCCL
 * (tests/fake/fake_lib_special.c: ncclAllReduce launches a kernel through
 * the driver), issues N all-reduces on a communicator, then synchronizes
 * the context (the test makes that call hang with FAKE_BLOCK, as a rank
 * waiting for a peer that never comes), and prints "ready" before it.
 *   t_ranks N */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int cuInit(unsigned flags);
int cuCtxSynchronize(void);

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1;
    void *h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    int (*all_reduce)(const void *, void *, size_t, int, int, void *, void *) =
        h ? (int (*)(const void *, void *, size_t, int, int, void *, void *))dlsym(h, "ncclAllReduce") : NULL;
    if (!all_reduce || cuInit(0))
        return 1;
    static float buf[256];
    for (int i = 0; i < n; i++)
        if (all_reduce(buf, buf, 256, 7, 0, (void *)0xc0117, NULL))
            return 1;
    printf("ready\n");
    fflush(stdout);
    return cuCtxSynchronize() ? 1 : 0;
}
