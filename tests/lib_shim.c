/* A vGPU-style shim: its constructor opens the real driver and calls it.
 * Named in CUTAP_DRIVER, it is dlopened by cutap while cutap is adopting
 * a driver, so the constructor re-enters cutap on the same thread. */
#define _GNU_SOURCE
#include <dlfcn.h>

int shim_result = -1;
__attribute__((constructor)) static void shim(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    int (*init)(unsigned) = h ? (int (*)(unsigned))dlsym(h, "cuInit") : 0;
    shim_result = init ? init(0) : -2;
}
