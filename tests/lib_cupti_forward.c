/* A library of the program's own that defines cuptiSubscribe and passes
 * each call on to libcupti, found with dlopen and dlsym (as CUPTI stubs
 * and shims do: XLA's): tests/t_gpu_own_client.c, mode stub. Under cutap,
 * its dlsym of libcupti's handle must give it libcupti's function, or at
 * least never the export that calls back into it (helper-30: that loop
 * ran until the stack overflowed). */
#include <dlfcn.h>
#include <stddef.h>

__attribute__((visibility("default"))) int cuptiSubscribe(void **subscriber, void *callback, void *userdata)
{
    static int (*next)(void **, void *, void *);
    if (!next) {
        void *h = dlopen("libcupti.so.13", RTLD_NOW | RTLD_LOCAL);
        *(void **)&next = h ? dlsym(h, "cuptiSubscribe") : NULL;
    }
    return next ? next(subscriber, callback, userdata) : 15;
}
