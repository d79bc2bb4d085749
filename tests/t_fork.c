/* fork: the child keeps working and is traced on its own (CUTAP_LOG with
 * %p gives each process its file). Parent: cuInit, cuDriverGetVersion;
 * child: 3 x cuMemAlloc_v2. `t_fork early`: the fork comes before cuInit,
 * which each process then makes. `t_fork warm`: as without it, and both
 * make 5 x cuCtxGetCurrent, the parent before the fork too (an id whose
 * fast path the parent's trace took: the child's file names it again). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuda_min.h"

int main(int argc, char **argv)
{
    /* "early": fork before any CUDA call (the child's cuInit is its own) */
    int early = argc > 1 && !strcmp(argv[1], "early");
    int warm = argc > 1 && !strcmp(argv[1], "warm");
    if (!early && cuInit(0))
        return 1;
    CUcontext c;
    for (int i = 0; warm && i < 5; i++)
        if (cuCtxGetCurrent(&c))
            return 1;
    fflush(stdout);
    pid_t pid = fork();
    if (early && cuInit(0))
        return 1;
    if (pid == 0) {
        int bad = 0;
        for (int i = 0; i < 3; i++) {
            CUdeviceptr p = 0;
            bad += cuMemAlloc_v2(&p, 128) != 0 || !p;
        }
        for (int i = 0; warm && i < 5; i++)
            bad += cuCtxGetCurrent(&c) != 0;
        printf("child %d: %d bad\n", (int)getpid(), bad);
        fflush(stdout);
        if (warm)
            exit(bad != 0);   /* (its exit handlers: cutap's CUTAP_DIAG_PATHS) */
        _exit(bad != 0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    int v = 0;
    int rc = cuDriverGetVersion(&v);
    printf("parent %d: child status %d, version %d\n", (int)getpid(), st, v);
    return rc || st || v != 13000;
}
