/* A library whose constructor opens the driver and calls it before
 * libcutap.so's own constructor has run (preloaded objects are initialised
 * after the program's dependencies). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

int early_result = -1;
__attribute__((constructor)) static void early(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    int (*init)(unsigned) = h ? (int (*)(unsigned))dlsym(h, "cuInit") : NULL;
    early_result = init ? init(0) : -2;
}
